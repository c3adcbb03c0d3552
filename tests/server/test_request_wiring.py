"""Requests where they meet a second request, a slow client or a server still loading: through
the real in-process server over real TCP (Wyoming's client, aiohttp).

The breaks these guard survived the suite (issue 51): each test names its own.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
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
from testkit.support import (
    ANOTHER_VOICE,
    AUDIO_STOP,
    Reply,
    differing_samples,
    fixed_tuning,
    read_until,
    running_server,
    synthesize,
)
from tests.conftest import model_args
from tests.wire_support import pocket_tts_calls
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.serving import pool as models_module
from wyoming_pocket_tts.engine.serving.request import SpeechRequest
from wyoming_pocket_tts.engine.serving.scheduler import Scheduler
from wyoming_pocket_tts.errors import STREAM_TIMEOUT
from wyoming_pocket_tts.server import TtsServer
from wyoming_pocket_tts.settings import SAMPLE_RATE, SAMPLE_WIDTH, ModelSettings

pytestmark = pytest.mark.timeout(240)

GATE = 60.0
"""Seconds a test may hold a model load open (a bound, never reached when it passes)."""


def test_each_request_on_a_connection_speaks_in_its_own_voice(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: the voice resolved once per connection (`Line` keeping the first
    request's voice), so Home Assistant's second announcement on a kept connection speaks in
    the first one's voice. On one connection: voice a, then b, then a stream in b; each must
    be what a fresh connection gets for that voice."""
    text = "The front door is locked."

    async def scenario() -> tuple[list[Reply], dict[str, bytes]]:
        async with running_server(model_args(endless_model, voices)) as server:
            port = server.port or 0
            alone = {v: (await synthesize(port, text, voice=v)).audio for v in ("a", "b")}
            replies = []
            async with AsyncTcpClient("127.0.0.1", port) as client:
                for voice in ("a", "b"):
                    request = Synthesize(text=text, voice=SynthesizeVoice(name=voice))
                    await client.write_event(request.event())
                    replies.append(await read_until(client, AUDIO_STOP))
                start = SynthesizeStart(voice=SynthesizeVoice(name="b"))
                await client.write_event(start.event())
                await client.write_event(SynthesizeChunk(text=text).event())
                await client.write_event(SynthesizeStop().event())
                replies.append(await read_until(client, "synthesize-stopped"))
        return replies, alone

    replies, alone = asyncio.run(scenario())
    assert differing_samples(alone["a"], alone["b"]) > ANOTHER_VOICE
    heard = [differing_samples(r.audio, alone[v]) for r, v in zip(replies, "abb", strict=True)]
    assert heard == [0, 0, 0]


