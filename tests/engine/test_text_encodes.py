"""Text is tokenised few times on its way to the graphs (issue 61): a one-sentence request,
spoken by the real server on the graphs, encodes its piece at most `MOST_ENCODES` times (0.8.0:
8 — the engine's cut, pocket-tts's cut again inside the loop, each with two fixed strings, a
size check and the prompt's own).

The server runs in this process, so that the tokenizer's calls can be counted; the first
request warms the voice, the second is counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.model_factory import TinyModel
from testkit.support import running_server, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.engine.onnx import cache as runtime
from wyoming_pocket_tts.engine.onnx.text_prompt import Tokenizer
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(300)

MOST_ENCODES = 3
TEXT = "Turn on the kitchen lights."


@pytest.fixture
def encodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts `Tokenizer.encode` was called with, in this process, from now on."""
    calls: list[str] = []
    original = Tokenizer.encode

    def counted(self: Tokenizer, text: str) -> Any:
        calls.append(text)
        return original(self, text)

    monkeypatch.setattr(Tokenizer, "encode", counted)
    yield calls


def test_a_piece_is_encoded_at_most_three_times_on_the_graphs(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path, encodes: list[str]
) -> None:
    data = tmp_path / "data"
    settings = ModelSettings(model=None, config=str(slim_model.config_path), runtime="onnx")
    runtime.prepare_graphs(slim_model.load(), runtime.graph_folder(data, settings), False)
    args = [*model_args(slim_model, {"a": voices["a"]}), "--runtime", "onnx", "--quantize", "off"]
    args += ["--data-dir", str(data)]

    async def scenario() -> list[str]:
        async with running_server(args) as server:
            port = server.port or 0
            assert not (await synthesize(port, "Good morning.")).errors  # warms the voice
            encodes.clear()
            reply = await synthesize(port, TEXT)
            assert not reply.errors and reply.audio
            return list(encodes)

    counted = asyncio.run(scenario())
    assert counted, "the graphs' tokenizer was not used: not served on the graphs"
    assert len(counted) <= MOST_ENCODES, counted
