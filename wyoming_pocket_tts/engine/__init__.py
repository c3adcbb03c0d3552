"""The engine: one thread that owns the Pocket-TTS models and does all model work.

Rooms:
- `serving/`: the engine thread, its fair scheduler, requests and the pool of loaded models.
- `tuning/`: how a model is loaded on this host (precision, threads, runtime), measured and
  remembered (`tuned.py` is the entry).
- `graph_build/`: the graphs built from the checkpoint and its config with numpy and onnx, no
  torch, in a child process (`child.py`).
- `onnx/`: the ONNX Runtime runtime: graphs of pocket-tts's model, cached, and
  run by a loop of our own without torch.
- `model/`: pocket-tts's model as we load and change it, behind the seam (the torch runtime).
- `voice_states/`: voice states made, cached in memory and on disk, and their loudness.
- `children/`: work that peaks far above serving, run in a child process, one at a time.
Modules: `runtime.py`, the seam (what a runtime must provide, and the runtimes' kinds: a new
runtime is a room and a `RuntimeKind` member); `identity.py`, which model a cached thing belongs
to; `model_files.py`, the files a model is made of, fetched without pocket-tts; `chunking.py`, a
piece bounded to what the engine speaks at once. Circles between rooms are refused by
`script/layout.py`."""
