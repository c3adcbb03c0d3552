"""The engine's voice states: made from a voice's source by the runtime (`cache.py`; where a
runtime makes them in a child process, `engine.children.voice`, waited for off the engine thread
by `making.py`), kept in an LRU (`lru.py`) and on disk (`store.py`, in pocket-tts's file layout:
`state_file.py`), each voice's loudness measured once (`calibration.py`)."""
