"""How a model is loaded on this host: fp32 or int8, threads, torch or ONNX Runtime, chosen by
measuring (`rule.py` decides, `timing.py` measures, `comparison.py` compares, `decisions.py`
remembers) and loaded by `tuned.py`; `course.py` says where a loaded model is in how it runs
(settled, provisional, exporting, comparing) and `idle.py` moves it along when the engine is idle;
`verdict.py` says after `Ready` whether the host is fast enough."""
