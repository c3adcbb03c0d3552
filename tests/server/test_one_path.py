"""Every front door, every text format, every feature together, through one real server.

One in-process server (tiny random model) serves the whole module with every feature on at once:
a household pronunciation (`Nguyen -> Win`), numbers read as words, a voice with its own speed,
`--lead-silence`, `--sentence-pause` and `--loudness`. The same words in the same voice go
through each front door (Wyoming one-shot, Wyoming streamed, HTTP) as plain text and as SSML;
every door must hand pocket-tts the same text and return the same audio length (± a frame).

The text pocket-tts receives is recorded by wrapping (not replacing) pocket-tts's
`split_into_best_sentences`, as tests/server/test_numbers_server.py does: the engine cuts every
piece of text with it before generating.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import numpy as np
import pytest
from pocket_tts.models import text_chunking
from wyoming.client import AsyncTcpClient
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

from testkit.model_factory import TinyModel
from testkit.support import (
    AUDIO_STOP,
    Reply,
    differing_samples,
    pcm_samples,
    read_until,
)
from tests.conftest import model_args
from tests.server_thread import ServerThread
from wyoming_pocket_tts.audio.loudness import integrated_loudness
from wyoming_pocket_tts.engine.tuning import timing
from wyoming_pocket_tts.languages import RECORDS
from wyoming_pocket_tts.settings import SAMPLE_RATE, SAMPLE_WIDTH

from .test_loudness import samples_of
from .test_speech_controls import zero_runs

T = TypeVar("T")

FRAME_BYTES = SAMPLE_RATE // 12 * SAMPLE_WIDTH
"""One Mimi frame (12.5 per second) of 16-bit PCM: 1920 samples."""
LEAD_MS, PAUSE_MS = 240, 400
_NOT_REQUESTS = {timing.SHORT_TEXT, timing.LONG_TEXT, *(r.calibration for r in RECORDS.values())}
"""Texts the engine speaks for itself (a model's speed check, a voice's loudness measure)."""

CASES = {
    "pronunciation": ("Nguyen called.", "Win called."),
    "number": ("We have 21 apples.", "We have twenty-one apples."),
    "two sentences": ("Nguyen is home. The door has 3 locks.",
                      "Win is home. The door has three locks."),
}  # fmt: skip
"""Input -> the text pocket-tts must receive, whatever the door and format."""
QUICK = 1.25
"""`quick` is `plain`'s recording at its own speed."""
DOORS = ("one-shot", "streamed", "http")
FORMATS = ("plain", "ssml")


@pytest.fixture(scope="module")
def model_texts() -> Iterator[list[str]]:
    """Every text the engine hands pocket-tts to speak for a request, in order."""
    recorded: list[str] = []
    lock = threading.Lock()
    split = text_chunking.split_into_best_sentences

    def recording(tokenizer: Any, text_to_generate: str, *args: Any, **kwargs: Any) -> Any:
        if text_to_generate not in _NOT_REQUESTS:
            with lock:
                recorded.append(text_to_generate)
        return split(tokenizer, text_to_generate, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_chunking, "split_into_best_sentences", recording)
        yield recorded


@pytest.fixture(scope="module")
def server(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
    model_texts: list[str],
) -> Iterator[ServerThread]:
    data = tmp_path_factory.mktemp("one-path-data")
    (data / "pronunciations").mkdir()
    (data / "pronunciations" / "en.txt").write_text("Nguyen -> Win\n", encoding="utf-8")
    args = model_args(
        tiny_model,
        {"plain": voices["a"], "quick": voices["a"]},
        "--data-dir", str(data),
        "--lead-silence", str(LEAD_MS),
        "--sentence-pause", str(PAUSE_MS),
        "--loudness", "-20",
        "--max-text-chars", "200",
    )  # fmt: skip
    args[args.index(f"quick={voices['a']}")] += f",speed={QUICK}"
    running = ServerThread(args)
    yield running
    running.close()


@dataclass
class Heard:
    """What pocket-tts was handed and what the client got back."""

    texts: list[str]
    audio: bytes
    errors: list[str]


def ssml_of(text: str) -> str:
    return f"<speak>{text}</speak>"


async def one_shot(port: int, text: str, voice: str, ssml: bool) -> Reply:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        request = Synthesize(
            text=text, voice=SynthesizeVoice(name=voice), text_format="ssml" if ssml else None
        )
        await client.write_event(request.event())
        return await read_until(client, AUDIO_STOP)


async def streamed(port: int, text: str, voice: str, ssml: bool) -> Reply:
    """As Home Assistant streams: word by word, the whole text again (ignored), then stop."""
    async with AsyncTcpClient("127.0.0.1", port) as client:
        chosen = SynthesizeVoice(name=voice)
        start = SynthesizeStart(voice=chosen, text_format="ssml" if ssml else None)
        await client.write_event(start.event())
        first, *rest = text.split(" ")
        for word in [first, *(" " + word for word in rest)]:
            await client.write_event(SynthesizeChunk(text=word).event())
        await client.write_event(Synthesize(text=text, voice=chosen).event())
        await client.write_event(SynthesizeStop().event())
        return await read_until(client, SynthesizeStopped().event().type)


