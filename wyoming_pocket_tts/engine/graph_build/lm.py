"""The flow LM's step graph (`lm.onnx`), with the interface of `onnx.export.LMStep`.

Inputs: `embeddings` (1, steps, dim; any number of steps), `noise` (1, ldim), `offset` (1,),
then `c0`, `c1`, … the K and V cache of each layer (1, kv heads, slots, dim per head; any
number of slots). Outputs: `next_latent` (1, ldim), `eos` (1, 1), then `c0_new`, … each cache's
rows of this call (1, kv heads, steps, dim per head). The backbone runs on every step; the
EOS logit and the flow head on the last one, as pocket-tts's `FlowLMModel.forward` does.
"""

from __future__ import annotations

from pathlib import Path

from .checkpoint import Checkpoint
from .config import ModelConfig
from .flow_head import FlowHead, decode
from .layers import gemm, layer_norm, linear
from .ops import FLOAT, INT64, Graph, write_graph
from .transformer import transformer

LM_NAMES = "transformer.layers.{}.self_attn"
"""The flow LM's attention modules (`Graphs.lm_names`), one per layer."""


def lm_names(config: ModelConfig) -> list[str]:
    return [LM_NAMES.format(i) for i in range(config.flow.num_layers)]


def build_lm(
    ck: Checkpoint, config: ModelConfig, path: Path, decode_steps: int, int8: bool = False
) -> None:
    """Write the LM's step graph to `path` (its weights beside it; `int8`: see `ops.Graph`)."""
    write_graph(path, "lm_step", lambda g: _lm(g, ck, config, decode_steps), int8)


def _lm(g: Graph, ck: Checkpoint, config: ModelConfig, decode_steps: int) -> None:
    shape = config.flow
    x = g.input("embeddings", FLOAT, [1, "steps", shape.d_model])
    noise = g.input("noise", FLOAT, [1, config.ldim])
    offset = g.input("offset", INT64, [1])
    cache_shape: list[int | str] = [1, shape.num_kv_heads, "slots", shape.dim_per_head]
    caches = [g.input(f"c{i}", FLOAT, cache_shape) for i in range(2 * shape.num_layers)]
    x, rows = transformer(g, ck, x, "flow_lm.transformer", shape, offset, caches)
    last = g.node("Gather", [x, g.const(-1, "int64")], axis=1)  # per step: the last alone
    out = layer_norm(g, ck, last, "flow_lm.out_norm", shape.d_model, 1e-5)
    width = shape.d_model
    if config.z_dim is not None:
        out = linear(g, ck, out, "flow_lm.z_proj", (config.z_dim, shape.d_model))
        width = config.z_dim
    eos = gemm(g, ck, out, "flow_lm.out_eos", (1, width))
    latent = decode(FlowHead(g, ck, config, out), noise, decode_steps)
    g.output(latent, "next_latent", FLOAT, [1, config.ldim])
    g.output(eos, "eos", FLOAT, [1, 1])
    row_shape: list[int | str] = [1, shape.num_kv_heads, "steps", shape.dim_per_head]
    for i, row in enumerate(rows):
        g.output(row, f"c{i}_new", FLOAT, row_shape)
