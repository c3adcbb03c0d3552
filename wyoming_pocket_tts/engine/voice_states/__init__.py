"""The engine's voice-state cache: states made from a voice's source (`cache.py`), kept in an LRU
(`lru.py`) and on disk (`store.py`), each voice's loudness measured once (`calibration.py`)."""
