"""Serving requests: the engine thread (`engine.py`), its fair scheduler (`scheduler.py`), a
request and its listener (`request.py`), the loaded models (`pool.py`) and the last requests
(`recent.py`)."""
