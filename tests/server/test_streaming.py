"""Streamed text in (Home Assistant's default path), cancellation and the bounded queue."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from wyoming.client import AsyncTcpClient
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)

from testkit.model_factory import TinyModel
from testkit.support import (
    ANOTHER_VOICE,
    AUDIO_START,
    AUDIO_STOP,
    Reply,
    ServerProcess,
    describe,
    differing_samples,
    pocket_tts_threads,
    read_until,
    running_server,
    synthesize,
    synthesize_streamed,
)
from tests.conftest import model_args

SENTENCES = ["Good morning to you.", "The kitchen lights are on now.", "Have a nice day."]


def words(text: str) -> list[str]:
    """Split text the way an LLM streams it: word by word, spaces leading."""
    first, *rest = text.split(" ")
    return [first, *(" " + word for word in rest)]


def test_info_advertises_streaming(endless_server: ServerProcess) -> None:
    assert asyncio.run(describe(endless_server.port)).tts[0].supports_synthesize_streaming


def test_first_sentence_is_spoken_before_the_stream_ends(endless_server: ServerProcess) -> None:
    async def scenario() -> Reply:
        async with AsyncTcpClient("127.0.0.1", endless_server.port) as client:
            await client.write_event(SynthesizeStart().event())
            for piece in [*words(SENTENCES[0]), " The"]:  # the next sentence has begun
                await client.write_event(SynthesizeChunk(text=piece).event())
            reply = await read_until(client, "audio-chunk")  # nothing more has been sent
            for piece in words(" kitchen lights are on now."):
                await client.write_event(SynthesizeChunk(text=piece).event())
            await client.write_event(SynthesizeStop().event())
            return await read_until(client, "synthesize-stopped", reply)

    reply = asyncio.run(scenario())
    assert reply.types.count(AUDIO_START) == 1
    assert reply.types[-2:] == [AUDIO_STOP, "synthesize-stopped"]
    assert not reply.errors


def test_stream_audio_equals_one_shot_audio_per_sentence(endless_server: ServerProcess) -> None:
    port = endless_server.port
    one_shot = [len(asyncio.run(synthesize(port, sentence)).audio) for sentence in SENTENCES]
    pieces = words(" ".join(SENTENCES))
    streamed = asyncio.run(synthesize_streamed(port, pieces))  # with HA's extra `synthesize`
    assert streamed.types.count(AUDIO_START) == 1
    assert streamed.types[-1] == "synthesize-stopped"
    assert len(streamed.audio) == sum(one_shot)
    # The same single sentence, streamed or not, gives the same amount of audio.
    single = asyncio.run(synthesize_streamed(port, words(SENTENCES[1]), resend_whole=False))
    assert len(single.audio) == one_shot[1]


def test_stream_cleans_markdown_and_emoji(endless_server: ServerProcess) -> None:
    port = endless_server.port
    plain = asyncio.run(synthesize(port, "The lights are on."))
    marked = asyncio.run(synthesize_streamed(port, ["**The", " lights** are", " on. 💡"]))
    assert len(marked.audio) == len(plain.audio)
    only_emoji = asyncio.run(synthesize_streamed(port, ["🎉", " 🎉"]))
    assert only_emoji.types == [AUDIO_START, AUDIO_STOP, "synthesize-stopped"]


def test_protocol_errors_in_streams_get_errors(endless_server: ServerProcess) -> None:
    async def scenario() -> Reply:
        async with AsyncTcpClient("127.0.0.1", endless_server.port) as client:
            await client.write_event(SynthesizeChunk(text="orphan").event())
            reply = await read_until(client, "error")
            await client.write_event(SynthesizeStop().event())
            await read_until(client, "synthesize-stopped", reply)
            await client.write_event(Synthesize(text="Still fine.").event())
            return await read_until(client, AUDIO_STOP, reply)

    reply = asyncio.run(scenario())
    assert [e.code for e in reply.errors] == ["no-stream", "no-stream"]
    assert reply.audio


def test_stream_text_limit(endless_server: ServerProcess) -> None:
    """The limit (400 here) counts the whole stream, spoken sentences too: no one piece, nor
    the text not yet spoken, is over it. Two short sentences, so that little is spoken."""
    pieces = ["Hello there. ", "Hello there. ", "Hello there, " * 30]
    assert max(len(piece) for piece in pieces) < 400 < len("".join(pieces))
    reply = asyncio.run(synthesize_streamed(endless_server.port, pieces))
    assert [e.code for e in reply.errors] == ["text-too-long"]
    assert reply.types[-2:] == [AUDIO_STOP, "synthesize-stopped"]


async def _abandon_after_first_chunk(port: int, text: str) -> None:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Synthesize(text=text).event())
        await read_until(client, "audio-chunk")


async def _wait_for_no_generation_threads(timeout: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while (threads := pocket_tts_threads()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    return threads


def test_disconnect_cancels_generation(endless_model: TinyModel, voices: dict[str, Path]) -> None:
    long_text = " ".join(["A long announcement about the weather tomorrow."] * 6)

    async def scenario() -> tuple[float, float, list[str]]:
        async with running_server(model_args(endless_model, voices)) as server:
            started = time.monotonic()
            full = await synthesize(server.port or 0, long_text)
            full_time = time.monotonic() - started
            assert len(full.audio) > 0
            for _ in range(3):
                await _abandon_after_first_chunk(server.port or 0, long_text)
            reply = await synthesize(server.port or 0, "Next please.")
            first_audio = reply.chunk_times[0] - reply.sent_at
            return full_time, first_audio, await _wait_for_no_generation_threads()

    full_time, first_audio, leftover = asyncio.run(scenario())
    assert leftover == []
    # Had the three abandoned generations run on, the next request would wait for all of them.
    assert first_audio < full_time / 2, (first_audio, full_time)


def test_queue_is_fair_and_bounded(endless_model: TinyModel, voices: dict[str, Path]) -> None:
    texts = [f"Request number {n} has {'many ' * n}words." for n in range(1, 7)]

    async def scenario() -> tuple[list[int], list[Reply]]:
        async with running_server(model_args(endless_model, voices, "--max-queue", "2")) as server:
            port = server.port or 0
            alone = [len((await synthesize(port, text)).audio) for text in texts]
            replies = await asyncio.gather(*(synthesize(port, text) for text in texts))
            return alone, list(replies)

    alone, replies = asyncio.run(scenario())
    busy = [r for r in replies if [e.code for e in r.errors] == ["busy"]]
    served = [(length, r) for length, r in zip(alone, replies, strict=True) if not r.errors]
    # Two may wait; a third may already be running when the rest arrive.
    assert 2 <= len(served) <= 3
    assert len(busy) + len(served) == len(texts)
    for reply in busy:
        assert reply.types == [AUDIO_START, "error", AUDIO_STOP]
    for length, reply in served:
        assert len(reply.audio) == length  # its own audio, complete, nobody else's


def test_synthesize_start_while_a_stream_is_open_closes_the_first(
    endless_server: ServerProcess,
) -> None:
    """A second `synthesize-start` ends the open stream (its text spoken, its closing events
    sent) and begins a new one with its own voice."""
    port = endless_server.port
    first = asyncio.run(synthesize(port, "First stream.", voice="a"))
    second = asyncio.run(synthesize(port, "Second stream.", voice="b"))
    other = asyncio.run(synthesize(port, "First stream.", voice="b"))
    assert differing_samples(other.audio, first.audio) > ANOTHER_VOICE

    async def scenario() -> tuple[Reply, Reply]:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name="a")).event())
            await client.write_event(SynthesizeChunk(text="First stream.").event())
            await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name="b")).event())
            await client.write_event(SynthesizeChunk(text="Second stream.").event())
            await client.write_event(SynthesizeStop().event())
            one = await read_until(client, "synthesize-stopped")
            return one, await read_until(client, "synthesize-stopped")

    one, two = asyncio.run(scenario())
    for reply, alone in [(one, first), (two, second)]:
        assert reply.types[0] == AUDIO_START and reply.types[-2:] == [
            AUDIO_STOP,
            "synthesize-stopped",
        ]
        assert not reply.errors
        assert differing_samples(reply.audio, alone.audio) == 0
