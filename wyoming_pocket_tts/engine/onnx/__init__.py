"""The ONNX Runtime runtime: the flow LM's step, Mimi's decoder and encoder as graphs (built from
the checkpoint by `engine.graph_build`; for split weights exported from pocket-tts's own modules
by `export.py`, with `attention.py`'s exportable KV cache; `graphs.py` names the files), their
int8 (`quantize.py`) measured against fp32 where it is made (`int8_gate.py`), cached per host
(`cache.py`) and made in a child process (`engine.children.graphs`): in the background while
torch serves (`background.py`), or first, where torch is not installed (`first_build.py`).
`loop.py` runs them without torch: pocket-tts's generation loop over the graphs with numpy
(`runners.py` on `ort.py`'s sessions, its budgets in `plan.py`, `text_prompt.py`,
`voice_arrays.py`, `loop_settings.py`), served as `lean.py`'s `LeanModel`; `voice_encoding.py`
makes a voice's state on the built graphs, without torch."""
