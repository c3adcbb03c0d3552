"""The engine's voice states: made from a voice's source (`cache.py`; `encoder.py` in a child
process on the graphs, `making.py` one child at a time, `prompt_audio.py` reads the recording),
kept in an LRU (`lru.py`) and on disk (`store.py`), each voice's loudness measured once
(`calibration.py`)."""
