"""Test support: run the real server (as a subprocess or in-process) and talk to it with the
`wyoming` library's client, every read bounded by a timeout."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.server import TtsServer

READ_TIMEOUT = 30.0
"""No single event may take longer than this to arrive in a test."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Reply:
    """Everything a client received for one request, with arrival times (monotonic seconds)."""

    events: list[Event] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    sent_at: float = 0.0

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events]

    @property
    def audio(self) -> bytes:
        return b"".join(
            AudioChunk.from_event(e).audio for e in self.events if AudioChunk.is_type(e.type)
        )

    @property
    def chunk_times(self) -> list[float]:
        pairs = zip(self.events, self.times, strict=True)
        return [t for e, t in pairs if AudioChunk.is_type(e.type)]

    @property
    def errors(self) -> list[Error]:
        return [Error.from_event(e) for e in self.events if Error.is_type(e.type)]

    def first(self, event_type: str) -> Event:
        return next(e for e in self.events if e.type == event_type)


async def read_until(
    client: AsyncTcpClient,
    end_type: str,
    reply: Reply | None = None,
    *,
    timeout: float = READ_TIMEOUT,
) -> Reply:
    """Read events until one of `end_type` arrives (inclusive), each within `timeout`."""
    reply = reply or Reply(sent_at=time.monotonic())
    while True:
        event = await asyncio.wait_for(client.read_event(), timeout=timeout)
        assert event is not None, f"connection closed before {end_type}; got {reply.types}"
        reply.events.append(event)
        reply.times.append(time.monotonic())
        if event.type == end_type:
            return reply


async def describe(port: int) -> Info:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Describe().event())
        reply = await read_until(client, "info")
    return Info.from_event(reply.events[-1])


async def synthesize(port: int, text: str, voice: str | None = None) -> Reply:
    """One plain `synthesize` request, read up to its `audio-stop`."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        request = Synthesize(text=text, voice=SynthesizeVoice(name=voice) if voice else None)
        reply = Reply(sent_at=time.monotonic())
        await client.write_event(request.event())
        return await read_until(client, AudioStop().event().type, reply)


async def synthesize_streamed(
    port: int, pieces: Sequence[str], voice: str | None = None, *, resend_whole: bool = True
) -> Reply:
    """A stream as Home Assistant sends it: start, chunks, the whole text again, stop."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        voice_obj = SynthesizeVoice(name=voice) if voice else None
        reply = Reply(sent_at=time.monotonic())
        await client.write_event(SynthesizeStart(voice=voice_obj).event())
        for piece in pieces:
            await client.write_event(SynthesizeChunk(text=piece).event())
        if resend_whole:
            await client.write_event(Synthesize(text="".join(pieces), voice=voice_obj).event())
        await client.write_event(SynthesizeStop().event())
        return await read_until(client, SynthesizeStopped().event().type, reply)


AUDIO_START = AudioStart(rate=0, width=0, channels=0).event().type
AUDIO_STOP = AudioStop().event().type


SEEDED_MAIN = (
    "import sys, torch; torch.manual_seed({seed}); "
    "from wyoming_pocket_tts.__main__ import main; sys.exit(main(sys.argv[1:]))"
)
"""`python -m wyoming_pocket_tts` with torch's random generator seeded first."""


class ServerProcess:
    """`python -m wyoming_pocket_tts` on 127.0.0.1:<free port>, its log captured to a file.

    With `seed`, torch's random generator is seeded before the server starts, so two servers
    started alike generate the same samples for their first request: pocket-tts samples noise
    for every frame, and with random weights that noise outweighs the voice, so comparing audio
    content (which voice spoke) needs the same noise on both sides.
    """

    def __init__(
        self,
        args: Sequence[str],
        log_path: Path,
        env: dict[str, str] | None = None,
        seed: int | None = None,
    ):
        self.port = free_port()
        self.log_path = log_path
        entry = ["-m", "wyoming_pocket_tts"]
        if seed is not None:
            entry = ["-c", SEEDED_MAIN.format(seed=int(seed))]
        command = [sys.executable, *entry, "--uri", f"tcp://127.0.0.1:{self.port}"]
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [*command, *args],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, timeout: float = 90.0) -> None:
        """Wait until `text` appears in the log; fail if the process exits first."""
        deadline = time.monotonic() + timeout
        while text not in self.log:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited ({self.process.returncode}):\n{self.log}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} after {timeout} s:\n{self.log}")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, wait, and return the exit code (killing it if it does not stop)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"server ignored SIGTERM for {timeout} s:\n{self.log}") from None
        finally:
            self._log.close()
        return code

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.stop()


@contextlib.asynccontextmanager
async def running_server(
    args: Sequence[str], **server_settings: float
) -> AsyncIterator[TtsServer]:
    """The real server in this process (to inspect its threads), on 127.0.0.1:<free port>.

    `server_settings` override `ServerSettings` fields that have no flag (the timeouts), so a
    test of a timeout can make it short.
    """
    settings = parse_settings(["--uri", "tcp://127.0.0.1:0", *args])
    settings = dataclasses.replace(
        settings, server=dataclasses.replace(settings.server, **server_settings)
    )
    server = TtsServer(settings)
    await server.start()
    try:
        await asyncio.wait_for(server.wait_ready(), timeout=120)
        yield server
    finally:
        await server.stop()


def pocket_tts_threads() -> list[str]:
    """Names of live threads pocket-tts started for a generation (LM and Mimi decoder)."""
    workers = ("run_generation", "_decode_audio_worker")
    return [
        t.name for t in threading.enumerate() if t.name.endswith(tuple(f"({w})" for w in workers))
    ]
