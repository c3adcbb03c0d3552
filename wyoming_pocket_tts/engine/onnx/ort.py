"""An ONNX Runtime session on the CPU, as both runtimes over the graphs open them (no torch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def session(path: Path, threads: int) -> Any:
    """An ONNX Runtime CPU session of `path` on `threads` intra-op threads, run in sequence."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: its optimiser's notes are not ours to act on
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
