"""The engine: one thread that owns the Pocket-TTS models and does all model work.

Rooms, each importing only the rooms listed after it (checked by `tests/repo/test_layout.py`):
- `serving/`: the engine thread (`engine.py`), the fair `scheduler.py`, a request and its
  listener (`request.py`), the pool of loaded models (`pool.py`), the recent requests.
- `tuning/`: how a model is loaded on this host (precision, threads, runtime), measured and
  remembered (`tuned.py` is the entry).
- `graph_build/`: the graphs built from the checkpoint and its config with numpy and onnx, no
  torch (the export's folder; not wired into the cache yet).
- `onnx/`: the ONNX Runtime runtime: graphs exported from pocket-tts's own modules, cached, and
  run in its place.
- `model/`: pocket-tts's model as we load and change it (the torch runtime): every change we make
  to its modules is listed in its docstring; int8 lives in `model/int8.py`.
- `voice_states/`: the voice-state cache (states in memory, on disk, loudness calibration).
- `speech.py`: the seam, what a runtime must provide to speak a piece; `chunking.py`: a piece
  bounded to what the engine speaks at once.
"""
