"""The two things compared: pocket-tts called directly, and the same model behind our server."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pocket_tts import TTSModel
from wyoming.client import AsyncTcpClient
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)

from testkit.support import AUDIO_STOP, Reply, ServerProcess, read_until

SAMPLE_RATE = 24000


@dataclass
class Run:
    """One synthesis, timed from the request."""

    ttfa: float
    """Seconds to the first audio."""
    total: float
    """Seconds to the end of the audio."""
    audio_seconds: float

    @property
    def rtf(self) -> float:
        """Real-time factor: seconds of audio per second of wall time."""
        return self.audio_seconds / self.total


class Library:
    """pocket-tts in this process, as a user of the library would call it."""

    def __init__(self, config: Path, quantize: bool = False) -> None:
        self.model = TTSModel.load_model(config=str(config), quantize=quantize)
        self._states: dict[Path, dict] = {}

    def state(self, voice: Path) -> dict:
        if voice not in self._states:
            self._states[voice] = self.model.get_state_for_audio_prompt(voice)
        return self._states[voice]

    def first_audio(self, text: str, voice: Path) -> float:
        """Seconds to the first audio chunk; generation is then stopped, as on a hang-up."""
        state, stop = self.state(voice), threading.Event()
        started = time.monotonic()
        stream = self.model.generate_audio_stream(state, text, stop=stop)
        next(stream)
        elapsed = time.monotonic() - started
        stop.set()
        for _ in stream:
            pass
        return elapsed

    def run(self, text: str, voice: Path) -> Run:
        state = self.state(voice)
        started = time.monotonic()
        first = None
        samples = 0
        for chunk in self.model.generate_audio_stream(state, text):
            if first is None:
                first = time.monotonic() - started
            samples += chunk.shape[-1]
        assert first is not None
        return Run(first, time.monotonic() - started, samples / SAMPLE_RATE)


class Server:
    """Our server in a subprocess, driven over loopback TCP with the wyoming client."""

    def __init__(self, args: Sequence[str], log: Path) -> None:
        self.process = ServerProcess(args, log)
        started = time.monotonic()
        self.process.wait_for_log("Ready", timeout=600)
        self.startup = time.monotonic() - started

    def run(self, text: str, voice: str | None = None) -> Run:
        return asyncio.run(self._run(text, voice))

    def first_audio(self, text: str, voice: str) -> float:
        """Seconds to the first audio chunk; then the client hangs up, which stops generation."""
        return asyncio.run(self._first_audio(text, voice))

    async def _first_audio(self, text: str, voice: str) -> float:
        async with AsyncTcpClient("127.0.0.1", self.process.port) as client:
            request = Synthesize(text=text, voice=SynthesizeVoice(name=voice))
            started = time.monotonic()
            await client.write_event(request.event())
            reply = await read_until(client, "audio-chunk", timeout=600)
        return reply.times[-1] - started

    async def _run(self, text: str, voice: str | None) -> Run:
        async with AsyncTcpClient("127.0.0.1", self.process.port) as client:
            request = Synthesize(text=text, voice=SynthesizeVoice(name=voice) if voice else None)
            started = time.monotonic()
            await client.write_event(request.event())
            reply = await read_until(client, AUDIO_STOP, timeout=600)
        return _timed(reply, started)

    def stream(self, pieces: Sequence[str], gap: float, mark: int) -> tuple[Run, float]:
        """Send `pieces` `gap` seconds apart, as an LLM would; also return when piece `mark`
        (the end of the first sentence) was sent, relative to the start."""
        return asyncio.run(self._stream(pieces, gap, mark))

    async def _stream(self, pieces: Sequence[str], gap: float, mark: int) -> tuple[Run, float]:
        async with AsyncTcpClient("127.0.0.1", self.process.port) as client:
            started = time.monotonic()
            marked = 0.0
            await client.write_event(SynthesizeStart().event())
            reading = asyncio.create_task(read_until(client, "synthesize-stopped", timeout=600))
            for index, piece in enumerate(pieces):
                await client.write_event(SynthesizeChunk(text=piece).event())
                if index == mark:
                    marked = time.monotonic() - started
                await asyncio.sleep(gap)
            await client.write_event(SynthesizeStop().event())
            reply = await reading
        return _timed(reply, started), marked

    def rss_mib(self) -> float:
        rss = status_mib(self.process.process.pid, "VmRSS")
        assert rss is not None, "the server ended"
        return rss

    def peak_mib(self) -> float:
        """The server process's peak resident memory (VmHWM) so far."""
        peak = status_mib(self.process.process.pid, "VmHWM")
        assert peak is not None, "the server ended"
        return peak

    def chosen_quantization(self) -> str:
        """What `--quantize auto` chose, from the start-up log: "int8 x1", "fp32 x2"... or "?"."""
        match = re.search(r"Speed here: .* \(((?:onnx )?(?:int8|fp32) x\d+);", self.process.log)
        return match.group(1) if match else "?"

    def count(self, text: str) -> int:
        return self.process.log.count(text)

    def stop(self) -> None:
        self.process.stop()


def status_mib(pid: int, field: str) -> float | None:
    """A memory figure of /proc/PID/status (`VmRSS`, `VmHWM`...) in MiB; None once it ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(rf"{field}:\s+(\d+)", status)
    return int(match.group(1)) / 1024 if match else None


def _timed(reply: Reply, started: float) -> Run:
    chunks = reply.chunk_times
    return Run(
        ttfa=chunks[0] - started,
        total=chunks[-1] - started,
        audio_seconds=len(reply.audio) / 2 / SAMPLE_RATE,
    )