async def http(
    port: int, text: str, voice: str, speed: float | None = None
) -> tuple[bytes, list[str]]:
    """OpenAI's speech API, raw PCM; SSML is recognised by its `<speak>` root."""
    body: dict[str, object] = {"model": "pocket-tts", "voice": voice, "input": text}
    body["response_format"] = "pcm"
    if speed is not None:
        body["speed"] = speed
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/v1/audio/speech", json=body) as response,
    ):
        data = await response.read()
        return data, ([] if response.status == 200 else [data.decode(errors="replace")])


def hear(
    server: ServerThread, texts: list[str], door: str, fmt: str, text: str, voice: str
) -> Heard:
    ssml = fmt == "ssml"
    sent = ssml_of(text) if ssml else text
    texts.clear()
    if door == "http":
        audio, errors = server.run(http(server.http_port, sent, voice))
    else:
        speak: Callable[[int, str, str, bool], Awaitable[Reply]]
        speak = one_shot if door == "one-shot" else streamed
        reply = server.run(speak(server.port, sent, voice, ssml))
        audio, errors = reply.audio, [f"{e.code}: {e.text}" for e in reply.errors]
    return Heard(list(texts), audio, errors)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_door_and_format_hands_pocket_tts_the_same_text_and_returns_the_same_audio(
    server: ServerThread, model_texts: list[str], case: str
) -> None:
    """In `quick`, the voice with its own speed (the other features are the server's)."""
    text, spoken = CASES[case]
    voice = "quick"
    heard = {
        (door, fmt): hear(server, model_texts, door, fmt, text, voice)
        for door in DOORS
        for fmt in FORMATS
    }
    for where, result in heard.items():
        assert not result.errors, (where, result.errors)
        assert " ".join(result.texts) == spoken, (where, result.texts)
    texts = {where: result.texts for where, result in heard.items()}
    assert len({tuple(t) for t in texts.values()}) == 1, texts
    lengths = {where: len(result.audio) for where, result in heard.items()}
    reference = lengths["one-shot", "plain"]
    assert all(abs(n - reference) <= FRAME_BYTES for n in lengths.values()), lengths
    first = heard["one-shot", "plain"].audio
    differ = {where: differing_samples(r.audio, first) for where, r in heard.items()}
    assert max(differ.values()) == 0.0, differ  # loudness and all: the very same samples


def test_each_feature_is_in_the_audio_every_door_returns(
    server: ServerThread, model_texts: list[str]
) -> None:
    """What the matrix holds equal is really there: the lead-in, the sentence pause, the
    voice's own speed and the loudness target (checked on each door's audio)."""
    lead = SAMPLE_RATE * LEAD_MS // 1000
    pause = SAMPLE_RATE * PAUSE_MS // 1000
    for door in DOORS:
        text = CASES["two sentences"][0]
        two = hear(server, model_texts, door, "plain", text, "plain").audio
        runs = zero_runs(two, lead // 2)
        assert runs[0][0] == 0 and runs[0][1] >= lead, (door, runs)
        assert pcm_samples(two)[lead : lead + 200].any(), door
        assert any(length >= pause for _, length in runs[1:]), (door, runs)
        speech = samples_of(two)
        level = integrated_loudness(speech[np.abs(speech) > 0], SAMPLE_RATE)
        assert abs(level + 20) <= 1.5, (door, level)
        text = CASES["number"][0]
        plain = len(hear(server, model_texts, door, "ssml", text, "plain").audio) // 2
        quick = len(hear(server, model_texts, door, "ssml", text, "quick").audio) // 2
        assert abs((plain - lead) / (quick - lead) - QUICK) < 0.05, (door, plain, quick)


def test_the_http_speed_is_the_speed_a_voice_of_that_speed_speaks_at(
    server: ServerThread, model_texts: list[str]
) -> None:
    text = CASES["number"][0]
    quick = hear(server, model_texts, "http", "plain", text, "quick").audio
    asked, errors = server.run(http(server.http_port, text, "plain", speed=QUICK))
    assert not errors
    assert differing_samples(asked, quick) == 0.0


def test_an_ssml_rate_reaches_the_engine_through_every_door(
    server: ServerThread, model_texts: list[str]
) -> None:
    """`<prosody rate>` on `plain` gives exactly the audio of `quick`, whose speed is the same
    factor: the rate crossed from the SSML parser to the engine through each door."""
    text = CASES["number"][0]
    quick = hear(server, model_texts, "one-shot", "plain", text, "quick").audio
    rated = f'<prosody rate="{QUICK:.0%}">{text}</prosody>'
    for door in DOORS:
        heard = hear(server, model_texts, door, "ssml", rated, "plain")
        assert not heard.errors and heard.texts == [CASES["number"][1]], (door, heard)
        assert differing_samples(heard.audio, quick) == 0.0, door
