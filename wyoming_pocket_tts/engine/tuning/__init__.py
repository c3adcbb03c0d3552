"""How a model is loaded on this host: fp32 or int8, threads, torch or ONNX Runtime, chosen by
measuring (`rule.py` decides, `timing.py` measures, `comparison.py` compares, `decisions.py`
remembers) and loaded by `tuned.py`; `verdict.py` says after `Ready` whether the host is fast
enough."""
