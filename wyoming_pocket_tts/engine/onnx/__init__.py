"""The ONNX Runtime runtime: the flow LM's step and Mimi's decoder as graphs exported from
pocket-tts's own modules (`export.py`, with `attention.py`'s exportable KV cache), cached per
host (`cache.py`), exported in a child process (`background.py`, `child.py`) and run in place of
pocket-tts's modules (`model.py`, `sessions.py`)."""
