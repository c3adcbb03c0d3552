"""The int8 graphs' quality gate (`onnx.int8_gate`): int8 that drifts past the bound on this host
is refused where it is made, and the model serves its fp32 graphs, saying why in the log and
in the studio's model row.

To force a drift past the bound on any CPU, the int8 weights' scales are made 1.5 times too
large after ONNX Runtime's quantiser wrote them (`overscale`, in process), and as its
`quantize_data` gives them to the graph builder (`graph_build.int8`) in the server's build child,
through a `sitecustomize` on its path (the one fake here: no real quantiser on a real CPU is
known to drift so far with the u8u8 scheme).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shutil
from pathlib import Path
from urllib.request import urlopen

import pytest

from testkit.model_factory import TinyModel
from testkit.support import ServerProcess, synthesize
from tests.conftest import model_args
from tests.studio_support import has_chromium, page_unchecked, status_model_row
from wyoming_pocket_tts.engine.onnx import cache, int8_gate, quantize
from wyoming_pocket_tts.engine.onnx.graphs import REFUSED, Graphs
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(300)

OVERSCALE = """
from pathlib import Path
import onnx
from wyoming_pocket_tts.engine.onnx import quantize

made = quantize.quantized_graph

def overscaled(path, target):
    made(path, target)
    model = onnx.load(str(target))
    for tensor in model.graph.initializer:
        if tensor.name.endswith("_scale") and tensor.data_type == onnx.TensorProto.FLOAT:
            values = onnx.numpy_helper.to_array(tensor) * 1.5
            tensor.CopyFrom(onnx.numpy_helper.from_array(values, tensor.name))
    onnx.save(model, str(target))

quantize.quantized_graph = overscaled
"""
"""Makes every int8 graph ONNX Runtime's quantiser writes have weight scales 1.5 times too large."""

OVERSCALE_BUILT = """
from onnxruntime.quantization import quant_utils

quantized_data = quant_utils.quantize_data

def overscaled_data(*args, **kwargs):
    zero_point, scale, data = quantized_data(*args, **kwargs)
    return zero_point, scale * 1.5, data

quant_utils.quantize_data = overscaled_data
"""
"""Makes every weight the graph builder writes in int8 have a scale 1.5 times too large (the
quantiser bound `quantize_data` by name before this runs, so it is not overscaled twice)."""


def overscale(folder: Path) -> None:
    """The int8 graphs in `folder` with weight scales 1.5 times too large (`OVERSCALE`)."""
    space: dict[str, object] = {}
    exec(compile(OVERSCALE, "overscale", "exec"), space)
    made = space["made"]
    try:
        quantize.quantized_graph = space["overscaled"]  # type: ignore[assignment]
        quantize.with_int8(Graphs.read(folder))
    finally:
        quantize.quantized_graph = made  # type: ignore[assignment]


def test_the_int8_graphs_hold_the_gate_here(graphs: Path) -> None:
    """The u8u8 graphs on this host's kernels: within the bound, and int8 for real (moved)."""
    drift = int8_gate.measure(Graphs.read(graphs))
    assert 1e-5 < drift.latent <= int8_gate.BOUND, drift
    assert drift.audio <= int8_gate.BOUND, drift
    assert drift.held


