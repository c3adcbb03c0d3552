"""The health check command against small in-test Wyoming servers on 127.0.0.1.

Each case runs `python -m wyoming_pocket_tts.health` as the container's HEALTHCHECK does, with a
short `--timeout`, and checks its exit code, its one line of output and that it kept to time.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from wyoming.event import Event, async_write_event
from wyoming.info import Attribution, Describe, Info, TtsProgram, TtsVoice
from wyoming.server import AsyncEventHandler

HEALTH_TIMEOUT = 1.0
"""The `--timeout` given to the health check."""
PROCESS_LIMIT = 30.0
"""Seconds a health check process may take in all (interpreter start-up included)."""

ATTRIBUTION = Attribution(name="test", url="https://example.invalid")


def tts_info(installed: bool = True) -> Info:
    voice = TtsVoice(
        name="alba",
        description="alba",
        attribution=ATTRIBUTION,
        installed=installed,
        version=None,
        languages=["en"],
    )
    program = TtsProgram(
        name="pocket-tts",
        description="test server",
        attribution=ATTRIBUTION,
        installed=installed,
        version="0.1.0",
        voices=[voice],
    )
    return Info(tts=[program])


class InfoHandler(AsyncEventHandler):
    """Answers `describe` with a fixed `info`."""

    def __init__(self, info: Info, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.info = info

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self.info.event())
        return True


class SilentHandler(AsyncEventHandler):
    """Reads everything and never answers."""

    async def handle_event(self, event: Event) -> bool:
        return True


Connected = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def serving(connected: Connected) -> AsyncIterator[str]:
    """A TCP server on 127.0.0.1:<free port>; yields its tcp:// URI."""
    server = await asyncio.start_server(connected, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        server.close()
        await server.wait_closed()


def handler(factory: Callable[..., AsyncEventHandler]) -> Connected:
    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await factory(reader, writer).run()

    return connected


async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readline()
    writer.write(b"this is not a wyoming event\n")
    await writer.drain()
    writer.close()


async def unexpected_event(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.readline()
    await async_write_event(Event(type="ping"), writer)
    writer.close()


async def start_health(uri: str, timeout: float = HEALTH_TIMEOUT) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "wyoming_pocket_tts.health",
        "--uri",
        uri,
        "--timeout",
        str(timeout),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def run_health(uri: str) -> tuple[int, str, float]:
    """(exit code, stdout, seconds) of the health check command against `uri`."""
    started = time.monotonic()
    process = await start_health(uri)
    try:
        stdout, _ = await asyncio.wait_for(process.communicate(), PROCESS_LIMIT)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        raise
    return process.returncode or 0, stdout.decode(), time.monotonic() - started


def check_against(connected: Connected) -> tuple[int, str, float]:
    async def scenario() -> tuple[int, str, float]:
        async with serving(connected) as uri:
            return await run_health(uri)

    return asyncio.run(scenario())


def test_healthy_server_exits_0() -> None:
    code, output, _ = check_against(handler(lambda r, w: InfoHandler(tts_info(), r, w)))
    assert code == 0, output
    assert output.startswith("healthy: ") and output.count("\n") == 1
    assert "pocket-tts 0.1.0 with 1 voice(s)" in output


def test_closed_port_exits_1() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # held, never listening: connections are refused
        port = sock.getsockname()[1]
        code, output, _ = asyncio.run(run_health(f"tcp://127.0.0.1:{port}"))
    assert code == 1
    assert output.startswith("unhealthy: ") and output.count("\n") == 1


def test_server_that_never_answers_exits_1_in_time() -> None:
    code, output, seconds = check_against(handler(SilentHandler))
    assert code == 1
    assert output.startswith("unhealthy: no info from") and output.count("\n") == 1
    assert seconds >= HEALTH_TIMEOUT


def test_the_timeout_also_bounds_the_wait_from_above() -> None:
    """A check with a 60 s timeout starts first; one with the 1 s timeout started after it
    must be done while the first still waits (no clock in the verdict: only which ends first)."""

    async def scenario() -> tuple[int | None, int]:
        connections = asyncio.Queue[None]()

        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections.put_nowait(None)
            await SilentHandler(reader, writer).run()

        async with serving(silent) as uri:
            patient = await start_health(uri, 60.0)
            try:
                await asyncio.wait_for(connections.get(), PROCESS_LIMIT)  # it is waiting now
                code, output, _ = await run_health(uri)
                assert code == 1 and output.startswith("unhealthy: no info"), output
                return patient.returncode, code
            finally:
                if patient.returncode is None:
                    patient.kill()
                await patient.wait()

    patient_code, _ = asyncio.run(scenario())
    assert patient_code is None, "the 1 s check waited as long as the 60 s one"


@pytest.mark.parametrize(
    "connected",
    [
        handler(lambda r, w: InfoHandler(tts_info(installed=False), r, w)),
        handler(lambda r, w: InfoHandler(Info(), r, w)),
        garbage,
        unexpected_event,
    ],
    ids=["not-installed", "no-tts", "garbage", "closed-without-info"],
)
def test_wrong_answers_exit_1(connected: Connected) -> None:
    code, output, _ = check_against(connected)
    assert code == 1, output
    assert output.startswith("unhealthy: ") and output.count("\n") == 1
