"""A small helper to write an ONNX graph node by node, with its weights streamed to a file.

`Graph` names every node and value, keeps small constants inline and writes each weight to
`<graph>.onnx.data` as it is given (ONNX's external data), so a graph never holds all its
weights in memory. A node may carry a `namespace` (node metadata, as `torch.onnx.export`
writes it): `onnx.quantize` selects the layers it quantises by it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 18
"""As `onnx.export`'s graphs."""
IR_VERSION = 10
_INLINE = 1024
"""Constants up to this many bytes are kept in the graph; larger ones go to the data file."""

LINEAR = "torch.nn.modules.linear.Linear"
"""In the namespace of a linear layer (`onnx.quantize.transformer_layers` looks for "Linear")."""


class Graph:
    """One graph being written to `path` (its weights to `path` + `.data` as they come); an
    `int8` one takes its linear layers in int8 (`layers.Dense`)."""

    def __init__(self, path: Path, name: str, int8: bool = False) -> None:
        self.path = path
        self.name = name
        self.int8 = int8
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self._data_name = path.name + ".data"
        self._data = (path.parent / self._data_name).open("wb")
        self._count = 0
        self._constants: dict[tuple[str, bytes, tuple[int, ...]], str] = {}
        self._shared: dict[tuple[str, ...], Any] = {}

    def _unique(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"

    def input(self, name: str, dtype: int, shape: Sequence[int | str]) -> str:
        self.inputs.append(helper.make_tensor_value_info(name, dtype, list(shape)))
        return name

    def output(self, value: str, name: str, dtype: int, shape: Sequence[int | str]) -> None:
        """Make `value` the graph output `name` (renamed through an Identity if it differs)."""
        if value != name:
            self.nodes.append(helper.make_node("Identity", [value], [name], name=f"out_{name}"))
        self.outputs.append(helper.make_tensor_value_info(name, dtype, list(shape)))

    def weight(self, array: np.ndarray, name: str) -> str:
        """An initializer named `name` holding `array` (written to the data file if large)."""
        array = np.asarray(array, order="C")  # (ascontiguousarray makes a scalar 1-D)
        if array.nbytes <= _INLINE:
            tensor = numpy_helper.from_array(array, name)
        else:
            tensor = TensorProto(name=name, dims=array.shape)
            tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
            offset = self._data.tell()
            padding = -offset % 4096  # aligned, so ONNX Runtime may map it
            self._data.write(b"\0" * padding)
            offset += padding
            array.tofile(self._data)
            tensor.data_location = TensorProto.EXTERNAL
            for key, value in (
                ("location", self._data_name),
                ("offset", str(offset)),
                ("length", str(array.nbytes)),
            ):
                entry = tensor.external_data.add()
                entry.key, entry.value = key, value
        self.initializers.append(tensor)
        return name

    def const(self, value: Any, dtype: Any = np.float32) -> str:
        """A small constant (shared between nodes that use the same value)."""
        array = np.asarray(value, dtype=dtype)
        key = (array.dtype.str, array.tobytes(), array.shape)
        if key not in self._constants:
            self._constants[key] = self.weight(array, self._unique("const"))
        return self._constants[key]

    def shared(self, key: tuple[str, ...], make: Callable[[], Any]) -> Any:
        """What `make` adds to the graph, added once for every use with the same `key`."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    def ints(self, *values: int) -> str:
        """A 1-D int64 constant (shapes, axes, indices)."""
        return self.const(list(values), np.int64)

    def node(
        self,
        op: str,
        inputs: Sequence[str],
        outputs: int = 1,
        namespace: str | None = None,
        **attributes: Any,
    ) -> Any:
        """Add a node; its output name (or names, for `outputs` > 1)."""
        name = self._unique(op.lower())
        names = [f"{name}_out{i}" if outputs > 1 else name for i in range(outputs)]
        node = helper.make_node(op, list(inputs), names, name=name, **attributes)
        if namespace is not None:
            prop = node.metadata_props.add()
            prop.key, prop.value = "namespace", namespace
        self.nodes.append(node)
        return names if outputs > 1 else names[0]

    def save(self) -> None:
        """Write the graph (its weights are in the data file already) and close the data file."""
        self._data.close()
        graph = helper.make_graph(
            self.nodes, self.name, self.inputs, self.outputs, self.initializers
        )
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            ir_version=IR_VERSION,
            producer_name="wyoming-pocket-tts",
        )
        onnx.save_model(model, str(self.path))

    def close(self) -> None:
        """Close the data file (a build that failed)."""
        self._data.close()


def write_graph(path: Path, name: str, body: Callable[[Graph], None], int8: bool = False) -> None:
    """Write the graph `body` makes to `path`, its weights beside it (the data file is closed
    either way)."""
    g = Graph(path, name, int8)
    try:
        body(g)
    finally:
        g.close()
    g.save()


FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
