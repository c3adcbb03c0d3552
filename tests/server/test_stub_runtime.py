"""A third runtime serves through the real server: the engine speaks to a runtime only through
`engine.runtime.Runtime`.

`SilentRuntime` is this test's own runtime, neither torch nor the graphs: it cuts a sentence at
spaces, speaks a fixed length of silence per word and makes empty voice states. Its kind is a
kind of its own (`StubKind`: a Python enum cannot gain a member at run time, so it gives what a
`RuntimeKind` member gives). It is loaded where the server loads a model
(`serving.pool.load_tuned_model`, patched: the one fake, since a real runtime room needs a
real model), and the request goes over real TCP through Wyoming and the HTTP API.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from enum import Enum
from pathlib import Path

import aiohttp
import numpy as np
import pytest

from testkit.model_factory import TinyModel
from testkit.support import running_server, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.engine.runtime import Piece, State
from wyoming_pocket_tts.engine.serving import pool as models_module
from wyoming_pocket_tts.engine.tuning.timing import Speed
from wyoming_pocket_tts.engine.tuning.tuned import Tuning
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.timeout(120)

WORD_SAMPLES = 2400
"""Samples of silence per word (0.1 s at 24 kHz)."""


class StubKind(str, Enum):
    """A runtime kind beside `RuntimeKind`'s, with what each member gives."""

    STUB = "stub"

    @property
    def name_in_logs(self) -> str:
        return "the stub"

    @property
    def label(self) -> str:
        return "stub "

    @property
    def without_torch(self) -> bool:
        return True


class SilentRuntime:
    """Silence for every word; every call is recorded."""

    kind = StubKind.STUB
    sample_rate = 24000
    int8 = False
    can_clone = True
    voices_in_child = False

    def __init__(self) -> None:
        self.spoken: list[str] = []
        self.voices: list[str] = []

    def pieces(self, sentence: str, max_tokens: int) -> list[Piece]:
        words = sentence.split()
        if not words:
            raise ValueError("nothing to say")
        return [(None, sentence)]  # counted by `token_count`

    def token_count(self, text: str) -> int:
        return len(text.split())

    def stream(self, state: State, piece: str, stop: threading.Event) -> Iterator[np.ndarray]:
        self.spoken.append(piece)
        for _ in piece.split():
            if stop.is_set():
                return
            yield np.zeros(WORD_SAMPLES, np.float32)

    def empty_state(self) -> State:
        return {}

    def voice_state(self, source: str | Path, truncate: bool, name: str) -> State:
        self.voices.append(name)
        return {"voice": {"name": np.frombuffer(name.encode(), np.uint8)}}

    def read_state(self, path: Path) -> State:
        raise AssertionError("the stub saves no states")


def test_a_runtime_of_its_own_kind_serves_silence_through_wyoming_and_http(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Its own data folder: the stub's states, saved under the tiny model's key, must not reach
    the other tests' servers."""
    runtime = SilentRuntime()

    def load(settings: ModelSettings, data_dir: Path | None) -> tuple[SilentRuntime, Tuning]:
        resolved = dataclasses.replace(settings, quantize=False, runtime=StubKind.STUB)  # type: ignore[arg-type]
        return runtime, Tuning(resolved, 1, Speed(0.01, 50.0), "the stub")

    monkeypatch.setattr(models_module, "load_tuned_model", load)
    text = "The kitchen lights are on. The door is locked."
    args = model_args(tiny_model, voices, "--http-port", "0", "--data-dir", str(tmp_path))

    async def scenario() -> tuple[bytes, int, bytes, dict]:
        async with running_server(args) as server:
            assert server.http is not None
            reply = await synthesize(server.port, text, "b")
            url = f"http://127.0.0.1:{server.http.port}"
            async with aiohttp.ClientSession() as session:
                body = {"model": "tts-1", "input": "Lights on now.", "voice": "a"}
                body |= {"response_format": "pcm"}
                async with session.post(f"{url}/v1/audio/speech", json=body) as answer:
                    status, pcm = answer.status, await answer.read()
                async with session.get(f"{url}/health") as answer:
                    health = await answer.json()
        return reply.audio, status, pcm, health

    audio, status, pcm, health = asyncio.run(scenario())
    assert runtime.spoken[-3:] == [
        "The kitchen lights are on.",
        "The door is locked.",
        "Lights on now.",
    ]
    assert set(runtime.voices) >= {"a", "b"}
    assert status == 200 and health["status"] == "ok"
    words = len(text.split())
    for sound, count in ((audio, words), (pcm, 3)):
        samples = np.frombuffer(sound, np.int16)
        assert samples.size >= count * WORD_SAMPLES, (samples.size, count)
        assert not samples.any(), "the stub's silence came back changed"
