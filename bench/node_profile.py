"""Where a served frame's time goes inside the graphs: ONNX Runtime's own per-node profile.

`profile(folder, int8)` loads the server's lean model (`engine.onnx.lean.LeanModel`) on the
graphs in `folder`, swaps its LM and Mimi sessions for profiling ones (`enable_profiling`, the
same options otherwise: `engine.onnx.ort.session`), runs `LONG_TEXT`'s prompt, then frames as
the loop runs them (the frame graph, the LM, Mimi on the scaled latent), and reads the profiles
back. Per graph: the mean wall time of a run (`model_run`), and the nodes' kernel time per run
by operator type, with the share of nodes that read the LM's attention cache (an input with the
cache's slot count in its shape). The prompt's run and the first `WARM` frames are left out.
Run: `nice .venv/bin/python -m bench.node_profile FOLDER [FRAMES]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from wyoming_pocket_tts.engine.onnx.lean import LeanModel
from wyoming_pocket_tts.engine.onnx.plan import frame_budget, slot_budget
from wyoming_pocket_tts.engine.onnx.voice_arrays import lm_caches
from wyoming_pocket_tts.engine.runtime import RuntimeKind
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT
from wyoming_pocket_tts.settings import ModelSettings

WARM = 3
"""Frames left out of the profile after the prompt: first-run costs."""


def _profiled(path: Path, prefix: str) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    options.enable_profiling = True
    options.profile_file_prefix = prefix
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def summarise(events: list[dict[str, Any]], skip: int, slots: int | None) -> dict[str, Any]:
    """Mean per run after the first `skip` runs: wall ms, node ms by op type, cache-reading ms."""
    runs = sorted((e for e in events if e.get("name") == "model_run"), key=lambda e: e["ts"])
    kept = runs[skip:]
    if not kept:
        raise ValueError("no runs to profile")
    start = kept[0]["ts"]
    by_op: dict[str, float] = defaultdict(float)
    cache_ms = 0.0
    for event in events:
        if event.get("cat") != "Node" or event["ts"] < start:
            continue
        if not event["name"].endswith("_kernel_time"):
            continue
        args = event.get("args", {})
        by_op[args.get("op_name", "?")] += event["dur"] / 1000
        dims = json.dumps(args.get("input_type_shape", [])).replace(" ", "")
        if slots is not None and (f",{slots}," in dims or f"[{slots}," in dims):
            cache_ms += event["dur"] / 1000
    count = len(kept)
    return {
        "runs": count,
        "wall_ms": sum(e["dur"] for e in kept) / 1000 / count,
        "nodes_ms": sum(by_op.values()) / count,
        "cache_ms": cache_ms / count,
        "by_op": {op: ms / count for op, ms in sorted(by_op.items(), key=lambda kv: -kv[1])},
    }


def profile(folder: Path, int8: bool, frames: int = 30) -> dict[str, Any]:
    """The LM's and Mimi's per-run profile over `frames` frames after `LONG_TEXT`'s prompt."""
    settings = ModelSettings(model=None, config=None, runtime=RuntimeKind.ONNX)
    model = LeanModel(folder, settings, int8, 1)
    with tempfile.TemporaryDirectory() as scratch:
        model.lm.session = _profiled(model.graphs.lm(int8), f"{scratch}/lm")
        model.mimi.session = _profiled(model.graphs.mimi(int8), f"{scratch}/mimi")
        tokens = model.tokenizer.encode(LONG_TEXT)
        slots = slot_budget(0, len(tokens), frame_budget(len(tokens), model.settings))
        caches = lm_caches(model.empty_state(), model.graphs.lm_names, slots)
        noise = np.zeros((1, model.lm.ldim), np.float32)
        prompt = np.asarray(model.table[tokens], np.float32)[None]
        model.lm.run(caches, 0, prompt, noise)
        offset = len(tokens)
        latent = np.full((1, 1, model.lm.ldim), np.nan, np.float32)
        state = model.mimi.new_state()
        scale = np.asarray(model.settings.emb_std, np.float32)
        shift = np.asarray(model.settings.emb_mean, np.float32)
        for _ in range(frames):
            latent, _ = model.lm.run(caches, offset, model.frame.embed(latent), noise)
            offset += 1
            model.mimi.decode(state, np.asarray(latent * scale + shift, np.float32))
        lm_file = model.lm.session.end_profiling()
        mimi_file = model.mimi.session.end_profiling()
        lm_events = json.loads(Path(lm_file).read_text())
        mimi_events = json.loads(Path(mimi_file).read_text())
    return {
        "slots": slots,
        "lm": summarise(lm_events, 1 + WARM, slots),
        "mimi": summarise(mimi_events, WARM, None),
    }


def render(name: str, result: dict[str, Any], top: int = 8) -> str:
    lines = [f"## {name} (LM cache {result['slots']} slots)"]
    for stage in ("lm", "mimi"):
        r = result[stage]
        ops = ", ".join(f"{op} {ms:.2f}" for op, ms in list(r["by_op"].items())[:top])
        cache = f", reading the cache {r['cache_ms']:.2f} ms" if stage == "lm" else ""
        lines.append(
            f"- {stage}: run {r['wall_ms']:.2f} ms, nodes {r['nodes_ms']:.2f} ms{cache} "
            f"({r['runs']} runs); by op (ms/run): {ops}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    target = Path(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for precision in (True, False):
        label = f"{target.name} {'int8' if precision else 'fp32'}"
        print(render(label, profile(target, precision, count)), flush=True)
