"""pocket-tts's small layers as ONNX nodes, their weights read from the checkpoint by name.

Each function takes the graph, the checkpoint, the input value and the layer's name in the
checkpoint (its `state_dict` prefix), and returns the output value. Linear layers keep their
checkpoint weight transposed (a MatMul) or as is (a Gemm, on 2-D inputs); either node carries
the layer's name and class as its namespace, as `torch.onnx.export` writes it (`Dense`: in an
int8 graph, the layers int8 takes are written in int8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..onnx.quantize import int8_layer
from .checkpoint import Checkpoint
from .int8 import Int8Weight, int8_matmul, int8_weight
from .ops import LINEAR, Graph


@dataclass(frozen=True)
class Dense:
    """A linear layer (`nn.Linear`) whose weights are written into the graph once, applied to
    an input by calling it. In an `int8` graph, a layer `onnx.quantize.int8_layer` takes is
    written in int8 (`int8.py`), and a `Gemm` as a MatMul and an Add, as ONNX Runtime's
    quantiser rewrites it."""

    g: Graph
    namespace: str
    weight: str | Int8Weight
    bias: str | None
    gemm: bool

    @classmethod
    def of(
        cls, g: Graph, ck: Checkpoint, name: str, shape: tuple[int, int], bias: bool,
        gemm: bool = False,
    ) -> Dense:  # fmt: skip
        """The layer `name` of the checkpoint (weight `shape` = (out, in)); a `gemm` (2-D
        inputs, with a bias) keeps its weight as is, a MatMul transposed."""
        namespace = f"{name}: {LINEAR}"
        weight = ck.tensor(f"{name}.weight", shape)
        written: str | Int8Weight
        if g.int8 and int8_layer("Gemm" if gemm else "MatMul", namespace):
            written = int8_weight(g, weight.T, f"{name}.weight")
        else:
            gemm = gemm and not g.int8
            written = g.weight(weight if gemm else weight.T, f"{name}.weight")
        biased = g.weight(ck.tensor(f"{name}.bias", shape[:1]), f"{name}.bias") if bias else None
        return cls(g, namespace, written, biased, gemm)

    def __call__(self, x: str) -> str:
        g = self.g
        if isinstance(self.weight, Int8Weight):
            y = int8_matmul(g, x, self.weight)
        elif self.gemm:
            inputs = [x, self.weight] + ([] if self.bias is None else [self.bias])
            return g.node("Gemm", inputs, namespace=self.namespace, transB=1)
        else:
            y = g.node("MatMul", [x, self.weight], namespace=self.namespace)
        return y if self.bias is None else g.node("Add", [y, self.bias])


def linear(
    g: Graph, ck: Checkpoint, x: str, name: str, shape: tuple[int, int], bias: bool = False
) -> str:
    """`nn.Linear` (weight `shape` = (out, in)) on an input of any rank: a MatMul."""
    return Dense.of(g, ck, name, shape, bias)(x)


def gemm(g: Graph, ck: Checkpoint, x: str, name: str, shape: tuple[int, int]) -> str:
    """`nn.Linear` with a bias on a 2-D input: a Gemm (as the exporter writes it, and where
    `onnx.quantize.flow_modulations` finds the flow head's modulations)."""
    return Dense.of(g, ck, name, shape, True, gemm=True)(x)


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
