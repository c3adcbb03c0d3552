"""The HTTP side is one more client of the same engine: it streams, it stops when its client
leaves, it is served fairly beside Wyoming clients, and it holds nothing after a load.

Timings are compared as ratios within one run on one server, never against fixed seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import statistics
import time
from pathlib import Path

import aiohttp
import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize

from testkit.model_factory import TinyModel
from testkit.support import (
    Reply,
    ServerProcess,
    differing_samples,
    pocket_tts_threads,
    read_until,
    synthesize,
)
from tests.conftest import model_args
from tests.http_support import client, timed_speech
from wyoming_pocket_tts.engine.chunking import chunks
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.server import TtsServer

from .test_http import http_run

SENTENCE = "The weather tomorrow will be mild."
LONG_TEXT = " ".join([SENTENCE] * 12)
PIECES_OF_WAIT = 3
"""An answer that comes during another waits for the piece being spoken, then its own: within
this many times (piece + its own first audio), each timed once, while the other worker runs.
Waiting for the whole of `LONG_TEXT` takes its twelve pieces. (At 2, a burst failed it once.)"""
"""About 25 s of audio on the endless tiny model, spoken in ~10 s here."""
HALF_TEXT = " ".join([SENTENCE] * 6)
"""Half of it: spoken in ~5 s, still 25 first-audio times or more."""
ANNOUNCEMENT = "Someone is at the front door."


async def wyoming_first_audio(port: int, text: str) -> tuple[float, float]:
    """Seconds to the first audio chunk and to the end of a Wyoming `synthesize`."""
    reply = await synthesize(port, text)
    assert reply.audio and not reply.errors
    return reply.chunk_times[0] - reply.sent_at, reply.times[-1] - reply.sent_at


async def wyoming_first_chunk(port: int, text: str) -> float:
    """Seconds to the first audio chunk of a Wyoming `synthesize`; then hang up and wait until
    its generation has stopped (the rest of the text is not needed)."""
    async with AsyncTcpClient("127.0.0.1", port) as wyoming:
        reply = Reply(sent_at=time.monotonic())
        await wyoming.write_event(Synthesize(text=text).event())
        await read_until(wyoming, "audio-chunk", reply)
    assert await _wait_for_no_generation() == []
    return reply.chunk_times[0] - reply.sent_at


def test_first_bytes_come_about_one_first_audio_time_after_the_request(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario(
        server: TtsServer, port: int
    ) -> tuple[list[float], list[float], list[float]]:
        wyoming, first, whole = [], [], []
        await wyoming_first_chunk(server.port or 0, HALF_TEXT)  # first-call costs (the mp3
        await timed_speech(port, HALF_TEXT, "a", "mp3")  # encoder's too), kept out
        for _ in range(2):  # interleaved, so that load on the machine hits both alike
            wyoming.append(await wyoming_first_chunk(server.port or 0, HALF_TEXT))
            answer = await timed_speech(port, HALF_TEXT, "a", "mp3")
            assert answer.status == 200 and answer.body
            first.append(answer.first_byte)
            whole.append(answer.total)
        return wyoming, first, whole

    wyoming, first, whole = http_run(endless_model, voices, scenario)  # type: ignore[misc]
    ratio = min(first) / min(wyoming)  # each side's best: load on the host only ever slows
    print(f"first bytes / Wyoming first audio: {ratio:.2f} ({first} vs {wyoming}); whole {whole}")
    assert ratio < 3.0, (first, wyoming)
    assert statistics.median(first) < statistics.median(whole) / 4, (first, whole)


async def _wait_for_no_generation(timeout: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while (threads := pocket_tts_threads()) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return threads


def test_a_client_that_disconnects_stops_its_generation(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    body = {"voice": "a", "input": LONG_TEXT, "response_format": "pcm"}

    async def scenario(server: TtsServer, port: int) -> tuple[float, list[float], list[str], float]:
        whole = (await timed_speech(port, LONG_TEXT, "a")).total
        stopped = []
        for _ in range(3):
            async with aiohttp.ClientSession() as session:
                response = await session.post(f"http://127.0.0.1:{port}/v1/audio/speech", json=body)
                await response.content.readany()  # the first audio: generation is under way
                left = time.monotonic()
                response.close()  # hang up mid-answer
            assert await _wait_for_no_generation() == []
            stopped.append(time.monotonic() - left)
        after = await timed_speech(port, ANNOUNCEMENT, "a")
        return whole, stopped, pocket_tts_threads(), after.first_byte

    whole, stopped, leftover, next_first = http_run(endless_model, voices, scenario)  # type: ignore[misc]
    print(f"whole text {whole:.2f} s; generation stopped {stopped} s after the hang-up")
    assert leftover == []
    # A frame is 80 ms of audio, made here in a few ms: stopping takes a frame, not the text.
    assert max(stopped) < whole / 8, (stopped, whole)
    assert next_first < whole / 4, (next_first, whole)


def test_a_wyoming_announcement_during_a_long_http_answer_waits_about_one_piece(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    # what the engine speaks at once
    first_piece = chunks(TorchRuntime(endless_model.load(), False), LONG_TEXT)[0]

    async def scenario(server: TtsServer, port: int) -> tuple[float, float, float]:
        wyoming_port = server.port or 0
        _, piece = await wyoming_first_audio(wyoming_port, first_piece)
        alone, _ = await wyoming_first_audio(wyoming_port, ANNOUNCEMENT)
        async with client(port).audio.speech.with_streaming_response.create(
            model="pocket-tts", voice="a", input=LONG_TEXT, response_format="pcm"
        ) as answer:
            chunks = answer.iter_bytes()
            await chunks.__anext__()  # the long answer is being spoken
            during, _ = await wyoming_first_audio(wyoming_port, ANNOUNCEMENT)
            # ...and still is: its audio goes on after the announcement (the rest is not needed).
            assert await chunks.__anext__()
        return piece, alone, during

    piece, alone, during = http_run(endless_model, voices, scenario)  # type: ignore[misc]
    assert during < PIECES_OF_WAIT * (piece + alone), (during, piece, alone)


def test_an_http_request_during_a_long_wyoming_answer_waits_about_one_piece(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    # what the engine speaks at once
    first_piece = chunks(TorchRuntime(endless_model.load(), False), LONG_TEXT)[0]

    async def scenario(server: TtsServer, port: int) -> tuple[float, float, float]:
        wyoming_port = server.port or 0
        _, piece = await wyoming_first_audio(wyoming_port, first_piece)
        alone = (await timed_speech(port, ANNOUNCEMENT, "a")).first_byte
        long_reply = asyncio.ensure_future(synthesize(wyoming_port, LONG_TEXT))
        while not pocket_tts_threads():  # the long answer is being spoken
            await asyncio.sleep(0.01)
        during = (await timed_speech(port, ANNOUNCEMENT, "a")).first_byte
        # The long answer was still being spoken (the rest of it is not needed): hang up.
        assert not long_reply.done()
        long_reply.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await long_reply
        return piece, alone, during

    piece, alone, during = http_run(endless_model, voices, scenario)  # type: ignore[misc]
    assert during < PIECES_OF_WAIT * (piece + alone), (during, piece, alone)


HTTP_LISTENING = re.compile(r"HTTP API on http://127\.0\.0\.1:(\d+)")


def _status(pid: int) -> tuple[int, int]:
    """RSS (KiB) and thread count of a process, from /proc."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]), int(fields["Threads"])


