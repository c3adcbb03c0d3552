"""ONNX Runtime's int8 of the exported graphs, made from their files without torch.

`with_int8` runs in the export's child after the fp32 export, in a process without torch
(`graph_build.child` replaces itself for it), or alone where only the int8 graphs are missing.
ONNX Runtime's `quantize_dynamic` copies the whole model twice to refresh its shape
information (`ONNXQuantizer`: a deep copy saved and loaded again): at `english` shapes the LM's
quantisation peaked at 1,195 MiB. `_lean_shape_inference` infers the same shapes from the graph
without its weights and writes them into the model itself: 650 MiB (2026-12-02, 2-vCPU host).
ONNX Runtime's block-wise `MatMulNBits` (8-bit and 4-bit) was measured against this one scale
per tensor and not kept: slower and barely finer here (docs/performance.md, "Block-wise int8").

The weights are unsigned 8-bit, as the activations (u8u8): ONNX Runtime's u8u8 kernels sum
exact products on every CPU. With signed weights (u8s8, 0.8's), CPUs without VNNI (AVX2 only,
or AVX-512 without VNNI) multiply with `vpmaddubsw`, whose int16 sums saturate: the same graphs
moved the LM's latent 0.044 of its RMS there against 0.0036 with VNNI (issue 60; u8u8: 0.0040 on
both). `int8_gate` measures the result where it is made.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .graphs import Graphs

_LOGGER = logging.getLogger(__name__)

_SMALL = 1 << 16
"""Initializers up to this many bytes keep their values in the weightless copy (shapes given
as constants, e.g. a Reshape's); larger ones are weights, given by type and shape only."""
_MODULATION = ("flow_net", "adaLN_modulation")
"""In the namespace of a flow-head modulation layer (pocket-tts's `SimpleMLPAdaLN`)."""


def with_int8(graphs: Graphs) -> None:
    """Write the int8 graphs beside the fp32 ones (`quantized_graph`)."""
    for fp32, int8 in zip(graphs.files(False), graphs.files(True), strict=True):
        quantized_graph(fp32, int8)


def quantized_graph(path: Path, target: Path) -> None:
    """ONNX Runtime's dynamic int8 (u8u8, one scale per tensor) of the layers the server's int8
    quantises (the linear layers of the LM's and Mimi's decoder transformers) and of the LM's
    flow head's adaLN modulations (`flow_modulations`), written to `target`. Quantising every
    MatMul with a constant weight (the whole flow head and input projections too) moved the
    LM's next latent by 0.29 of its RMS, against 0.008 for the transformer layers alone and for
    torch's int8 (`lsd` shapes); at `english` shapes the whole flow head moved it by 0.025 (one
    scale per output channel: 0.024), the modulations alone by 0.0145, against torch int8's
    0.018 (docs/performance.md, "The flow head's modulations in int8")."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(path), load_external_data=False).graph
    chosen = transformer_layers(graph) + flow_modulations(graph)
    del graph  # the weights too, where they are in the file (graphs exported before 0.7)
    with _lean_quantizer():
        quantize_dynamic(path, target, nodes_to_quantize=chosen, weight_type=QuantType.QUInt8)


def int8_layer(op: str, namespace: str) -> bool:
    """Whether a node of type `op` and `namespace` (node metadata, as `torch.onnx.export` and
    `graph_build` write it) is one that int8 takes: a linear layer of a transformer (the LM's,
    Mimi's decoder's), or an adaLN modulation of the LM's flow head (a `Gemm`)."""
    if op == "MatMul":
        return "transformer." in namespace and "Linear" in namespace
    return op == "Gemm" and all(part in namespace for part in _MODULATION)


def transformer_layers(graph: Any) -> list[str]:
    """The names of `graph`'s MatMuls that are linear layers of a transformer (the LM's, Mimi's
    decoder's): the nodes `quantized_graph` quantises."""
    return [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and int8_layer(node.op_type, _namespace(node))
    ]


def flow_modulations(graph: Any) -> list[str]:
    """The names the adaLN modulation layers of `graph`'s flow head (`flow_net`; over half of its
    weights at `english` shapes) take where `quantize_dynamic` quantises: they export as `Gemm`,
    which it rewrites first as a MatMul named after it and an Add."""
    return [
        f"{node.name}_MatMul"
        for node in graph.node
        if node.op_type == "Gemm" and int8_layer(node.op_type, _namespace(node))
    ]


def _namespace(node: Any) -> str:
    return " ".join(prop.value for prop in node.metadata_props if prop.key == "namespace")


@contextlib.contextmanager
def _lean_quantizer() -> Iterator[None]:
    """`quantize_dynamic` with `_lean_shape_inference` in place of its copy-and-reload; as it
    is where this onnxruntime has no such function."""
    from onnxruntime.quantization import onnx_quantizer

    name = "save_and_reload_model_with_shape_infer"
    original = getattr(onnx_quantizer, name, None)
    if original is None:
        _LOGGER.debug("onnxruntime's quantiser has no %s: quantising as it is", name)
        yield
        return
    setattr(onnx_quantizer, name, _lean_shape_inference)
    try:
        yield
    finally:
        setattr(onnx_quantizer, name, original)


def _lean_shape_inference(model: Any) -> Any:
    """`model` itself, with the shapes ONNX's inference finds for a copy without its weights
    (what ONNX Runtime's `save_and_reload_model_with_shape_infer` gives from a full copy)."""
    import onnx
    from onnxruntime.quantization.quant_utils import add_infer_metadata

    graph = model.graph
    skeleton = onnx.helper.make_graph(
        list(graph.node),
        graph.name,
        list(graph.input),
        list(graph.output),
        [tensor for tensor in graph.initializer if _size(tensor) <= _SMALL],
        value_info=list(graph.value_info),
    )
    skeleton.input.extend(
        onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
        for tensor in graph.initializer
        if _size(tensor) > _SMALL
    )
    weightless = onnx.helper.make_model(
        skeleton, opset_imports=list(model.opset_import), ir_version=model.ir_version
    )
    weightless.functions.extend(model.functions)
    inferred = onnx.shape_inference.infer_shapes(weightless)
    del graph.value_info[:]
    graph.value_info.extend(inferred.graph.value_info)
    add_infer_metadata(model)
    return model


def _size(tensor: Any) -> int:
    count = 1
    for dim in tensor.dims:
        count *= dim
    return count * 4
