"""Speech the household shapes, through the real server: rate, pauses, SSML and a lead-in.

The real server in this process over real TCP, with the endless tiny model (audio length follows
the text exactly, whatever the voice), and a spy at the pocket-tts boundary (`Engine._speak`
records the text each generation is given).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)

from testkit.model_factory import TinyModel
from testkit.support import AUDIO_STOP, Reply, pcm_samples, read_until, running_server
from tests.conftest import model_args
from tests.http_support import timed_speech
from tests.server_thread import ServerThread
from wyoming_pocket_tts.engine.serving import engine as worker
from wyoming_pocket_tts.settings import SAMPLE_RATE

SENTENCE = "The washing machine has finished its program."


@pytest.fixture
def spoken(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The texts pocket-tts is asked to generate, in order."""
    texts: list[str] = []
    original = worker.Engine._speak

    def spy(self, model, voice, text, request, rate):
        texts.append(text)
        return original(self, model, voice, text, request, rate)

    monkeypatch.setattr(worker.Engine, "_speak", spy)
    yield texts


@pytest.fixture(scope="module")
def ssml_server(endless_model: TinyModel, voices: dict[str, Path]) -> Iterator[ServerThread]:
    """One server for the SSML tests: they change nothing in it, and each reads only its own
    request (and `spoken`, which records from the test's start)."""
    running = ServerThread(model_args(endless_model, voices, "--max-text-chars", "400"))
    yield running
    running.close()


async def one_shot(port: int, text: str, voice: str | None = None, ssml: bool = False) -> Reply:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        request = Synthesize(
            text=text,
            voice=SynthesizeVoice(name=voice) if voice else None,
            text_format="ssml" if ssml else None,
        )
        await client.write_event(request.event())
        return await read_until(client, AUDIO_STOP)


def zero_runs(audio: bytes, at_least: int) -> list[tuple[int, int]]:
    """(start, length) of each run of exactly-zero samples of `at_least` samples or more."""
    zero = np.concatenate([[False], pcm_samples(audio) == 0, [False]])
    edges = np.flatnonzero(np.diff(zero.astype(np.int8)))
    starts, ends = edges[::2], edges[1::2]
    runs = [(int(start), int(end - start)) for start, end in zip(starts, ends, strict=True)]
    return [run for run in runs if run[1] >= at_least]


