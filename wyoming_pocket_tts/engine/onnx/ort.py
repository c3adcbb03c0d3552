"""An ONNX Runtime session on the CPU, as the graphs' loop and the int8 gate open it (no torch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def session(path: Path, threads: int, prepacked: bool = True) -> Any:
    """An ONNX Runtime CPU session of `path` on `threads` intra-op threads (not spinning), run
    in sequence. Not `prepacked`, MatMul reads its weights where they are, which for a graph
    with its weights beside it (`graph_build`, aligned) are the file's pages, in the page cache
    the kernel may drop (not the process's own memory): for a session run only a few times."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # errors only: its optimiser's notes are not ours to act on
    # Idle intra-op threads sleep instead of spinning: the LM and Mimi run at once on their own
    # threads, and a spinning pool takes the core the other stage needs (the LM on 2 threads:
    # 1.6x the frame time with spinning on this 2-core host; docs/performance.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if not prepacked:
        options.add_session_config_entry("session.disable_prepacking", "1")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
