"""`--unload-after`: a model unused that long is unloaded when the engine is idle, the next request
loads it again, and a request in the engine's care (a stream waiting for its next text) is
never cut by an unload. The real server in this process, on a tiny random model."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import SynthesizeChunk, SynthesizeStart, SynthesizeStop

from testkit.model_factory import TinyModel
from testkit.support import Reply, read_until, running_server, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.server import TtsServer

LOADING_LOGGER = "wyoming_pocket_tts.engine.model.loading"
"""It logs "Loaded model" once for each model the server loads (reloads count again)."""
UNLOAD_AFTER = "0.01"
"""Minutes (0.6 s): short, so the test does not wait long for an unload."""


async def _until_unloaded(server: TtsServer, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while server.engine.models.loaded():
        assert time.monotonic() < deadline, "the unused model was never unloaded"
        await asyncio.sleep(0.05)


def test_an_unused_model_is_unloaded_and_the_next_request_loads_it(
    tiny_model: TinyModel, voices: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOADING_LOGGER)

    async def scenario() -> tuple[Reply, Reply, int, list[str]]:
        args = model_args(tiny_model, {"a": voices["a"]}, "--unload-after", UNLOAD_AFTER)
        async with running_server(args) as server:
            port = server.port or 0
            first = await synthesize(port, "Before the unload.")
            await _until_unloaded(server)
            second = await synthesize(port, "After the unload.")
            return first, second, caplog.text.count("Loaded model"), server.engine.models.loaded()

    first, second, loads, loaded = asyncio.run(scenario())
    assert first.audio and not first.errors
    assert second.audio and not second.errors, second.errors
    assert loads == 2 and loaded == ["en"]


def test_a_stream_waiting_for_text_keeps_its_model(
    tiny_model: TinyModel, voices: dict[str, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """A stream's pieces come seconds apart (an LLM thinking): between them the engine has
    nothing to do, yet the request is in its care, so its model stays."""
    caplog.set_level(logging.INFO, logger=LOADING_LOGGER)

    async def scenario() -> tuple[Reply, list[int]]:
        args = model_args(tiny_model, {"a": voices["a"]}, "--unload-after", UNLOAD_AFTER)
        async with running_server(args) as server:
            loads = [caplog.text.count("Loaded model")]
            async with AsyncTcpClient("127.0.0.1", server.port or 0) as client:
                await client.write_event(SynthesizeStart().event())
                for piece in ("First sentence. ", "Second sentence. ", "Third sentence."):
                    await client.write_event(SynthesizeChunk(text=piece).event())
                    await asyncio.sleep(1.5)  # 2.5 times --unload-after, spent in care
                    loads.append(caplog.text.count("Loaded model"))
                await client.write_event(SynthesizeStop().event())
                reply = await read_until(client, "synthesize-stopped")
            loads.append(caplog.text.count("Loaded model"))
            await _until_unloaded(server)  # once it ended, the model may go
            return reply, loads

    reply, loads = asyncio.run(scenario())
    assert not reply.errors and reply.audio
    assert loads == [1, 1, 1, 1, 1], "the model was unloaded and loaded again mid-stream"
