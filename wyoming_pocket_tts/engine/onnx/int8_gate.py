"""The int8 graphs' quality gate: how far they move the LM's latents and Mimi's audio from the
fp32 graphs' on this host, on a fixed probe, and whether that is within `BOUND`.

Run where the int8 graphs are made (the build child, `graph_build.child`; `cache.prepare_graphs`
and `cache.prepare_int8` for graphs exported from torch), with numpy and ONNX Runtime only. The
probe is `PROBE_TEXT`'s prompt, then `FRAMES` frames, each side fed the fp32 graphs' latent of
the frame before (as tests/engine/test_int8_graphs.py measures against torch), at temperature 0;
then the fp32 latents decoded by both Mimi graphs. One LM graph is open at a time, the fp32 one
on its file's pages (`ort.session`, not prepacked). A verdict past the bound is written beside
the graphs (`REFUSED`), and the model serves its fp32 graphs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graphs import REFUSED, Graphs
from .runners import FrameRunner, LMRunner, MimiRunner
from .voice_arrays import empty_state, lm_caches

PROBE_TEXT = "The kitchen lights are off, and the front door is locked for the night."
FRAMES = 12
BOUND = 0.03
"""The most either part may move, as a share of its RMS. Measured with `measure` (2026-12-04,
AMD EPYC without VNNI, random weights): the u8u8 graphs moved the LM's latents 0.0040 (the slim
test model) and 0.0144 (`english` shapes); the u8s8 graphs that 0.8 made moved them 0.0436 and
0.126 on that CPU (its kernel without VNNI saturates). Mimi's audio moved at most 0.0002."""


@dataclass(frozen=True)
class Drift:
    """The int8 graphs against the fp32 graphs on the probe, as a share of the fp32 RMS."""

    latent: float
    audio: float

    @property
    def held(self) -> bool:
        return self.latent <= BOUND and self.audio <= BOUND

    def __str__(self) -> str:
        return f"the LM's latents moved {self.latent:.4f}, the audio {self.audio:.4f}"


def measure(graphs: Graphs) -> Drift:
    """The int8 graphs in `graphs.folder` against its fp32 graphs, on this host's kernels."""
    from .loop_settings import LoopSettings

    settings = LoopSettings.read(graphs.speech)
    reference, moved = probe_latents(graphs)
    scale = np.asarray(settings.emb_std, np.float32)
    shift = np.asarray(settings.emb_mean, np.float32)
    steps = settings.mimi_steps_per_latent
    audio = [
        _decoded(MimiRunner(graphs.mimi(int8), steps, 1), reference * scale + shift)
        for int8 in (False, True)
    ]
    return Drift(_relative(moved, reference), _relative(audio[1], audio[0]))


def probe_latents(graphs: Graphs) -> tuple[np.ndarray, np.ndarray]:
    """The probe's latents (frames, ldim): the fp32 graphs' own, and the int8 graphs' fed the
    fp32 latent before each frame."""
    from .loop_settings import LoopSettings
    from .text_prompt import Tokenizer

    settings = LoopSettings.read(graphs.speech)
    tokens = Tokenizer(graphs.folder / settings.tokenizer).encode(PROBE_TEXT)
    table = np.load(graphs.text_embeddings, mmap_mode="r")
    prompt = np.asarray(table[tokens], np.float32)[None]
    frame = FrameRunner(graphs.frame)
    fp32 = LMRunner(graphs.lm(False), 1, prepacked=False)  # 12 frames: on the file's pages
    reference = _latents(fp32, frame, graphs, prompt, None)
    del fp32  # before the int8 graph opens
    return reference, _latents(LMRunner(graphs.lm(True), 1), frame, graphs, prompt, reference)


def _latents(
    lm: LMRunner, frame: FrameRunner, graphs: Graphs, prompt: np.ndarray,
    fed: np.ndarray | None,
) -> np.ndarray:  # fmt: skip
    """`FRAMES` latents (frames, ldim) after `prompt`, each frame's input the latent before in
    `fed` (or the LM's own where None), without noise."""
    heads, dim = lm.cache_shape
    names = graphs.lm_names
    caches = lm_caches(empty_state(names, heads, dim), names, prompt.shape[1] + FRAMES)
    noise = np.zeros((1, lm.ldim), np.float32)
    latent = np.full((1, 1, lm.ldim), np.nan, np.float32)
    offset, out = 0, []
    for step in range(FRAMES):
        embedding = frame.embed(latent)
        if step == 0:
            embedding = np.concatenate([prompt, embedding], axis=1)
        latent, _ = lm.run(caches, offset, embedding, noise)
        offset += embedding.shape[1]
        out.append(latent.reshape(-1))
        if fed is not None:
            latent = fed[step].reshape(1, 1, -1)
    return np.stack(out)


def _decoded(mimi: MimiRunner, latents: np.ndarray) -> np.ndarray:
    state = mimi.new_state()
    return np.concatenate([mimi.decode(state, row.reshape(1, 1, -1)) for row in latents])


def _relative(got: np.ndarray, expected: np.ndarray) -> float:
    rms = float(np.sqrt(np.mean(np.square(expected, dtype=np.float64))))
    return float(np.sqrt(np.mean(np.square(got - expected, dtype=np.float64)))) / max(rms, 1e-12)


def check(graphs: Graphs) -> Drift:
    """Measure the int8 graphs just made; past the bound, remove them and write why
    (`REFUSED`), so that this model serves its fp32 graphs."""
    drift = measure(graphs)
    if not drift.held:
        for path in graphs.files(True):
            for part in (path, path.with_name(path.name + ".data")):
                part.unlink(missing_ok=True)
        reason = f"int8 refused on this CPU: {drift} (bound {BOUND}); fp32 serves"
        (graphs.folder / REFUSED).write_text(reason + "\n", encoding="utf-8")
    return drift
