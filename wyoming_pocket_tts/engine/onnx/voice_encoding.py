"""A voice's state from its prompt audio on the built graphs (numpy and ONNX Runtime, no torch):
pocket-tts's `get_state_for_audio_prompt` for audio already at the model's rate.

As pocket-tts: the audio is ended on a pause (`audio.prompt_reading.end_on_pause`), encoded by
Mimi's encoder and the speaker projection, `bos_before_voice` first where the config inserts it
(the encoder graph `voice.onnx` and `voice_bos.npy`, `graph_build.encoder`), and that prompt
runs through the flow LM in one call (its LM step graph, `runners.LMRunner`); the state is the
LM's K and V of the prompt in pocket-tts's layout (`voice_arrays`), ready for `write_state` and
`loop.GraphSpeech`. The encoder runs a chunk at a time (the graph's own size), carrying its
convolution states and its attention's circular caches: memory stays that of one chunk.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...audio.prompt_reading import end_on_pause, read_prompt
from ...voices.cloning import VoiceCloningUnavailable
from .graphs import VOICE, VOICE_BOS, Graphs
from .loop_settings import LoopSettings
from .ort import session
from .runners import LMRunner
from .voice_arrays import ArrayState


class VoiceEncoder:
    """Mimi's encoder graph in `folder` (`VOICE`; `VoiceCloningUnavailable` if the build had no
    cloning weights to make it), run a chunk at a time."""

    def __init__(self, folder: Path, threads: int) -> None:
        if not (folder / VOICE).is_file():
            raise VoiceCloningUnavailable()
        self.session = session(folder / VOICE, threads)
        self.inputs = {i.name: tuple(int(n) for n in i.shape) for i in self.session.get_inputs()}
        self.outputs = [o.name for o in self.session.get_outputs()]
        self.chunk = self.inputs["audio"][2]
        """Samples per chunk (whole frames)."""
        _, frames, self.dim = (int(n) for n in self.session.get_outputs()[0].shape)
        self.frame = self.chunk // frames
        """Samples per latent frame."""
        bos = folder / VOICE_BOS
        self.bos = np.load(bos) if bos.is_file() else None
        """`bos_before_voice` (1, 1, dim), or None where the config inserts none."""

    def prompt(self, audio: np.ndarray) -> np.ndarray:
        """The flow LM's prompt (1, frames (+1 with BOS), dim) of `audio` (1, channels,
        samples): pocket-tts's `_encode_audio` (the audio padded to whole frames), BOS first."""
        feeds = {name: np.zeros(shape, np.float32) for name, shape in self.inputs.items()}
        caches = sorted((n for n in self.inputs if n.startswith("c")), key=lambda n: int(n[1:]))
        states = [name for name in self.inputs if name.startswith("s")]
        samples = audio.shape[2]
        offset, parts = 0, []
        for start in range(0, samples, self.chunk):
            piece = audio[..., start : start + self.chunk]
            if piece.shape[2] < self.chunk:  # the last: zeros after, their frames dropped
                piece = np.pad(piece, ((0, 0), (0, 0), (0, self.chunk - piece.shape[2])))
            feeds["audio"] = np.ascontiguousarray(piece, np.float32)
            feeds["offset"] = np.array([offset], np.int64)
            out = dict(zip(self.outputs, self.session.run(None, feeds), strict=True))
            parts.append(out["prompt"])
            for name in states:
                feeds[name] = out[f"{name}_out"]
            steps = out["c0_new"].shape[2]
            for name in caches:
                _write_circular(feeds[name], out[f"{name}_new"], offset)
            offset += steps
        frames = -(-samples // self.frame)
        empty = np.zeros((1, 0, self.dim), np.float32)
        whole = np.concatenate(parts, axis=1)[:, :frames] if parts else empty
        return whole if self.bos is None else np.concatenate([self.bos, whole], axis=1)


def _write_circular(cache: np.ndarray, rows: np.ndarray, offset: int) -> None:
    """Steps `offset`, … of `rows` (1, heads, steps, d) into the circular `cache` (1, heads,
    slots, d), the last `slots` of them where there are more."""
    slots, steps = cache.shape[2], rows.shape[2]
    kept = min(steps, slots)
    where = (offset + np.arange(steps - kept, steps)) % slots
    cache[:, :, where] = rows[:, :, steps - kept :]


def prompt_state(lm: LMRunner, names: list[str], prompt: np.ndarray) -> ArrayState:
    """The flow LM's state after `prompt` (1, steps, dim) in pocket-tts's layout (`cache`
    (2, 1, steps, heads, d), `offset` and `pad` per attention module in `names`' order): one
    LM run on caches of exactly the prompt's steps (its latent, of zero noise, unread)."""
    steps = prompt.shape[1]
    heads, dim = lm.cache_shape
    caches = [np.zeros((1, heads, steps, dim), np.float32) for _ in range(2 * len(names))]
    lm.run(caches, 0, np.ascontiguousarray(prompt, np.float32), np.zeros((1, lm.ldim), np.float32))
    state: ArrayState = {}
    for i, name in enumerate(names):
        k, v = (caches[2 * i + kv][0].transpose(1, 0, 2) for kv in (0, 1))
        state[name] = {
            "offset": np.array([steps], np.int64),
            "pad": np.zeros(1, np.int64),
            "cache": np.stack([k, v])[:, None].astype(np.float32),
        }
    return state


def voice_state(graphs: Graphs, lm: LMRunner, audio: np.ndarray, threads: int = 1) -> ArrayState:
    """The state of prompt `audio` (1, samples) at the model's rate on `graphs` (`lm`: their LM
    step, the server's own): ended on a pause, encoded, read by the LM.
    `VoiceCloningUnavailable` if the graphs have no encoder."""
    return _state(graphs, lm, VoiceEncoder(graphs.folder, threads), audio)


def voice_state_of_file(
    graphs: Graphs, lm: LMRunner, path: Path, name: str, threads: int = 1
) -> ArrayState:
    """The state of the voice prompt in audio file `path` (its first 30 s, mono, resampled:
    `audio.prompt_reading.read_prompt`), as pocket-tts's `get_state_for_audio_prompt(path,
    truncate=True)` makes it. `VoiceCloningUnavailable` before the file is read if the graphs
    have no encoder; ValueError or soundfile's error for a file that holds no audio."""
    encoder = VoiceEncoder(graphs.folder, threads)
    audio = read_prompt(path, _sample_rate(graphs), name)
    return _state(graphs, lm, encoder, audio)


def _sample_rate(graphs: Graphs) -> int:
    return LoopSettings.read(graphs.speech).sample_rate


def _state(graphs: Graphs, lm: LMRunner, encoder: VoiceEncoder, audio: np.ndarray) -> ArrayState:
    paused = end_on_pause(np.asarray(audio, np.float32), _sample_rate(graphs))
    return prompt_state(lm, graphs.lm_names, encoder.prompt(paused[None]))
