"""Issue 50's levers side by side in one process: the lean model on two graph folders (or one
folder under two runner settings), int8 and fp32, one thread, against pocket-tts's defaults.

Each round serves every side in turn (the order reversed every other round,
`engine.tuning.timing.interleaved`), as the server times its choices (`timing.serve`): first
audio of `SHORT_TEXT`, the real-time factor of `LONG_TEXT` after its first chunk over `FRAMES`
frames, the frame time it implies (80 ms of audio over the RTF), and the process's CPU time per
frame of that generation (its prompt included; less swayed by other work on the host). The
reference is pocket-tts itself (fp32, torch's default threads) served the same way, with no
voice. Medians over rounds.
Run: `nice .venv/bin/python -m bench.frame_levers CONFIG ROUNDS SPEC...` (a SPEC is a graph
folder with options, `lean`; the first is "before"; `PRECISION=True` runs int8 only).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wyoming_pocket_tts.engine.onnx.lean import LeanModel
from wyoming_pocket_tts.engine.onnx.runners import (  # the bindings: this bench's own knob
    LMRunner,
    MimiRunner,
    MimiState,
    _LMBinding,
    _MimiBinding,
)
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT, SHORT_TEXT, interleaved, serve
from wyoming_pocket_tts.settings import ModelSettings

FRAMES = 40
FRAME_SECONDS = 0.08


class FreshLMRunner(LMRunner):
    """The LM's runner with a new binding and buffers for every run (before lever 4)."""

    def _binding(self, caches: list[Any], steps: int, dim: int) -> _LMBinding:
        return _LMBinding(self.session, caches, steps, dim, self.ldim)


class FreshMimiRunner(MimiRunner):
    """Mimi's runner with a new binding and buffers for every frame (before lever 4)."""

    def _binding(self, state: MimiState, latent: tuple[int, ...]) -> _MimiBinding:
        return _MimiBinding(self.session, state, self.steps, self.samples, latent)


def _timed(model: Any) -> dict[str, float]:
    first, _ = serve(model, SHORT_TEXT, 1)
    cpu = time.process_time()
    _, rtf = serve(model, LONG_TEXT, FRAMES)
    cpu_ms = (time.process_time() - cpu) / FRAMES * 1000
    return {
        "first_audio": first,
        "rtf": rtf,
        "frame_ms": FRAME_SECONDS / rtf * 1000,
        "cpu_ms": cpu_ms,
    }


def measure(sides: dict[str, Callable[[], Any]], rounds: int) -> dict[str, dict[str, float]]:
    """Medians per side over `rounds` interleaved rounds (one warm-up generation each)."""
    models = {name: make() for name, make in sides.items()}
    for model in models.values():
        serve(model, SHORT_TEXT, 2)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in models}
    for order in interleaved(list(models), rounds):
        for name in order:
            runs[name].append(_timed(models[name]))
    return {
        name: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for name, results in runs.items()
    }


def render(results: dict[str, dict[str, float]], reference: str, before: str) -> str:
    ref, base = results[reference], results[before]
    lines = [
        "| side | first audio | RTF | frame | CPU/frame | first audio vs ref | RTF vs ref "
        "| frame vs before | CPU/frame vs before |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['first_audio'] * 1000:.0f} ms | {r['rtf']:.2f}x | "
            f"{r['frame_ms']:.1f} ms | {r['cpu_ms']:.1f} ms | "
            f"{r['first_audio'] / ref['first_audio']:.2f}x | {r['rtf'] / ref['rtf']:.2f}x | "
            f"{r['frame_ms'] / base['frame_ms']:.2f}x | {r['cpu_ms'] / base['cpu_ms']:.2f}x |"
        )
    return "\n".join(lines)


