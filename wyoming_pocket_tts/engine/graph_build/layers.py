"""pocket-tts's small layers as ONNX nodes, their weights read from the checkpoint by name.

Each function takes the graph, the checkpoint, the input value and the layer's name in the
checkpoint (its `state_dict` prefix), and returns the output value. Linear layers keep their
checkpoint weight transposed (a MatMul) or as is (a Gemm, on 2-D inputs); either node carries
the layer's name and class as its namespace, as `torch.onnx.export` writes it.
"""

from __future__ import annotations

import math

import numpy as np

from .checkpoint import Checkpoint
from .ops import LINEAR, Graph


def linear(
    g: Graph, ck: Checkpoint, x: str, name: str, shape: tuple[int, int], bias: bool = False
) -> str:
    """`nn.Linear` (weight `shape` = (out, in)) on an input of any rank: a MatMul."""
    weight = g.weight(ck.tensor(f"{name}.weight", shape).T, f"{name}.weight")
    y = g.node("MatMul", [x, weight], namespace=f"{name}: {LINEAR}")
    if bias:
        y = g.node("Add", [y, g.weight(ck.tensor(f"{name}.bias", shape[:1]), f"{name}.bias")])
    return y


def gemm(g: Graph, ck: Checkpoint, x: str, name: str, shape: tuple[int, int]) -> str:
    """`nn.Linear` with a bias on a 2-D input: a Gemm (as the exporter writes it, and where
    `onnx.quantize.flow_modulations` finds the flow head's modulations)."""
    weight = g.weight(ck.tensor(f"{name}.weight", shape), f"{name}.weight")
    bias = g.weight(ck.tensor(f"{name}.bias", shape[:1]), f"{name}.bias")
    return g.node("Gemm", [x, weight, bias], namespace=f"{name}: {LINEAR}", transB=1)


def layer_norm(g: Graph, ck: Checkpoint | None, x: str, name: str, dim: int, eps: float) -> str:
    """LayerNorm over the last axis (its affine weights from `name`, or none without `ck`)."""
    if ck is None:
        scale, shift = g.const(np.ones(dim)), g.const(np.zeros(dim))
    else:
        scale = g.weight(ck.tensor(f"{name}.weight", (dim,)), f"{name}.weight")
        shift = g.weight(ck.tensor(f"{name}.bias", (dim,)), f"{name}.bias")
    return g.node("LayerNormalization", [x, scale, shift], axis=-1, epsilon=eps)


def silu(g: Graph, x: str) -> str:
    return g.node("Mul", [x, g.node("Sigmoid", [x])])


def gelu_tanh(g: Graph, x: str) -> str:
    """`F.gelu(x, approximate="tanh")`: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    cube = g.node("Mul", [g.node("Mul", [x, x]), x])
    inner = g.node("Add", [x, g.node("Mul", [cube, g.const(0.044715)])])
    tanh = g.node("Tanh", [g.node("Mul", [inner, g.const(math.sqrt(2 / math.pi))])])
    half = g.node("Mul", [x, g.const(0.5)])
    return g.node("Mul", [half, g.node("Add", [tanh, g.const(1.0)])])


def modulate(g: Graph, x: str, shift: str, scale: str) -> str:
    """pocket-tts's `modulate`: x * (1 + scale) + shift."""
    return g.node("Add", [g.node("Mul", [x, g.node("Add", [scale, g.const(1.0)])]), shift])
