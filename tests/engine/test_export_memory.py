"""What the export's memory savings must not change: the export child's lean load gives the
checkpoint's weights (`model.one_copy`), and the quantiser without its full copy of the model
gives ONNX Runtime's own int8 graph (`onnx.quantize`). Real pocket-tts, onnx and onnxruntime on
the tiny model; the memory itself is measured at full size (docs/performance.md, Export), not
here."""

from __future__ import annotations

import contextlib
from pathlib import Path

import onnx
import pytest
import torch
from onnx import numpy_helper

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.model.loading import plain_model
from wyoming_pocket_tts.engine.model.one_copy import one_copy_of_weights
from wyoming_pocket_tts.engine.onnx import quantize
from wyoming_pocket_tts.engine.onnx.cache import prepare_graphs
from wyoming_pocket_tts.settings import ModelSettings


def test_the_export_load_gives_the_checkpoints_weights(tiny_model: TinyModel) -> None:
    settings = ModelSettings(config=str(tiny_model.config_path))
    with one_copy_of_weights():
        lean = plain_model(settings, False).state_dict()
    usual = plain_model(settings, False).state_dict()
    assert list(lean) == list(usual)
    different = [k for k in usual if not torch.equal(lean[k], usual[k])]
    assert not different, different[:5]
    assert all(lean[k].dtype == usual[k].dtype for k in usual)


@pytest.fixture(scope="module")
def fp32_graphs(tiny_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("graphs")
    settings = ModelSettings(config=str(tiny_model.config_path))
    prepare_graphs(plain_model(settings, False), folder, False)
    return folder


@pytest.mark.parametrize("graph", ["lm.onnx", "mimi.onnx"])
def test_the_lean_quantiser_gives_onnx_runtimes_int8_graph(
    fp32_graphs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, graph: str
) -> None:
    """The same nodes, weights and shapes as `quantize_dynamic` gives on its own."""
    source = fp32_graphs / graph
    assert (fp32_graphs / f"{graph}.data").is_file()  # the weights beside the graph
    quantize.quantized_graph(source, tmp_path / "lean.onnx")
    monkeypatch.setattr(quantize, "_lean_quantizer", contextlib.nullcontext)
    quantize.quantized_graph(source, tmp_path / "usual.onnx")
    lean, usual = (onnx.load(str(tmp_path / f"{n}.onnx")).graph for n in ("lean", "usual"))
    assert [n.SerializeToString() for n in lean.node] == [n.SerializeToString() for n in usual.node]
    assert any(n.op_type == "MatMulInteger" for n in lean.node)
    weights = {t.name: numpy_helper.to_array(t) for t in usual.initializer}
    assert {t.name for t in lean.initializer} == set(weights)
    for tensor in lean.initializer:
        array = numpy_helper.to_array(tensor)
        assert array.dtype == weights[tensor.name].dtype
        assert (array == weights[tensor.name]).all(), tensor.name
    assert [v.SerializeToString() for v in lean.value_info] == [
        v.SerializeToString() for v in usual.value_info
    ]
