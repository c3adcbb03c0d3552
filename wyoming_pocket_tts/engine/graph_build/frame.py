"""A frame's latent to the flow LM's input (`frame.onnx`, `onnx.export.FrameIn`'s interface),
and the text conditioner's table (`text_embeddings.npy`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .checkpoint import Checkpoint
from .config import ModelConfig
from .layers import linear
from .ops import FLOAT, Graph, write_graph


def build_frame(ck: Checkpoint, config: ModelConfig, path: Path) -> None:
    """`latent` (1, 1, ldim; NaN before the first frame: `bos_emb`) to `embeddings` (1, 1, dim)."""
    write_graph(path, "frame_in", lambda g: _frame(g, ck, config))


def _frame(g: Graph, ck: Checkpoint, config: ModelConfig) -> None:
    latent = g.input("latent", FLOAT, [1, 1, config.ldim])
    bos = g.weight(ck.tensor("flow_lm.bos_emb", (config.ldim,)), "flow_lm.bos_emb")
    start = g.node("Where", [g.node("IsNaN", [latent]), bos, latent])
    embedded = linear(g, ck, start, "flow_lm.input_linear", (config.flow.d_model, config.ldim))
    g.output(embedded, "embeddings", FLOAT, [1, 1, config.flow.d_model])


def text_table(ck: Checkpoint, config: ModelConfig) -> np.ndarray:
    """`LUTConditioner` on every token id (n_bins + 1, dim): its table, projected if low-rank."""
    width = config.table_rank or config.table_dim
    table = ck.tensor("flow_lm.conditioner.embed.weight", (config.n_bins + 1, width))
    if config.table_rank is None:
        return table
    proj = ck.tensor("flow_lm.conditioner.proj.weight", (config.table_dim, config.table_rank))
    return np.asarray(table @ proj.T, np.float32)
