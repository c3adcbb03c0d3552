"""`--retry-graphs` (add-on option `retry_graphs`): a graph export that failed before is
forgotten at start, so `--runtime onnx|auto` exports again; without it the failure is kept.
The real server in this process; the failure is written where and as the server writes it
(`runtime.remember_failure`), since a real failed export takes tens of seconds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from testkit.model_factory import TinyModel
from testkit.support import running_server
from tests.conftest import model_args
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.onnx.cache import FAILED, graph_folder, remember_failure


@pytest.mark.parametrize("retry", [True, False])
def test_a_remembered_export_failure_is_forgotten_only_when_asked(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path, retry: bool
) -> None:
    data = tmp_path / "data"
    args = model_args(tiny_model, {"a": voices["a"]}, "--data-dir", str(data))
    args += ["--retry-graphs"] if retry else []
    folder = graph_folder(data, parse_settings(args).engine.default_model)
    remember_failure(folder, RuntimeError("the export ran out of memory"))
    assert (folder / FAILED).is_file()

    async def start() -> None:
        async with running_server(args):
            pass

    asyncio.run(start())
    assert (folder / FAILED).is_file() is not retry
