"""How a model is loaded on this host: fp32 or int8, threads, torch or ONNX Runtime, chosen by
measuring (`rule.py` decides, `timing.py` measures, `decisions.py` remembers) and loaded by
`tuned.py`."""
