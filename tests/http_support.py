"""Helpers for the HTTP tests: the real `openai` client and an independent decoder (FFmpeg)."""

from __future__ import annotations

import asyncio
import io
import time
from dataclasses import dataclass

import av
import numpy as np
from openai import AsyncOpenAI

READ_TIMEOUT = 30.0


def client(port: int, token: str = "unused", timeout: float = READ_TIMEOUT) -> AsyncOpenAI:
    """The real OpenAI client pointed at our server; no retries (they would hide errors)."""
    return AsyncOpenAI(
        base_url=f"http://127.0.0.1:{port}/v1", api_key=token, max_retries=0, timeout=timeout
    )


@dataclass
class Decoded:
    rate: int
    samples: np.ndarray
    """Mono float samples in [-1, 1]."""

    @property
    def seconds(self) -> float:
        return self.samples.size / self.rate

    @property
    def rms(self) -> float:
        return float(np.sqrt(np.mean(self.samples**2))) if self.samples.size else 0.0


def decode(data: bytes, fmt: str, pcm_rate: int = 24000) -> Decoded:
    """Decode an answer with FFmpeg (PyAV); raw `pcm` is 16-bit mono at `pcm_rate`."""
    if fmt == "pcm":
        return Decoded(pcm_rate, np.frombuffer(data, "<i2").astype(np.float64) / 32768)
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.audio[0]
        parts = [
            frame.to_ndarray().astype(np.float64).reshape(-1) for frame in container.decode(stream)
        ]
        rate = stream.rate
    samples = np.concatenate(parts) if parts else np.zeros(0)
    if samples.size and np.abs(samples).max() > 1.5:  # integer sample formats
        samples = samples / 32768
    return Decoded(rate, samples)


@dataclass
class Timed:
    """An answer's body and when its bytes came (monotonic seconds from the request)."""

    body: bytes
    first_byte: float
    total: float
    status: int


async def timed_speech(
    port: int, text: str, voice: str, fmt: str = "pcm", timeout: float = READ_TIMEOUT
) -> Timed:
    """`with_streaming_response`: the time of the first body bytes and of the last."""
    api = client(port, timeout=timeout)  # made before the clock starts: building it costs ~0.1 s
    started = time.monotonic()
    first = None
    chunks = []
    async with api.audio.speech.with_streaming_response.create(
        model="pocket-tts", voice=voice, input=text, response_format=fmt
    ) as response:
        async for chunk in response.iter_bytes():
            if first is None and chunk:
                first = time.monotonic() - started
            chunks.append(chunk)
        status = response.status_code
    return Timed(b"".join(chunks), first or float("inf"), time.monotonic() - started, status)


async def bounded(coroutine, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    return await asyncio.wait_for(coroutine, timeout)