def test_a_voice_with_its_own_speed_speaks_that_much_faster_and_starts_as_early(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Up to ~24 s on a busy host: three interleaved pairs of replies, so that the fastest
    first chunk of each voice is compared, not one noisy sample."""
    quick = f"quick={voices['a']},speed=1.25"
    args = model_args(endless_model, {"a": voices["a"]}, "--voice", quick)

    async def scenario() -> tuple[list[Reply], list[Reply]]:
        async with running_server(args) as server:
            port = server.port or 0
            normal, quick = [], []
            for _ in range(3):  # interleaved, so that load on the machine hits both alike
                normal.append(await one_shot(port, SENTENCE, "a"))
                quick.append(await one_shot(port, SENTENCE, "quick"))
            return normal, quick

    normal, quick = asyncio.run(scenario())
    ratio = len(normal[0].audio) / len(quick[0].audio)
    assert ratio == pytest.approx(1.25, rel=0.03), ratio

    def first_audio(reply: Reply) -> float:
        return reply.chunk_times[0] - reply.sent_at

    # The rate changer holds back ~30 ms of input; the first chunk is not delayed beyond that.
    best_normal = min(map(first_audio, normal))
    best_quick = min(map(first_audio, quick))
    assert best_quick < best_normal * 1.5 + 0.05, (best_quick, best_normal)


def test_lead_silence_and_sentence_pause(endless_model: TinyModel, voices: dict[str, Path]) -> None:
    args = model_args(endless_model, voices, "--lead-silence", "300", "--sentence-pause", "500")
    lead, pause = SAMPLE_RATE * 300 // 1000, SAMPLE_RATE * 500 // 1000

    async def scenario() -> tuple[Reply, Reply]:
        async with running_server(args) as server:
            port = server.port or 0
            async with AsyncTcpClient("127.0.0.1", port) as client:
                await client.write_event(SynthesizeStart().event())
                await client.write_event(SynthesizeChunk(text=f"{SENTENCE} {SENTENCE}").event())
                await client.write_event(SynthesizeStop().event())
                stream = await read_until(client, "synthesize-stopped")
            return await one_shot(port, SENTENCE), stream

    single, stream = asyncio.run(scenario())
    first_chunk = next(e.payload for e in single.events if e.type == "audio-chunk")
    assert first_chunk is not None
    assert not pcm_samples(first_chunk[: lead * 2]).any()  # the first chunk carries the lead-in
    assert pcm_samples(single.audio)[lead : lead + 200].any()
    runs = zero_runs(stream.audio, lead)
    assert len(runs) == 2 and runs[0][0] == 0 and runs[1][1] >= pause, runs  # lead, then pause
    assert len(stream.audio) // 2 == 2 * len(single.audio) // 2 - lead + pause


def test_trail_silence_ends_every_reply_on_every_door(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """`--trail-silence`: the same text's audio is that much longer, all of it zeros after the
    last chunk of speech, over Wyoming one-shot, Wyoming streamed and HTTP (raw PCM). Up to
    ~29 s on a busy host: two servers (with and without the flag), three doors each."""
    trail = SAMPLE_RATE * 700 // 1000

    async def replies(*extra: str) -> list[bytes]:
        args = model_args(endless_model, voices, "--http-port", "0", *extra)
        async with running_server(args) as server:
            port = server.port or 0
            single = await one_shot(port, SENTENCE)
            async with AsyncTcpClient("127.0.0.1", port) as client:
                await client.write_event(SynthesizeStart().event())
                await client.write_event(SynthesizeChunk(text=SENTENCE).event())
                await client.write_event(SynthesizeStop().event())
                stream = await read_until(client, "synthesize-stopped")
            assert server.http is not None and server.http.port is not None
            http = await timed_speech(server.http.port, SENTENCE, "a")
            return [single.audio, stream.audio, http.body]

    plain = asyncio.run(replies())
    trailed = asyncio.run(replies("--trail-silence", "700"))
    for door, before, after in zip(("one-shot", "streamed", "http"), plain, trailed, strict=True):
        assert len(after) == len(before) + 2 * trail, door
        assert pcm_samples(before)[-trail:].any(), door  # without it, speech to the end
        assert not pcm_samples(after[len(before) :]).any(), door
        assert pcm_samples(after[: len(before)])[-trail:].any(), door


def test_ssml_breaks_subs_and_say_as_reach_the_model_as_silence_and_words(
    ssml_server: ServerThread, spoken: list[str]
) -> None:
    ssml = (
        '<speak>Call <say-as interpret-as="telephone">112</say-as> now.'
        '<break time="2s"/>The <sub alias="World Wide Web Consortium">W3C</sub> agrees.</speak>'
    )

    reply = ssml_server.run(one_shot(ssml_server.port, ssml, ssml=True))
    assert not reply.errors
    assert len(spoken) == 2, spoken
    assert "one one two" in spoken[0].lower() and "112" not in spoken[0]
    assert "World Wide Web Consortium" in spoken[1] and "W3C" not in spoken[1]
    runs = zero_runs(reply.audio, SAMPLE_RATE * 2)
    # 2 s of digital silence between the sentences (a sample of speech may round to zero too).
    assert len(runs) == 1 and 0 <= runs[0][1] - SAMPLE_RATE * 2 <= 2, runs
    assert 0 < runs[0][0] < len(reply.audio) // 2 - runs[0][1]


def test_streamed_ssml_split_inside_tags_is_spoken_sentence_by_sentence(
    ssml_server: ServerThread, spoken: list[str]
) -> None:
    pieces = [
        "<spe", 'ak>First sentence here.<bre', 'ak time="500ms"/>', "<s", "ub alias=",
        '"Second">2nd</sub> one.', "</speak>",
    ]  # fmt: skip

    async def scenario() -> Reply:
        async with AsyncTcpClient("127.0.0.1", ssml_server.port) as client:
            await client.write_event(SynthesizeStart(text_format="ssml").event())
            for piece in pieces:
                await client.write_event(SynthesizeChunk(text=piece).event())
            await client.write_event(SynthesizeStop().event())
            return await read_until(client, "synthesize-stopped")

    reply = ssml_server.run(scenario())
    assert not reply.errors
    assert [text.strip(" .") for text in spoken] == ["First sentence here", "Second one"], spoken
    assert len(zero_runs(reply.audio, SAMPLE_RATE // 2)) == 1


@pytest.mark.parametrize(
    "hostile",
    [
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
        '&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><speak>&c;</speak>',
        '<!DOCTYPE speak [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>&x;</speak>',
        "<speak>" + "<p>" * 4000 + "Deep." + "</p>" * 4000 + "</speak>",
        "<speak>Broken <break time=</speak> tail.",
        "<speak><!--" + "x" * 100_000 + "-->Short.</speak>",
    ],
    ids=["billion-laughs", "external-entity", "deep", "malformed", "huge"],
)
def test_hostile_ssml_is_answered_and_the_server_keeps_serving(
    ssml_server: ServerThread, spoken: list[str], hostile: str
) -> None:
    port = ssml_server.port
    reply = ssml_server.run(one_shot(port, hostile, ssml=True))
    after = ssml_server.run(one_shot(port, "Still here."))
    assert reply.types[-1] == AUDIO_STOP
    assert {error.code for error in reply.errors} <= {"text-too-long"}
    assert after.audio and not after.errors
    assert not any("root:" in text or "aaaaaaaaaa" in text for text in spoken)