def lean(spec: str, int8: bool) -> Callable[[], Any]:
    """A lean model on `spec`: `FOLDER[:OPTION,...]`; options: `fresh` (a new binding and
    buffers per run, `FreshLMRunner` and `FreshMimiRunner`, as before issue 50's lever 4),
    `lm2`, `mimi2` (two intra-op threads for that stage), `nospin` (intra-op threads do not
    spin)."""
    path, _, given = spec.partition(":")
    options = set(filter(None, given.split(",")))

    def make() -> Any:
        model = LeanModel(Path(path), ModelSettings(model=None, config=None), int8, 1)
        if "fresh" in options:
            model.lm = FreshLMRunner(model.graphs.lm(int8), 1)
            model.mimi = FreshMimiRunner(model.graphs.mimi(int8), model.mimi.steps, 1)
        for stage, graph in (("lm", model.graphs.lm(int8)), ("mimi", model.graphs.mimi(int8))):
            threads = 2 if f"{stage}2" in options else 1
            if threads > 1 or "nospin" in options:
                runner = getattr(model, stage)
                runner.session = _session(graph, threads, "nospin" not in options)
        return model

    return make


def _session(path: Path, threads: int, spinning: bool) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def main(argv: list[str]) -> None:
    config, rounds, *specs = argv
    precisions = [p for p in (True, False) if os.environ.get("PRECISION", "") in ("", str(p))]

    def library() -> Any:
        from pocket_tts import TTSModel

        from wyoming_pocket_tts.engine.model.runtime import TorchRuntime

        return TorchRuntime(TTSModel.load_model(config=config), False)

    reference = "pocket-tts defaults (fp32)"
    for int8 in precisions:
        kind = "int8" if int8 else "fp32"
        sides = {reference: library} | {f"{kind} {spec}": lean(spec, int8) for spec in specs}
        results = measure(sides, int(rounds))
        print(render(results, reference, f"{kind} {specs[0]}"), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])


def stage_times(folder: Path, int8: bool, rounds: int = 8, calls: int = 40) -> dict[str, float]:
    """Median ms of one LM frame (`lm.run`, one step) and one Mimi frame (`mimi.decode`), on
    reused bindings and on fresh ones (`FreshLMRunner`, `FreshMimiRunner`), alternating blocks
    of `calls` in one process, one thread."""
    import numpy as np

    from wyoming_pocket_tts.engine.onnx.plan import frame_budget, slot_budget
    from wyoming_pocket_tts.engine.onnx.voice_arrays import lm_caches

    model = LeanModel(folder, ModelSettings(model=None, config=None), int8, 1)
    tokens = model.tokenizer.encode(LONG_TEXT)
    runners = {
        True: (model.lm, model.mimi),
        False: (
            FreshLMRunner(model.graphs.lm(int8), 1),
            FreshMimiRunner(model.graphs.mimi(int8), model.mimi.steps, 1),
        ),
    }
    lm = model.lm
    noise = np.zeros((1, lm.ldim), np.float32)
    embedding = model.frame.embed(np.full((1, 1, lm.ldim), np.nan, np.float32))
    latent = np.zeros((1, 1, lm.ldim), np.float32)
    times: dict[str, list[float]] = {}
    for order in interleaved([True, False], rounds):
        for reuse in order:
            lm, mimi = runners[reuse]
            slots = slot_budget(0, len(tokens), frame_budget(len(tokens), model.settings))
            caches = lm_caches(model.empty_state(), model.graphs.lm_names, slots)
            lm.run(caches, 0, np.asarray(model.table[tokens], np.float32)[None], noise)
            state = mimi.new_state()
            for i in range(calls):
                started = time.perf_counter()
                lm.run(caches, len(tokens) + i, embedding, noise)
                middle = time.perf_counter()
                mimi.decode(state, latent)
                times.setdefault(f"lm reuse={reuse}", []).append(middle - started)
                times.setdefault(f"mimi reuse={reuse}", []).append(time.perf_counter() - middle)
    return {name: statistics.median(t) * 1000 for name, t in times.items()}
