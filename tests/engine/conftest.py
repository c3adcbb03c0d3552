"""Fixtures of the tests of the graphs' own loop (`test_onnx_loop`, `test_onnx_request_cache`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pocket_tts import export_model_state

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.onnx import cache as runtime


@pytest.fixture(scope="module")
def graphs(endless_model: TinyModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The endless model's graphs, fp32 and int8, with the loop's files."""
    folder = tmp_path_factory.mktemp("loop-graphs") / "graphs"
    assert runtime.prepare_graphs(endless_model.load(), folder, True).has_int8
    return folder


@pytest.fixture(scope="module")
def voice_file(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Voice a's state as pocket-tts saves it (`export_model_state`)."""
    path = tmp_path_factory.mktemp("loop-voice") / "a.safetensors"
    export_model_state(endless_model.load().get_state_for_audio_prompt(voices["a"]), path)
    return path
