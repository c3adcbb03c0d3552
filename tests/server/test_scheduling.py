"""One engine, many clients: sentence-level scheduling, bounded buffers, well-ended connections.

Each test drives the real server (in this process, to read its DEBUG lines about its connections
and to watch the audio it holds for a listener) over real TCP, with the endless tiny model so
that audio lengths are exact. Every misbehaving client must leave the server with no connection
of its own still open.
"""

from __future__ import annotations

import asyncio
import json
import math
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from wyoming.client import AsyncTcpClient
from wyoming.event import Event, async_read_event
from wyoming.info import Describe
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop

from testkit.model_factory import SAMPLES_PER_FRAME, TinyModel
from testkit.support import (
    AUDIO_START,
    AUDIO_STOP,
    READ_TIMEOUT,
    ConnectionLog,
    Reply,
    connection_log,
    read_until,
    running_server,
)
from testkit.support import synthesize as synthesize_once
from tests.conftest import model_args
from wyoming_pocket_tts.engine.serving.request import Listener
from wyoming_pocket_tts.protocol.replies import MAX_PENDING_REQUESTS

LONG_TEXT = " ".join(["This long announcement keeps the engine busy for a while."] * 4)


@pytest.fixture
def connections() -> Iterator[ConnectionLog]:
    """The server's own count of open connections and of a connection's unanswered requests."""
    with connection_log() as log:
        yield log


def frame(event: dict) -> bytes:
    return json.dumps(event).encode() + b"\n"


def synthesize_frame(text: str) -> bytes:
    return frame({"type": "synthesize", "data": {"text": text}})


