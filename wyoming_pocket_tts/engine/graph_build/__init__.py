"""The graphs the server runs, built straight from pocket-tts's checkpoint and config.

Numpy and `onnx` only: no torch, no pocket-tts. `build` writes the folder `onnx.export.export`
writes (the same graph inputs and outputs, `graphs.json`, `speech.json`), so `onnx.loop` and
`onnx.quantize` take it as they take an export.
"""

from .checkpoint import CheckpointError
from .folder import build

__all__ = ["CheckpointError", "build"]