@pytest.mark.timeout(400)
def test_eight_http_and_four_wyoming_clients_at_once(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """On the slim model that ends its speech (short answers): one engine serves the twelve
    in turn, so the last waits for the other eleven. Over 20 s: five rounds of twelve, two to
    warm up and three to show that memory and threads stay flat."""
    args = model_args(slim_model, voices, "--http-port", "0", "--max-queue", "16")
    texts = [f"Client {n} asks{' again' * (n % 3)}." for n in range(12)]

    async def round_(wyoming_port: int, http_port: int) -> list[bytes]:
        http = [
            timed_speech(
                http_port, text, "ab"[n % 2], ("pcm", "mp3", "opus", "wav")[n % 4], timeout=120
            )
            for n, text in enumerate(texts[:8])
        ]
        wyoming = [synthesize(wyoming_port, text, voice="a") for text in texts[8:]]
        answers = await asyncio.wait_for(asyncio.gather(*http, *wyoming), 180)
        for answer in answers[:8]:
            assert answer.status == 200 and answer.body  # type: ignore[union-attr]
        for reply in answers[8:]:
            assert reply.audio and not reply.errors  # type: ignore[union-attr]
        return [a.body for a in answers[:8]]  # type: ignore[union-attr]

    with ServerProcess(args, tmp_path / "server.log") as server:
        server.wait_for_log("Ready")
        match = HTTP_LISTENING.search(server.log)
        assert match, server.log
        http_port, pid = int(match.group(1)), server.process.pid

        idle_threads = _status(pid)[1]

        async def scenario() -> tuple[tuple[int, int], tuple[int, int], list[bytes], bytes]:
            for _ in range(2):  # warm-up: allocator pools and executor threads fill once
                await round_(server.port, http_port)
            await asyncio.sleep(1.0)  # generation threads of the last request exit
            before = _status(pid)
            for _ in range(3):
                bodies = await round_(server.port, http_port)
            alone = await timed_speech(http_port, texts[0], "a", "pcm")
            await asyncio.sleep(1.0)
            return before, _status(pid), bodies, alone.body

        before, after, bodies, alone = asyncio.run(scenario())
        assert server.stop() == 0
    print(
        f"load: RSS {before[0]} -> {after[0]} KiB, threads {idle_threads} idle, {before[1]} "
        f"-> {after[1]}"
    )
    # asyncio's default executor (text preparation, encoding) grows lazily up to its bound,
    # min(32, cores + 4), and keeps its threads: that bound, and nothing per request (60 here).
    assert after[1] <= idle_threads + min(32, (os.cpu_count() or 1) + 4), (idle_threads, after)
    assert after[0] - before[0] < 48 * 1024
    assert differing_samples(bodies[0], alone) == 0.0  # under load, its own audio, whole


def test_sigterm_during_an_http_answer_cuts_it_and_exits_0(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    args = model_args(endless_model, voices, "--http-port", "0")
    with ServerProcess(args, tmp_path / "server.log") as server:
        server.wait_for_log("Ready")
        match = HTTP_LISTENING.search(server.log)
        assert match, server.log
        url = f"http://127.0.0.1:{match.group(1)}/v1/audio/speech"

        async def scenario() -> tuple[int, bool]:
            body = {"voice": "a", "input": LONG_TEXT, "response_format": "pcm"}
            timeout = aiohttp.ClientTimeout(total=60)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.post(url, json=body) as response,
            ):
                received = len(await response.content.readany())
                server.process.terminate()  # SIGTERM mid-answer
                try:
                    while chunk := await response.content.readany():
                        received += len(chunk)
                    whole = True
                except aiohttp.ClientPayloadError:
                    whole = False  # cut: no chunked terminator
            return received, whole

        received, whole = asyncio.run(scenario())
        code = server.stop(signalled=True)
    assert received > 0
    assert not whole  # a cut answer must not look complete
    assert code == 0, server.log
