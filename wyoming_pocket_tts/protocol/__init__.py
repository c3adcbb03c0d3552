"""The Wyoming side: bounded event reading (`events.py`), the connection's read loop
(`handler.py`) and its reply writer (`replies.py`)."""
