"""A value's path where it meets a second feature: from the front door to what pocket-tts is asked
(`wire_support.pocket_tts_calls`) or what the client receives, through the real server.

The doors' common paths are tested elsewhere; these are the ones a break survived in (issue 51):
a format's content type, a reply cut short, loudness at another speed, SSML's `xml:lang` with
the household's pronunciations and with another language's model, and HTTP's `model` naming a
language. Two tiny random models stand for two languages, as in
tests/server/test_several_languages.py.
"""

from __future__ import annotations

import asyncio
import io
import signal
from pathlib import Path

import aiohttp
import av
import numpy as np
import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize, SynthesizeVoice

from testkit.model_factory import TinyModel
from testkit.support import (
    AUDIO_STOP,
    Reply,
    ServerProcess,
    differing_samples,
    pcm_samples,
    read_until,
    running_server,
    synthesize,
)
from tests.conftest import model_args
from tests.http_support import client
from tests.server.test_several_languages import two_language_args
from tests.wire_support import Call, pocket_tts_calls
from wyoming_pocket_tts.audio.encode import FORMATS
from wyoming_pocket_tts.errors import SHUTDOWN
from wyoming_pocket_tts.settings import SAMPLE_RATE

pytestmark = pytest.mark.timeout(240)

MEDIA_TYPES = {
    "wav": ("wav", "audio/wav"),
    "mp3": ("mp3", "audio/mpeg"),
    "flac": ("flac", "audio/flac"),
    "opus": ("ogg", "audio/ogg"),
}
"""Per compressed format: the container FFmpeg finds in the body, and its media type (IANA),
written here independently of the server's table."""


async def one_shot(port: int, text: str, voice: str | None = None, ssml: bool = False) -> Reply:
    """A `synthesize` (SSML if `ssml`, Wyoming 1.10's `text_format`), read to its `audio-stop`."""
    async with AsyncTcpClient("127.0.0.1", port) as client_:
        await client_.write_event(
            Synthesize(
                text=text,
                voice=SynthesizeVoice(name=voice) if voice else None,
                text_format="ssml" if ssml else None,
            ).event()
        )
        return await read_until(client_, AUDIO_STOP)


def test_each_format_is_served_with_its_own_content_type(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: MP3 (or any format) served with another format's Content-Type (WAV's),
    which players and Home Assistant's media pipeline trust over the bytes. Every format the
    server offers is asked for over HTTP; the body is decoded by FFmpeg and its container must
    be the one the Content-Type names (raw PCM: `audio/pcm`, 16-bit samples)."""

    async def scenario() -> dict[str, tuple[str, str, int]]:
        args = model_args(endless_model, voices, "--http-port", "0")
        seen = {}
        async with running_server(args) as server:
            assert server.http is not None and server.http.port
            api = client(server.http.port)
            for fmt in FORMATS:
                async with api.audio.speech.with_streaming_response.create(
                    model="pocket-tts", voice="a", input="Lights on.", response_format=fmt
                ) as response:
                    body = await response.read()
                    media = response.headers["content-type"].split(";")[0].strip()
                if fmt == "pcm":
                    seen[fmt] = ("", media, len(body) % 2)
                    continue
                with av.open(io.BytesIO(body)) as container:
                    frames = sum(1 for _ in container.decode(audio=0))
                    seen[fmt] = (container.format.name.split(",")[0], media, frames > 0)
        return seen

    seen = asyncio.run(scenario())
    assert set(seen) == {"pcm", *MEDIA_TYPES}, "a format without an expected media type"
    assert seen.pop("pcm") == ("", "audio/pcm", 0)
    assert seen == {fmt: (*MEDIA_TYPES[fmt], True) for fmt in MEDIA_TYPES}


def trailing_zeros(audio: bytes) -> int:
    """Samples of exact silence at the end."""
    samples = pcm_samples(audio)
    loud = np.flatnonzero(samples)
    return int(samples.size if loud.size == 0 else samples.size - 1 - loud[-1])


def test_a_cut_reply_ends_without_the_trailing_silence(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Guards the break: the trailing silence (`--trail-silence`) added to a reply that was cut
    (`SpeechRequest.end` without its `stop` check), so a speaker plays 2 s of nothing after
    speech that stopped mid-word, before the error. A whole reply ends with the 2 s; a reply
    cut by the server's shutdown (SIGTERM, after its first audio) ends at once."""
    trail = 2 * SAMPLE_RATE
    args = model_args(endless_model, voices, "--trail-silence", "2000", "--lead-silence", "0")
    long_text = " ".join(["The garage door is open and the lights are on."] * 8)

    async def cut(server: ServerProcess) -> Reply:
        async with AsyncTcpClient("127.0.0.1", server.port) as client_:
            await client_.write_event(Synthesize(text=long_text).event())
            reply = await read_until(client_, "audio-chunk")
            await asyncio.to_thread(server.process.send_signal, signal.SIGTERM)
            return await read_until(client_, AUDIO_STOP, reply)

    with ServerProcess(args, tmp_path / "server.log") as server:
        server.wait_for_log("Ready")
        whole = asyncio.run(synthesize(server.port, "Lights on."))
        stopped = asyncio.run(cut(server))
        assert server.stop(signalled=True) == 0
    assert not whole.errors and trailing_zeros(whole.audio) >= trail
    assert [e.code for e in stopped.errors] == [SHUTDOWN], stopped.errors
    assert len(stopped.audio) > 0 and trailing_zeros(stopped.audio) < trail // 10


