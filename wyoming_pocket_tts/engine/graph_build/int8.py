"""The int8 graphs' linear layers, written as the graph is built: the nodes and weights ONNX
Runtime's `quantize_dynamic` makes of the fp32 graph's (`onnx.quantize.quantized_graph`), a
weight at a time from the checkpoint.

Made by ONNX Runtime's quantiser from the built fp32 files, the `english` int8 graphs took 2.5 s
and 736 MiB at their peak (it loads each graph whole and copies it; 2026-12-05, 2-vCPU AMD EPYC
without VNNI), where building the fp32 graphs peaks at 94 MiB. The layers are the ones
`onnx.quantize.int8_layer` takes; the weights unsigned 8-bit with one scale per tensor, by ONNX
Runtime's own `quantize_data`; each input quantised once by `DynamicQuantizeLinear` for every
layer that reads it; and, as the quantiser rewrites them, every `Gemm` of an int8 graph a MatMul
and an Add. The graphs are the quantiser's to the bit: the same weights, the same kinds of node,
the same outputs (tests/engine/test_graph_build.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from onnx import TensorProto

from .ops import Graph


class Int8Weight(NamedTuple):
    """A weight's initializers in the graph: its unsigned bytes, scale and zero point."""

    quantized: str
    scale: str
    zero_point: str


def int8_weight(g: Graph, weight: np.ndarray, name: str) -> Int8Weight:
    """`weight` (in, out) written to `g` as `quantize_dynamic` writes a MatMul's weight."""
    from onnxruntime.quantization.quant_utils import quantize_data

    zero_point, scale, data = quantize_data(weight.reshape(-1), TensorProto.UINT8, False)
    return Int8Weight(
        g.weight(np.asarray(data, np.uint8).reshape(weight.shape), f"{name}_quantized"),
        g.weight(np.asarray(scale, np.float32).reshape(()), f"{name}_scale"),
        g.weight(np.asarray(zero_point, np.uint8).reshape(()), f"{name}_zero_point"),
    )


def int8_matmul(g: Graph, x: str, weight: Int8Weight) -> str:
    """`x @ weight` in int8: `x` quantised (once per input), the integer product, scaled back."""
    quantized, scale, zero_point = g.shared(
        ("DynamicQuantizeLinear", x), lambda: g.node("DynamicQuantizeLinear", [x], outputs=3)
    )
    product = g.node("MatMulInteger", [quantized, weight.quantized, zero_point, weight.zero_point])
    scales = g.node("Mul", [scale, weight.scale])
    return g.node("Mul", [g.node("Cast", [product], to=TensorProto.FLOAT), scales])