def test_int8_past_the_bound_is_refused_and_fp32_serves(
    graphs: Path, endless_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Overscaled int8: the gate removes it and writes why; the folder is not quantised again
    (`prepare_int8`), `needs_export` asks for nothing, and the model loads its fp32 graphs with
    a warning and the reason (`LeanModel.int8_refused`)."""
    folder = tmp_path / "graphs"
    shutil.copytree(graphs, folder)
    for path in Graphs.read(folder).files(True):
        path.unlink()
    overscale(folder)
    exported = Graphs.read(folder)
    assert exported.has_int8
    drift = int8_gate.check(exported)
    assert not drift.held and drift.latent > int8_gate.BOUND, drift
    assert not exported.has_int8
    reason = (folder / REFUSED).read_text()
    assert "int8 refused on this CPU" in reason and f"{drift.latent:.4f}" in reason

    calls: list[Graphs] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(quantize, "with_int8", calls.append)
        cache.prepare_int8(folder)
    assert not calls  # the refusal is remembered: not made again at every start
    settings = ModelSettings(model=None, config=str(endless_model.config_path), runtime="onnx")
    data = tmp_path / "data"
    shutil.copytree(folder, cache.graph_folder(data, settings))
    assert not cache.needs_export(settings, data, True)
    with caplog.at_level(logging.WARNING, logger=cache.__name__):
        model = cache.lean_model(settings, folder, True, 1)
    assert model is not None and not model.int8
    assert model.int8_refused is not None and "fp32 serves" in model.int8_refused
    assert "int8 refused on this CPU" in caplog.text

    assert cache.forget_failures(data) == [cache.graph_folder(data, settings)]
    assert cache.needs_export(settings, data, True)  # --retry-graphs measures int8 again


def test_a_server_whose_int8_is_refused_serves_fp32_graphs_and_says_why(
    slim_model: TinyModel,
    voices: dict[str, Path],
    graphs_fp32: tuple[Path, ModelSettings],
    tmp_path: Path,
) -> None:
    """Through the real server (`--runtime onnx --quantize on`, fp32 graphs cached, so its
    child only builds the int8 ones): the overscaled int8 is refused in the child, the model
    switches to its fp32 graphs, the log and the studio's model row (JSON and the page) say
    why; a reply speaks; the next start does not build int8 again and says it again."""
    data, settings = graphs_fp32
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(OVERSCALE_BUILT)
    env = {"PYTHONPATH": str(site)}
    args = [*model_args(slim_model, {"a": voices["a"]}), "--runtime", "onnx"]
    args += ["--quantize", "on", "--data-dir", str(data), "--http-port", "0"]
    prelude = "from wyoming_pocket_tts.engine.onnx import background\nbackground.POLL = 0.5"
    with ServerProcess(args, tmp_path / "first.log", env, prelude=prelude) as server:
        server.wait_for_log("now runs on ONNX Runtime", timeout=240)
        base = _studio(server.log)
        with urlopen(base + "studio/api/status", timeout=30) as answer:
            (model,) = json.loads(answer.read())["models"]
        reply = asyncio.run(synthesize(server.port, "Lights on.", "a"))
        row = asyncio.run(status_model_row(base, "int8 refused")) if has_chromium() else None
        assert server.stop() == 0
    log = server.log
    assert "int8 refused on this CPU" in log and "(onnx fp32)" in log, log
    assert model["runtime"] == "onnx" and model["quantized"] is False, model
    assert "int8 refused on this CPU" in (model["int8_refused"] or ""), model
    assert not reply.errors and reply.audio
    assert (cache.graph_folder(data, settings) / REFUSED).is_file()

    with ServerProcess(args, tmp_path / "again.log", env) as server:
        server.wait_for_log("Ready")
        assert server.stop() == 0
    assert "int8 refused on this CPU" in server.log, server.log
    assert "Built the graphs" not in server.log, server.log
    if row is None:
        page_unchecked("the studio's model row")
    assert "fp32: int8 refused on this CPU" in row, row


@pytest.fixture
def graphs_fp32(slim_model: TinyModel, tmp_path: Path) -> tuple[Path, ModelSettings]:
    """A data folder holding the slim model's fp32 graphs only, and their settings."""
    data = tmp_path / "data"
    settings = ModelSettings(model=None, config=str(slim_model.config_path), runtime="onnx")
    folder = cache.graph_folder(data, settings)
    assert not cache.prepare_graphs(slim_model.load(), folder, False).has_int8
    return data, settings


def _studio(log: str) -> str:
    http = re.search(r"HTTP API on http://[^:]+:(\d+)", log)
    assert http, log
    return f"http://127.0.0.1:{http.group(1)}/"
