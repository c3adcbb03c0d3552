"""`--unload-after`: a model unused that long is unloaded when the engine is idle, the next request
loads it again, and a request in the engine's care (a stream waiting for its next text) is
never cut by an unload. The real server in this process, on a tiny random model."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
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
BUILD_PID = re.compile(r"The graph build runs in a separate process \(pid (\d+)\)")


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


def test_a_model_whose_graphs_are_being_built_is_not_unloaded(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`--runtime onnx` with torch installed and nothing cached: torch serves while a child
    builds the graphs (issue 64, item 13). The child is frozen (SIGSTOP: a slow board's build)
    for 5 times `--unload-after`: the idle model stays loaded and its build is not killed;
    once the child goes on, the model switches to the graphs (and, idle, may then go)."""
    caplog.set_level(logging.INFO)
    args = model_args(slim_model, {"a": voices["a"]}, "--unload-after", UNLOAD_AFTER)
    args += ["--runtime", "onnx", "--quantize", "off", "--data-dir", str(tmp_path / "data")]

    async def scenario() -> None:
        async with running_server(args) as server:
            found = None
            deadline = time.monotonic() + 60
            while found is None and time.monotonic() < deadline:
                found = BUILD_PID.search(caplog.text)
                await asyncio.sleep(0.01)
            assert found, caplog.text
            pid = int(found.group(1))
            os.kill(pid, signal.SIGSTOP)
            try:
                await asyncio.sleep(3.0)  # 5 times --unload-after, the engine idle
                loaded = server.engine.models.loaded()
                alive = Path(f"/proc/{pid}").exists()
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            assert loaded == ["en"] and alive, (loaded, alive)
            while "now runs on ONNX Runtime" not in caplog.text:  # then it may be unloaded
                assert time.monotonic() < deadline + 60, caplog.text
                await asyncio.sleep(0.1)

    asyncio.run(scenario())
    assert caplog.text.count("Loaded model") == 1, caplog.text  # torch's load, never again
