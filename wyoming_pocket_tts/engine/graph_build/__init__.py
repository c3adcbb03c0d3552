"""The graphs the server runs, built straight from pocket-tts's checkpoint and config.

Numpy and `onnx` (and ONNX Runtime's `quantize_data` for int8) only: no torch, no pocket-tts.
`build` (`folder.py`) writes the folder `onnx.export.export` writes (the same graph inputs and
outputs, `graphs.json`, `speech.json`), so `onnx.loop` and `onnx.quantize` take it as they take
an export. The checkpoint is read a tensor at a time (`checkpoint.py`), its config without
pocket-tts (`config.py`); the graphs are written node by node (`ops.py`) from pocket-tts's
layers (`layers.py`, `transformer.py`, `flow_head.py`, `convs.py`): the LM's step (`lm.py`), a
frame's input (`frame.py`), Mimi's decoder (`mimi.py`) and its encoder for cloning
(`encoder.py`); the int8 LM and Mimi write their linear layers in int8 as they are built
(`int8.py`). `child.py` is the child process that makes a model's graphs for the server
(`children.graphs` starts it).
"""

from .checkpoint import CheckpointCut, CheckpointError
from .folder import build

__all__ = ["CheckpointCut", "CheckpointError", "build"]
