"""pocket-tts's model as the server loads it: the torch runtime, behind the seam as
`runtime.py`'s `TorchRuntime`.

Everything we change in pocket-tts's modules lives in this room, each given at load:
- `equivalents.py`: the flow head's time embeddings kept (a constant per frame), Mimi's first
  upsampling on a faster kernel; the same audio.
- `mimi_cache.py`: Mimi's caches left unfilled at a request's start; the same audio.
- `int8.py`: int8 for Mimi's decoder transformer beside pocket-tts's int8 of the flow LM, and an
  int8 copy of a loaded model (ONNX Runtime's int8 of the graphs is `onnx/quantize.py`).
- `one_copy.py`: a child process's load without pocket-tts's random initial weights beside the
  checkpoint's; the same weights.
The ONNX runtime changes the same model further, in its own room, to export it as graphs:
`onnx/attention.py` gives its attention an exportable cache.
`loading.py` loads and equips a model (its fingerprint for caches is `engine/identity.py`, every
runtime's).
"""