def test_a_stream_that_keeps_sending_text_is_not_timed_out(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: a stream's no-text timer (`stream_timeout`) not re-armed by each
    `synthesize-chunk`, so an LLM's reply that streams for longer than the timeout is cut
    with `stream-timeout` although text kept coming. With a 3 s timeout, chunks every 0.3 s
    for 4.8 s are all spoken (a tenth of the timeout apart: room for a loaded machine); a
    stream that then goes quiet for longer is timed out (the timer works)."""
    pieces = [f"Step {n}. " for n in range(16)]

    async def stream(port: int, quiet: float) -> Reply:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(SynthesizeStart().event())
            for piece in pieces:
                await client.write_event(SynthesizeChunk(text=piece).event())
                await asyncio.sleep(0.3)
            await asyncio.sleep(quiet)
            await client.write_event(SynthesizeStop().event())
            return await read_until(client, "synthesize-stopped")

    async def scenario() -> tuple[Reply, Reply]:
        args = model_args(endless_model, voices)
        async with running_server(args, stream_timeout=3.0) as server:
            kept = await stream(server.port or 0, 0.0)
            quiet = await stream(server.port or 0, 4.5)
        return kept, quiet

    kept, quiet = asyncio.run(scenario())
    assert kept.errors == [] and kept.audio
    assert [e.code for e in quiet.errors] == [STREAM_TIMEOUT]


SECOND_OF_AUDIO = SAMPLE_RATE * SAMPLE_WIDTH
LEAD = 3.0
"""Seconds of audio the long reply must have in hand before the announcements come."""


@pytest.fixture
def admitted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[SpeechRequest]]:
    """Every request the scheduler admits, in order (wrapping, not replacing, `admit`)."""
    requests: list[SpeechRequest] = []
    admit = Scheduler.admit

    def recorded(self: Scheduler, request: SpeechRequest) -> None:
        admit(self, request)
        requests.append(request)

    monkeypatch.setattr(Scheduler, "admit", recorded)
    yield requests


def test_announcements_go_ahead_of_a_reply_with_audio_in_hand(
    endless_model: TinyModel, voices: dict[str, Path], admitted: list[SpeechRequest]
) -> None:
    """Guards the break: newcomer-first losing a reply's buffered audio (its listener's
    `plays_until`, or `runs_out_at` ignoring it): a long reply with seconds of audio in hand
    then counts as out of audio, is owed a turn once an announcement overtook it, and a second
    announcement waits for its next sentence.

    A long reply is read while the engine builds a lead on it (`LEAD` seconds of audio in
    hand, checked from the client's side, not timed); two announcements then arrive together.
    pocket-tts must be handed the two announcements one after the other, no sentence of the
    long reply between them; and the long reply's listener must count all its audio as still
    to play from its first chunk on (`plays_until`), which the order alone does not show: a
    lead lost between two of its chunks is back after its next one."""
    long_text = " ".join(f"Sentence {n} of the long reply is here." for n in range(10))
    announcements = {
        "Bravo": "Announcement Bravo: the washing machine has finished its long programme now.",
        "Charlie": "Announcement Charlie: somebody is at the front door and rang the bell twice.",
    }

    async def scenario(calls: list) -> None:
        async with running_server(model_args(endless_model, voices)) as server:
            port = server.port or 0
            async with AsyncTcpClient("127.0.0.1", port) as long_client:
                await long_client.write_event(Synthesize(text=long_text).event())
                reply = await read_until(long_client, "audio-chunk")
                first = time.monotonic()
                while len(reply.audio) / SECOND_OF_AUDIO - (time.monotonic() - first) < LEAD:
                    assert time.monotonic() - first < 60, "no lead: the engine is slower here"
                    await read_until(long_client, "audio-chunk", reply)
                waiting = [
                    asyncio.create_task(synthesize(port, text)) for text in announcements.values()
                ]
                for done in await asyncio.gather(*waiting):
                    assert done.audio and not done.errors
                await read_until(long_client, AUDIO_STOP, reply)

    with pocket_tts_calls() as calls:
        asyncio.run(scenario(calls))
    order = [
        next((name for name in announcements if name in call.text), "long")
        for call in calls
        if "long reply" in call.text or "Announcement" in call.text
    ]
    first = min(order.index(name) for name in announcements)
    assert order[first : first + 2] in (["Bravo", "Charlie"], ["Charlie", "Bravo"]), order
    long_request = admitted[0]
    assert long_request.first_audio_at is not None and long_request.audio_seconds > 2 * LEAD
    plays_until = long_request.listener.plays_until
    assert plays_until is not None
    in_hand = plays_until - long_request.first_audio_at
    assert in_hand >= long_request.audio_seconds - 1e-6, (in_hand, long_request.audio_seconds)


def test_health_answers_503_until_the_model_is_loaded(
    endless_model: TinyModel, voices: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Guards the break: `/health` answering 200 while the model still loads, so a container
    or Home Assistant sends requests to a server that cannot speak yet. The real model load is
    held open by a gate until the test has asked; then `/health` is 200."""
    real = models_module.load_tuned_model
    loading, release = threading.Event(), threading.Event()

    def gated(settings: ModelSettings, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        loading.set()
        release.wait(GATE)
        return real(settings, *args, **kwargs)

    monkeypatch.setattr(models_module, "load_tuned_model", gated)
    args = model_args(endless_model, voices, "--http-port", "0")

    async def health(session: aiohttp.ClientSession, port: int) -> tuple[int, str, str]:
        async with session.get(f"http://127.0.0.1:{port}/health") as answer:
            body = await answer.json()
            return answer.status, body["status"], body["state"]

    async def scenario() -> list[tuple[int, str, str]]:
        argv = ["--uri", "tcp://127.0.0.1:0", *fixed_tuning(args)]
        server = TtsServer(parse_settings(argv))
        seen = []
        try:
            await server.start()
            assert server.http is not None and server.http.port
            assert await asyncio.to_thread(loading.wait, GATE), "the model load never began"
            async with aiohttp.ClientSession() as session:
                seen.append(await health(session, server.http.port))
                release.set()
                await asyncio.wait_for(server.wait_ready(), GATE)
                seen.append(await health(session, server.http.port))
        finally:
            release.set()
            await server.stop()
        return seen

    assert asyncio.run(scenario()) == [(503, "loading", "loading"), (200, "ok", "ready")]