def test_loudness_reaches_every_sample_at_another_speed(
    slim_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: at a speed other than 1, the rate changer's last 20 ms of each
    sentence (`ReplyShaper.end`) sent without the voice's loudness gain. The same two sentences
    at speed 1.3 from a server with `--loudness off` and one with a quiet target: every sample
    of the second is the first's times one gain (within the two 16-bit truncations), the ends
    included."""
    text = "The front door is locked. The kitchen lights are off."

    async def spoken(loudness: str) -> bytes:
        args = model_args(slim_model, {"q": voices["a"]}, "--loudness", loudness)
        args[args.index(f"q={voices['a']}")] += ",speed=1.3"
        async with running_server(args) as server:
            reply = await synthesize(server.port or 0, text, voice="q")
        assert not reply.errors
        return reply.audio

    plain = pcm_samples(asyncio.run(spoken("off"))).astype(np.float64)
    quiet = pcm_samples(asyncio.run(spoken("-50"))).astype(np.float64)
    assert plain.size == quiet.size > SAMPLE_RATE
    heard = np.abs(plain) > 200
    gain = float(np.median(quiet[heard] / plain[heard]))
    assert gain < 0.5, gain  # far from 1: a sample without it stands out
    off = np.abs(quiet - gain * plain)
    assert off.max() <= 2, (int(off.argmax()), plain.size)  # two truncations: under 2 steps


def saying(calls: list[Call], word: str) -> list[Call]:
    return [call for call in calls if word in call.text]


def named(call: Call, references: dict[str, Call]) -> tuple[str, str]:
    """Which reference's model and which one's voice state `call` was given (by identity)."""
    model = next((n for n, r in references.items() if r.model is call.model), "another model")
    state = next((n for n, r in references.items() if r.state is call.state), "another voice")
    return model, state


def test_an_xml_lang_switch_speaks_in_that_languages_model_and_voice(
    endless_model: TinyModel, tiny_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: SSML's `xml:lang` switch inverted (`Session._voice_of`), so a French
    passage in an English request is read by the English model and voice, and an English one
    by another voice. pocket-tts must be handed the French sentence with the French model and
    mamie's state (those of a plain French request), the English ones with anna's."""
    ssml = (
        '<speak>Hello there. <lang xml:lang="fr-FR">Bonsoir Gaston.</lang> '
        '<lang xml:lang="en-US">Goodbye now.</lang></speak>'
    )

    async def scenario(calls: list[Call]) -> tuple[Reply, Call, Call]:
        async with running_server(two_language_args(endless_model, tiny_model, voices)) as server:
            port = server.port or 0
            for text, voice in (("Salut Marcel.", "mamie"), ("Hiya Rupert.", "anna")):
                reference = await one_shot(port, text, voice)
                assert reference.audio and not reference.errors
            (french,), (english,) = saying(calls, "Marcel"), saying(calls, "Rupert")
            return await one_shot(port, ssml, "anna", ssml=True), french, english

    with pocket_tts_calls() as calls:
        reply, french, english = asyncio.run(scenario(calls))
    assert reply.audio and not reply.errors
    references = {"fr": french, "en": english}
    assert english.model is not french.model
    words = ("Hello", "Gaston", "Goodbye")
    spoken = {w: named(c, references) for w in words for c in saying(calls, w)}
    assert spoken == {"Hello": ("en", "en"), "Gaston": ("fr", "fr"), "Goodbye": ("en", "en")}


def test_pronunciations_apply_inside_an_xml_lang_switch(
    slim_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Guards the break: the household's pronunciations left out of the text inside an SSML
    `xml:lang` switch (`SsmlStream._text` giving the splitter no `pronounce` there). With
    `Zorg -> Lights` saved for English, pocket-tts must be handed "Lights" inside `<lang
    xml:lang="en-GB">` and `<voice xml:lang="en">` as outside them."""
    data = tmp_path / "data"
    (data / "pronunciations").mkdir(parents=True)
    (data / "pronunciations" / "en.txt").write_text("Zorg -> Lights\n", encoding="utf-8")
    args = model_args(slim_model, {"a": voices["a"]}, "--data-dir", str(data))
    ssml = (
        '<speak>Zorg one. <lang xml:lang="en-GB">Zorg two.</lang> '
        '<voice xml:lang="en">Zorg three.</voice></speak>'
    )

    async def scenario() -> Reply:
        async with running_server(args) as server:
            return await one_shot(server.port or 0, ssml, "a", ssml=True)

    with pocket_tts_calls() as calls:
        reply = asyncio.run(scenario())
    assert reply.audio and not reply.errors
    texts = [call.text for call in calls if any(n in call.text for n in ("one", "two", "three"))]
    assert texts == ["Lights one.", "Lights two.", "Lights three."], texts


def test_a_passage_in_another_language_gets_that_languages_pronunciations(
    endless_model: TinyModel, tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Guards the bug found here: inside `<lang xml:lang="fr">` of an English request, the French
    voice spoke the passage with the English household entries, and the French ones (saved for
    exactly that voice) were ignored. Each passage must get the entries of the language whose
    voice speaks it; a language no model serves is spoken by the request's voice, with its."""
    data = tmp_path / "data"
    (data / "pronunciations").mkdir(parents=True)
    (data / "pronunciations" / "en.txt").write_text("Zorg -> Lights\n", encoding="utf-8")
    (data / "pronunciations" / "fr.txt").write_text("Zorg -> Lumières\n", encoding="utf-8")
    args = [*two_language_args(endless_model, tiny_model, voices), "--data-dir", str(data)]
    ssml = (
        '<speak>Zorg one. <lang xml:lang="fr-FR">Zorg deux.</lang> '
        '<lang xml:lang="de">Zorg drei.</lang></speak>'
    )

    async def scenario() -> Reply:
        async with running_server(args) as server:
            return await one_shot(server.port or 0, ssml, "anna", ssml=True)

    with pocket_tts_calls() as calls:
        reply = asyncio.run(scenario())
    assert reply.audio and not reply.errors
    texts = [call.text for call in calls if any(n in call.text for n in ("one", "deux", "drei"))]
    assert texts == ["Lights one.", "Lumières deux.", "Lights drei."], texts


def test_http_model_names_the_language_of_the_voice_without_one(
    endless_model: TinyModel, tiny_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the break: HTTP's `model: "fr"` (or `fr-FR`, `french`'s code) without a `voice`
    spoken with the English default voice and model. pocket-tts must be handed the text with
    the French model and mamie's state, the same audio as `voice: "mamie"`."""

    text = "Bonsoir Gaston."

    async def scenario(calls: list[Call]) -> dict[str, tuple[bytes, Call]]:
        args = [*two_language_args(endless_model, tiny_model, voices), "--http-port", "0"]
        seen = {}
        async with running_server(args) as server, aiohttp.ClientSession() as session:
            assert server.http is not None and server.http.port
            url = f"http://127.0.0.1:{server.http.port}/v1/audio/speech"
            asks = {
                "voice mamie": {"model": "pocket-tts", "voice": "mamie"},
                "model fr": {"model": "fr"},
                "model fr-FR": {"model": "fr-FR"},
            }
            for label, ask in asks.items():
                before = len(calls)
                body = {"input": text, "response_format": "pcm", **ask}
                async with session.post(url, json=body) as answer:
                    assert answer.status == 200, (label, await answer.text())
                    audio = await answer.read()
                (call,) = saying(calls[before:], "Gaston")
                seen[label] = (audio, call)
        return seen

    with pocket_tts_calls() as calls:
        seen = asyncio.run(scenario(calls))
    reference_audio, reference = seen.pop("voice mamie")
    english = next(c for c in calls if c.model is not reference.model)  # its speed check
    references = {"mamie's": reference, "english": english}
    assert {label: named(call, references) for label, (_, call) in seen.items()} == {
        "model fr": ("mamie's", "mamie's"),
        "model fr-FR": ("mamie's", "mamie's"),
    }
    for label, (audio, _) in seen.items():
        assert differing_samples(audio, reference_audio) == 0, label