async def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Poll `condition` until it holds; fail after READ_TIMEOUT."""
    deadline = time.monotonic() + READ_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for: {what}"
        await asyncio.sleep(0.02)


async def read_to_eof(reader: asyncio.StreamReader) -> list[Event]:
    """Every event until the server closes the connection (each within READ_TIMEOUT)."""
    events = []
    while (event := await asyncio.wait_for(async_read_event(reader), READ_TIMEOUT)) is not None:
        events.append(event)
    return events


def pcm(events: list[Event]) -> bytes:
    return b"".join(e.payload or b"" for e in events if e.type == "audio-chunk")


def test_half_closed_client_gets_all_its_audio_then_the_server_hangs_up(
    endless_model: TinyModel, voices: dict[str, Path], connections: ConnectionLog
) -> None:
    """`echo ... | nc -N host 10200`: end of input means "no more requests", not "gone"."""
    text = "Half closed clients still hear this."

    async def scenario() -> tuple[int, list[Event], int]:
        async with running_server(model_args(endless_model, voices)) as server:
            reference = await synthesize_once(server.port or 0, text)
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(synthesize_frame(text))
            await writer.drain()
            writer.write_eof()
            events = await read_to_eof(reader)
            writer.close()
            await wait_until(lambda: not connections.open, "the connection to close")
            return len(reference.audio), events, connections.open

    expected, events, left = asyncio.run(scenario())
    types = [e.type for e in events if e.type != "ping"]  # the liveness probe
    assert types[0] == AUDIO_START and types[-1] == AUDIO_STOP
    assert "error" not in types
    assert len(pcm(events)) == expected > 0
    assert left == 0


async def _time_to_first_audio(port: int, text: str) -> tuple[float, float]:
    """Seconds to the first chunk and to audio-stop of a one-shot request."""
    reply = await synthesize_once(port, text)
    return reply.chunk_times[0] - reply.sent_at, reply.times[-1] - reply.sent_at


def test_an_announcement_during_a_stalled_stream_waits_for_one_sentence_only(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    first = "The first sentence of a slow reply is rather long indeed."
    announcement = "Someone is at the front door."

    async def scenario() -> tuple[float, float, float, Reply]:
        async with running_server(model_args(endless_model, voices)) as server:
            port = server.port or 0
            _, sentence_time = await _time_to_first_audio(port, first)
            alone, _ = await _time_to_first_audio(port, announcement)
            async with AsyncTcpClient("127.0.0.1", port) as llm:
                await llm.write_event(SynthesizeStart().event())
                await llm.write_event(SynthesizeChunk(text=first + " And then").event())
                stream = await read_until(llm, "audio-chunk")
                # The LLM now stalls; a doorbell announcement comes in on another connection.
                during, _ = await _time_to_first_audio(port, announcement)
                await llm.write_event(SynthesizeChunk(text=" it ends.").event())
                await llm.write_event(SynthesizeStop().event())
                await read_until(llm, "synthesize-stopped", stream)
            return sentence_time, alone, during, stream

    sentence_time, alone, during, stream = asyncio.run(scenario())
    # At worst it waits for the rest of the sentence being generated, then starts as if alone.
    assert during < 2 * (sentence_time + alone), (during, sentence_time, alone)
    assert not stream.errors and len(stream.audio) > 0


def test_abandoned_requests_free_their_queue_slots(
    endless_model: TinyModel, voices: dict[str, Path], connections: ConnectionLog
) -> None:
    """Clients that queue a request behind a long one and hang up (closed or reset)."""

    async def abandon(port: int, reset: bool) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(synthesize_frame(LONG_TEXT))
        await writer.drain()
        assert (await asyncio.wait_for(async_read_event(reader), READ_TIMEOUT)).type == AUDIO_START
        if reset:
            writer.transport.abort()
        else:
            writer.close()

    async def scenario() -> tuple[Reply, int]:
        args = model_args(endless_model, voices, "--max-queue", "4")
        async with running_server(args) as server:
            port = server.port or 0
            async with AsyncTcpClient("127.0.0.1", port) as busy:
                await busy.write_event(Synthesize(text=LONG_TEXT).event())
                long_reply = await read_until(busy, "audio-chunk")
                await asyncio.gather(*(abandon(port, reset=n % 2 == 0) for n in range(8)))
                await wait_until(lambda: connections.open == 1, "abandoned connections")
                reply = await synthesize_once(port, "Am I served?")
                await read_until(busy, AUDIO_STOP, long_reply)
            await wait_until(lambda: not connections.open, "all connections to close")
            return reply, connections.open

    reply, left = asyncio.run(scenario())
    assert not reply.errors and len(reply.audio) > 0
    assert left == 0


def test_speech_accepted_before_the_text_limit_is_spoken(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    whole = "This first sentence fits in."
    pieces = [whole + " ", "The second one ", "does not fit in the limit at all."]
    one_shot = whole + " This second one does not fit in the limit at all, not at all."
    limit = 40
    assert len(whole) < limit < len("".join(pieces))

    async def scenario() -> tuple[Reply, Reply, Reply]:
        args = model_args(endless_model, voices, "--max-text-chars", str(limit))
        async with running_server(args) as server:
            port = server.port or 0
            reference = await synthesize_once(port, whole)
            async with AsyncTcpClient("127.0.0.1", port) as client:
                await client.write_event(SynthesizeStart().event())
                for piece in pieces:
                    await client.write_event(SynthesizeChunk(text=piece).event())
                await client.write_event(SynthesizeStop().event())
                streamed = await read_until(client, "synthesize-stopped")
            return reference, streamed, await synthesize_once(port, one_shot)

    reference, streamed, one_shot_reply = asyncio.run(scenario())
    for reply in (streamed, one_shot_reply):
        assert [e.code for e in reply.errors] == ["text-too-long"]
        assert len(reply.audio) == len(reference.audio) > 0  # the first sentence, whole
        assert reply.types[reply.types.index(AUDIO_STOP) - 1] == "error"
    assert streamed.types[-2:] == [AUDIO_STOP, "synthesize-stopped"]


def test_a_client_that_stops_reading_holds_bounded_audio_and_is_dropped(
    endless_model: TinyModel,
    voices: dict[str, Path],
    connections: ConnectionLog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bound = 100_000  # bytes; the default (2 MB) would need a minute of audio to show
    most = 0  # the most audio a listener held unread, seen at each chunk the engine hands it
    hand_over = Listener.add

    def counted(listener: Listener, size: int) -> None:
        nonlocal most
        hand_over(listener, size)
        most = max(most, listener.unread)

    monkeypatch.setattr(Listener, "add", counted)

    async def scenario() -> tuple[int, Reply, int]:
        async with running_server(model_args(endless_model, voices), write_timeout=3.0) as server:
            server.engine.scheduler.max_buffered = bound
            port = server.port or 0
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.setblocking(False)
            _, writer = await asyncio.open_connection(sock=sock)
            writer.write(synthesize_frame(" ".join([LONG_TEXT] * 3)))
            await writer.drain()
            await wait_until(lambda: connections.open == 1, "the connection")
            # Another client is served while the first one holds its audio.
            other = await synthesize_once(port, "Meanwhile, I am served.")
            await wait_until(lambda: not connections.open, "the stuck client to be dropped")
            writer.transport.abort()
            chunk_bytes = max_chunk_bytes()
            return chunk_bytes, other, connections.open

    chunk_bytes, other, left = asyncio.run(scenario())
    assert not other.errors and len(other.audio) > 0
    assert 0 < most <= bound + chunk_bytes, (most, bound, chunk_bytes)
    assert left == 0


def max_chunk_bytes() -> int:
    """The most audio one Pocket-TTS chunk (at most 50 tokens) can make, in PCM bytes."""
    frames = math.ceil((50 / 3 + 2) * 12.5)  # pocket-tts's _estimate_max_gen_len, 50 tokens
    return frames * SAMPLES_PER_FRAME * 2


def test_a_client_that_hangs_up_with_a_full_pipeline_leaves_no_handler(
    endless_model: TinyModel, voices: dict[str, Path], connections: ConnectionLog
) -> None:
    async def scenario() -> tuple[int, int]:
        async with running_server(model_args(endless_model, voices, "--max-queue", "64")) as server:
            _, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(synthesize_frame(LONG_TEXT) * (MAX_PENDING_REQUESTS + 4))
            await writer.drain()
            await wait_until(
                lambda: max(connections.unanswered, default=0) >= MAX_PENDING_REQUESTS,
                "a full pipeline",
            )
            most = max(connections.unanswered)
            writer.transport.abort()
            await wait_until(lambda: not connections.open, "the handler to end")
            return most, connections.open

    most, left = asyncio.run(scenario())
    assert most == MAX_PENDING_REQUESTS
    assert left == 0


def test_a_client_silent_after_one_request_is_dropped_after_the_idle_timeout(
    endless_model: TinyModel, voices: dict[str, Path], connections: ConnectionLog
) -> None:
    idle = 1.0

    async def scenario() -> tuple[Reply, float, int]:
        async with running_server(model_args(endless_model, voices), idle_timeout=idle) as server:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(synthesize_frame("One request, then silence."))
            await writer.drain()
            reply = Reply(sent_at=time.monotonic())
            while (
                event := await asyncio.wait_for(async_read_event(reader), READ_TIMEOUT)
            ).type != AUDIO_STOP:
                reply.events.append(event)
            answered = time.monotonic()
            assert await asyncio.wait_for(async_read_event(reader), READ_TIMEOUT) is None
            silent_for = time.monotonic() - answered
            writer.close()
            await wait_until(lambda: not connections.open, "the connection to close")
            return reply, silent_for, connections.open

    reply, silent_for, left = asyncio.run(scenario())
    assert reply.audio
    assert silent_for >= idle * 0.9  # not before the idle timeout: it was answered first
    assert left == 0


def test_a_stream_without_text_ends_with_stream_timeout_and_keeps_its_speech(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    sentence = "This sentence arrives before the stream stalls."

    async def scenario() -> tuple[Reply, Reply]:
        async with running_server(model_args(endless_model, voices), stream_timeout=1.0) as server:
            port = server.port or 0
            reference = await synthesize_once(port, sentence)
            async with AsyncTcpClient("127.0.0.1", port) as client:
                await client.write_event(SynthesizeStart().event())
                await client.write_event(SynthesizeChunk(text=sentence + " Then").event())
                reply = await read_until(client, "synthesize-stopped")
            return reference, reply

    reference, reply = asyncio.run(scenario())
    assert [e.code for e in reply.errors] == ["stream-timeout"]
    assert reply.types[-3:] == ["error", AUDIO_STOP, "synthesize-stopped"]
    # The complete sentence, then the unfinished "Then" spoken as the stream's last words.
    assert len(reply.audio) > len(reference.audio) > 0


def test_shutdown_ends_running_queued_and_open_requests_with_an_error(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario() -> list[Reply]:
        server_context = running_server(model_args(endless_model, voices))
        server = await server_context.__aenter__()
        port = server.port or 0
        clients = [AsyncTcpClient("127.0.0.1", port) for _ in range(3)]
        try:
            for client in clients:
                await client.connect()
            running, queued, stream = clients
            await running.write_event(Synthesize(text=LONG_TEXT).event())
            first = await read_until(running, "audio-chunk")
            await queued.write_event(Synthesize(text=LONG_TEXT).event())
            await stream.write_event(SynthesizeStart().event())
            await stream.write_event(SynthesizeChunk(text="No sentence has ended yet").event())
            await stream.write_event(Describe().event())  # answered once the chunk is taken
            opened = await read_until(stream, "info")
            await wait_until(lambda: server.engine.scheduler.in_care == 3, "3 in care")
            stopping = asyncio.create_task(server_context.__aexit__(None, None, None))
            replies = [
                await read_until(running, AUDIO_STOP, first),
                await read_until(queued, AUDIO_STOP),
                await read_until(stream, "synthesize-stopped", opened),
            ]
            await stopping
            return replies
        finally:
            for client in clients:
                await client.disconnect()

    for reply in asyncio.run(scenario()):
        assert [e.code for e in reply.errors] == ["shutdown"], reply.types
        end = reply.types.index(AUDIO_STOP)
        assert reply.types[end - 1] == "error"


def test_a_stray_synthesize_stop_is_answered_after_earlier_audio(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario() -> Reply:
        async with (
            running_server(model_args(endless_model, voices)) as server,
            AsyncTcpClient("127.0.0.1", server.port or 0) as client,
        ):
            await client.write_event(Synthesize(text="Audio comes first.").event())
            await client.write_event(SynthesizeStop().event())
            return await read_until(client, "synthesize-stopped")

    reply = asyncio.run(scenario())
    assert reply.types[0] == AUDIO_START and "audio-chunk" in reply.types
    assert reply.types[-3:] == [AUDIO_STOP, "error", "synthesize-stopped"]
    assert [e.code for e in reply.errors] == ["no-stream"]


def test_a_connections_pipelined_requests_take_one_place_in_line(
    endless_model: TinyModel, voices: dict[str, Path], connections: ConnectionLog
) -> None:
    """Only a connection's first request competes for the engine; the rest wait, admitted, in
    order: six pipelined requests are all served, and with `--max-queue 2` another client still
    gets the second place."""

    async def scenario() -> tuple[list[Reply], Reply, int]:
        async with running_server(model_args(endless_model, voices, "--max-queue", "2")) as server:
            port = server.port or 0
            async with AsyncTcpClient("127.0.0.1", port) as greedy:
                await greedy.write_event(Synthesize(text=LONG_TEXT).event())
                first = await read_until(greedy, "audio-chunk")
                for _ in range(5):
                    await greedy.write_event(Synthesize(text="A short one.").event())
                await wait_until(lambda: 6 in connections.unanswered, "6 requests")
                in_line = server.engine.scheduler.in_care
                other = await synthesize_once(port, "May I speak too?")
                replies = [await read_until(greedy, AUDIO_STOP, first)]
                replies += [await read_until(greedy, AUDIO_STOP) for _ in range(5)]
            return replies, other, in_line

    replies, other, in_line = asyncio.run(scenario())
    assert in_line == 1  # six requests, one place
    assert not other.errors and len(other.audio) > 0
    assert all(not reply.errors and len(reply.audio) > 0 for reply in replies)
