"""The flow LM's head (`SimpleMLPAdaLN`) and its decoding of the next latent, as ONNX nodes.

The head is conditioned on the transformer's output and, for `lsd` and `flow_matching`, on
time: the time steps of a decode are fixed (`sampler_decode_steps`), so their embeddings
(`TimestepEmbedder`, pocket-tts's sums in float32) are computed here once and enter the graph
as constants. The decoders are pocket-tts's (`flow_lm.lsd_decode`, `ot_decode`,
`drifting_decode`, `pointwise_decode`).
"""

from __future__ import annotations

import numpy as np

from .checkpoint import Checkpoint
from .config import ModelConfig
from .layers import Dense, gemm, layer_norm, modulate, silu
from .ops import Graph

HEAD = "flow_lm.flow_net"
_FREQUENCIES = 256
"""`TimestepEmbedder.frequency_embedding_size`."""


def _silu(x: np.ndarray) -> np.ndarray:
    return np.asarray(x / (np.float32(1) + np.exp(-x)), np.float32)


def time_embedding(ck: Checkpoint, config: ModelConfig, index: int, t: float) -> np.ndarray:
    """`time_embed[index](t)` (1, dim): the frequencies' cos and sin, an MLP, an RMS norm."""
    name, dim = f"{HEAD}.time_embed.{index}", config.flow_dim
    freqs = ck.tensor(f"{name}.freqs", (_FREQUENCIES // 2,))
    args = np.float32(t) * freqs
    x = np.concatenate([np.cos(args), np.sin(args)])[None].astype(np.float32)
    x = x @ ck.tensor(f"{name}.mlp.0.weight", (dim, _FREQUENCIES)).T
    x = _silu(x + ck.tensor(f"{name}.mlp.0.bias", (dim,)))
    x = x @ ck.tensor(f"{name}.mlp.2.weight", (dim, dim)).T + ck.tensor(
        f"{name}.mlp.2.bias", (dim,)
    )
    alpha = ck.tensor(f"{name}.mlp.3.alpha", (dim,))
    variance = np.float32(1e-5) + x.var(axis=-1, keepdims=True, ddof=1, dtype=np.float32)
    return np.asarray(x * (alpha / np.sqrt(variance)), np.float32)


def _times(ck: Checkpoint, config: ModelConfig, times: list[float]) -> np.ndarray | None:
    """`sum(emb(t) for emb, t in zip(time_embed, times)) / num_time_conds` (None: no times)."""
    if not times:
        return None
    total = np.zeros((1, config.flow_dim), np.float32)
    for index, t in enumerate(times):
        total = total + time_embedding(ck, config, index, t)
    return np.asarray(total / np.float32(len(times)), np.float32)


class FlowHead:
    """The head's nodes, written once per call of it (a decode of several steps calls it
    several times; the weights are shared)."""

    def __init__(self, g: Graph, ck: Checkpoint, config: ModelConfig, condition: str) -> None:
        self.g, self.ck, self.config = g, ck, config
        dim, cond = config.flow_dim, config.z_dim or config.flow.d_model
        self.condition = gemm(g, ck, condition, f"{HEAD}.cond_embed", (dim, cond))
        self._layers: dict[str, Dense] = {}

    def __call__(self, x: str, times: list[float]) -> str:
        """The head's output for latent `x` (1, ldim) at `times` (one per time condition)."""
        g, config, dim = self.g, self.config, self.config.flow_dim
        x = self._gemm(x, "input_proj", (dim, config.ldim))
        y = self.condition
        embedded = _times(self.ck, config, times)
        if embedded is not None:
            y = g.node("Add", [y, g.const(embedded)])
        y_act = silu(g, y)
        for i in range(config.flow_depth):
            block = f"res_blocks.{i}"
            modulation = self._gemm(y_act, f"{block}.adaLN_modulation.1", (3 * dim, dim))
            shift, scale, gate = g.node(
                "Split", [modulation, g.ints(dim, dim, dim)], outputs=3, axis=-1
            )
            h = modulate(
                g, layer_norm(g, self.ck, x, f"{HEAD}.{block}.in_ln", dim, 1e-6), shift, scale
            )
            h = self._gemm(
                silu(g, self._gemm(h, f"{block}.mlp.0", (dim, dim))), f"{block}.mlp.2", (dim, dim)
            )
            x = g.node("Add", [x, g.node("Mul", [gate, h])])
        modulation = self._gemm(y_act, "final_layer.adaLN_modulation.1", (2 * dim, dim))
        shift, scale = g.node("Split", [modulation, g.ints(dim, dim)], outputs=2, axis=-1)
        x = modulate(g, layer_norm(g, None, x, "", dim, 1e-6), shift, scale)
        return self._gemm(x, "final_layer.linear", (config.ldim, dim))

    def _gemm(self, x: str, layer: str, shape: tuple[int, int]) -> str:
        """A Gemm of the head's `layer` (its weights written once, shared by every call)."""
        name = f"{HEAD}.{layer}"
        if name not in self._layers:
            self._layers[name] = Dense.of(self.g, self.ck, name, shape, True, gemm=True)
        return self._layers[name](x)


def decode(head: FlowHead, noise: str, steps: int) -> str:
    """The next latent from `noise` (1, ldim), by the config's flow type in `steps` steps."""
    g, kind = head.g, head.config.flow_type
    if kind == "drifting":
        return head(noise, [])
    if kind == "pointwise":
        return g.node("Add", [noise, head(noise, [])])
    current = noise
    for i in range(steps):
        times = [i / steps, (i + 1) / steps] if kind == "lsd" else [i / steps]
        flow = head(current, times)
        current = g.node("Add", [current, g.node("Div", [flow, g.const(float(steps))])])
    return current
