"""The HTTP side as OpenAI clients really use it: the `openai` package, Open WebUI's requests
(plain HTTP shaped as its `routers/audio.py` sends them), OpenAI's voice names with and without
`--voice-alias`, and `stream_format: "sse"`.

The server is the real one in this process, on the tiny endless model, with voices a and b;
every audio comparison is against the Wyoming side's answer or the plain HTTP stream, sample
for sample.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from pathlib import Path

import aiohttp
import openai

from testkit.model_factory import TinyModel
from testkit.support import ANOTHER_VOICE, differing_samples, running_server, synthesize
from tests.http_support import bounded, client, decode
from wyoming_pocket_tts.http.aliases import OPENAI_VOICES
from wyoming_pocket_tts.server import TtsServer

from .test_http import http_run
from .test_several_languages import two_language_args

TEXT = "The lights are off."
TOKEN = "s3cret-token"


async def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, await response.json()


def test_open_webui_lists_voices_and_models_and_speaks_alloy(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """As Open WebUI's `backend/open_webui/routers/audio.py` sends them (read at commit
    01fb3e46): `GET {base}/audio/voices` and `{base}/audio/models` without any header, reading
    `voices` and `models`; then `POST {base}/audio/speech` with its model and the voice the user
    picked (OpenAI's `alloy` when the list fell back to OpenAI's names), with its key."""
    body = {"model": "tts-1", "input": TEXT, "voice": "alloy"}

    async def scenario(server: TtsServer, port: int) -> dict:
        base = f"http://127.0.0.1:{port}/v1"
        voices_status, listed = await _get(f"{base}/audio/voices")
        models_status, models = await _get(f"{base}/audio/models")
        headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-anything"}
        async with (
            aiohttp.ClientSession() as session,
            session.post(f"{base}/audio/speech", json=body, headers=headers) as response,
        ):
            speech = (response.status, response.headers["Content-Type"], await response.read())
        default = await synthesize(server.port or 0, TEXT, voice="a")
        return {
            "voices": (voices_status, listed),
            "models": (models_status, models),
            "speech": speech,
            "default": default.audio,
        }

    seen = http_run(endless_model, voices, scenario)
    status, listed = seen["voices"]  # type: ignore[index]
    assert status == 200
    # Open WebUI builds {id: name} from `voices`: the household's voices, nothing else.
    assert {v["id"]: v["name"] for v in listed["voices"]} == {"a": "a", "b": "b"}
    status, models = seen["models"]  # type: ignore[index]
    assert status == 200
    ids = [m["id"] for m in models["models"]]
    assert {"pocket-tts", "tts-1", "tts-1-hd", "en"} <= set(ids), ids
    status, content_type, mp3 = seen["speech"]  # type: ignore[index]
    assert (status, content_type) == (200, "audio/mpeg")
    reference = decode(seen["default"], "pcm")  # type: ignore[index]
    audio = decode(mp3, "mp3")
    assert abs(audio.seconds - reference.seconds) < 0.1 and audio.rms > 0.3 * reference.rms


def test_with_a_token_the_lists_need_it_and_openai_names_still_speak(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """The decision for clients that send no token to the voice list (older Open WebUI): 401,
    like every route but /health (the names are the household's). Such a client falls back to
    OpenAI's names, and those speak."""

    async def scenario(server: TtsServer, port: int) -> dict:
        base = f"http://127.0.0.1:{port}/v1"
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        seen = {}
        for path in ("audio/voices", "audio/models", "models"):
            without, with_token = await _get(f"{base}/{path}"), await _get(f"{base}/{path}", bearer)
            seen[path] = (without[0], with_token[0])
        spoken = await client(port, TOKEN).audio.speech.create(
            model="tts-1",
            voice="shimmer",
            input=TEXT,
            response_format="pcm",  # type: ignore[arg-type]
        )
        seen["spoken"] = spoken.content
        seen["default"] = (await synthesize(server.port or 0, TEXT, voice="a")).audio
        return seen

    seen = http_run(endless_model, voices, scenario, "--http-token", TOKEN)
    assert {path: seen[path] for path in ("audio/voices", "audio/models", "models")} == {  # type: ignore[index]
        "audio/voices": (401, 200),
        "audio/models": (401, 200),
        "models": (401, 200),
    }
    assert differing_samples(seen["spoken"], seen["default"]) == 0.0  # type: ignore[index]


def test_openai_names_speak_the_default_voice_unless_mapped(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """`--voice-alias nova=b`: nova speaks as b; alloy (unmapped) as the default voice a; an
    alias to no voice, an unknown name and a path are a 400 `unknown-voice`, and nothing else
    is looked up than the voice table."""

    async def scenario(server: TtsServer, port: int) -> dict:
        api = client(port)
        seen: dict[str, object] = {}
        for voice in ("nova", "alloy", "verse"):
            answer = await api.audio.speech.create(
                model="pocket-tts",
                voice=voice,
                input=TEXT,
                response_format="pcm",  # type: ignore[arg-type]
            )
            seen[voice] = answer.content
        for voice in ("sage", "nobody", "../b", str(voices["b"])):
            try:
                await api.audio.speech.create(model="tts-1", voice=voice, input=TEXT)
                seen[voice] = 200
            except openai.APIStatusError as error:
                seen[voice] = (error.status_code, (error.body or {}).get("code"), str(error))
        for name in ("a", "b"):
            seen[name] = (await synthesize(server.port or 0, TEXT, voice=name)).audio
        seen["listed"] = (await _get(f"http://127.0.0.1:{port}/v1/audio/voices"))[1]
        return seen

    seen = http_run(
        endless_model, voices, scenario, "--voice-alias", "nova=b", "--voice-alias", "sage=ghost"
    )
    assert differing_samples(seen["nova"], seen["b"]) == 0.0  # type: ignore[index]
    assert differing_samples(seen["alloy"], seen["a"]) == 0.0  # type: ignore[index]
    assert differing_samples(seen["verse"], seen["a"]) == 0.0  # type: ignore[index]
    assert differing_samples(seen["nova"], seen["a"]) > 0.0  # type: ignore[index]
    for voice in ("sage", "nobody", "../b", str(voices["b"])):
        status, code, _ = seen[voice]  # type: ignore[index, misc]
        assert (status, code) == (400, "unknown-voice"), voice
    assert "Voice alias 'sage' names 'ghost'" in seen["sage"][2]  # type: ignore[index]
    listed = seen["listed"]  # type: ignore[index]
    marked = {v["id"]: v["alias_of"] for v in listed["data"] if "alias_of" in v}  # type: ignore[index]
    assert marked == {name: "a" for name in OPENAI_VOICES} | {"nova": "b", "sage": "ghost"}
    installed = {v["id"]: v["installed"] for v in listed["data"]}  # type: ignore[index]
    assert installed["nova"] and not installed["sage"]
    # The dropdown shows the household's voices and the aliases it mapped, marked.
    assert listed["voices"] == [  # type: ignore[index]
        {"id": "a", "name": "a"},
        {"id": "b", "name": "b"},
        {"id": "nova", "name": "nova (b)"},
        {"id": "sage", "name": "sage (ghost)"},
    ]


def _events(body: bytes) -> list[dict]:
    """The JSON of each `data:` line of an event stream; every event is separated by a blank
    line."""
    text = body.decode()
    assert text.endswith("\n\n"), text[-40:]
    events = []
    for block in text.split("\n\n")[:-1]:
        (line,) = block.split("\n")
        assert line.startswith("data: "), line
        events.append(json.loads(line.removeprefix("data: ")))
    return events


def test_sse_carries_the_plain_streams_audio_as_openai_events(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """The `openai` package with `stream_format="sse"`: delta events of base64 audio, then one
    done event; the decoded audio is the plain stream's (pcm and flac), within the one PCM step
    two generations of the same text may differ by."""

    async def scenario(server: TtsServer, port: int) -> dict:
        api = client(port)
        seen: dict[str, object] = {}
        for fmt in ("pcm", "flac"):
            async with api.audio.speech.with_streaming_response.create(
                model="pocket-tts",
                voice="b",
                input=TEXT,
                response_format=fmt,  # type: ignore[arg-type]
                stream_format="sse",
            ) as response:
                seen[f"{fmt} type"] = response.headers["content-type"]
                seen[f"{fmt} sse"] = await response.read()
            plain = await api.audio.speech.create(
                model="pocket-tts",
                voice="b",
                input=TEXT,
                response_format=fmt,  # type: ignore[arg-type]
            )
            seen[f"{fmt} plain"] = plain.content
        try:
            await api.audio.speech.create(
                model="pocket-tts",
                voice="b",
                input=TEXT,
                stream_format="websocket",  # type: ignore[arg-type]
            )
        except openai.APIStatusError as error:
            seen["refused"] = (error.status_code, (error.body or {}).get("code"))
        return seen

    seen = http_run(endless_model, voices, scenario)
    assert seen["refused"] == (400, "invalid-value")  # type: ignore[index]
    for fmt in ("pcm", "flac"):
        assert seen[f"{fmt} type"] == "text/event-stream"  # type: ignore[index]
        events = _events(seen[f"{fmt} sse"])  # type: ignore[index]
        assert len(events) >= 3, events  # audio in more than one delta, then done
        *deltas, done = events
        assert {e["type"] for e in deltas} == {"speech.audio.delta"}
        assert done == {
            "type": "speech.audio.done",
            "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        }
        audio = b"".join(base64.b64decode(e["audio"]) for e in deltas)
        plain = seen[f"{fmt} plain"]  # type: ignore[index]
        assert differing_samples(_pcm(audio, fmt), _pcm(plain, fmt)) == 0.0, fmt  # type: ignore[arg-type]


def _pcm(body: bytes, fmt: str) -> bytes:
    """A lossless answer's samples as 16-bit PCM (what `differing_samples` compares)."""
    return (decode(body, fmt).samples * 32768).round().astype("<i2").tobytes()


def test_open_webuis_list_leaves_out_a_voice_that_cannot_speak(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """A configured voice whose file is not audio: once the engine has tried it, `data` lists it
    as not installed, and `voices` (what Open WebUI offers) leaves it out."""
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF" + b"\0" * 64)

    async def scenario(server: TtsServer, port: int) -> dict:
        # Whichever the answer, the engine's failure to load the voice is what counts here.
        with contextlib.suppress(openai.APIStatusError):
            await client(port).audio.speech.create(
                model="pocket-tts",
                voice="broken",
                input=TEXT,
                response_format="pcm",  # type: ignore[arg-type]
            )
        return (await _get(f"http://127.0.0.1:{port}/v1/audio/voices"))[1]

    listed = http_run(endless_model, voices | {"broken": broken}, scenario)
    installed = {v["id"]: v["installed"] for v in listed["data"]}  # type: ignore[index]
    assert installed["broken"] is False and installed["a"] is True
    assert [v["id"] for v in listed["voices"]] == ["a", "b"]  # type: ignore[index]


def test_a_household_nova_speaks_as_itself_and_an_openai_name_follows_the_model(
    endless_model: TinyModel, tiny_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Guards the breaks: OpenAI's names looked up before the household's voices (`_voice`), so
    a voice the household named `nova` spoke with the default voice; and an unmapped OpenAI name
    spoken with the first language's default voice whatever `model` named. Two languages (en:
    anna, fr: mamie) and a household voice `nova`, through the real `openai` client: `nova`
    speaks as the Wyoming side's `nova`, not as anna; `alloy` with `model: "fr"` as mamie, and
    with `model: "tts-1"` as anna; no voice (or "") with `model: "fr"` as mamie; an unknown
    voice is refused with the voices listed (no "..." for three)."""
    args = [*two_language_args(endless_model, tiny_model, voices), "--voice", f"nova={voices['b']}"]

    async def main() -> dict[str, bytes]:
        async with running_server([*args, "--http-port", "0"]) as server:
            assert server.http is not None and server.http.port
            api = client(server.http.port)
            seen = {}
            for key, model, voice in (
                ("nova", "tts-1", "nova"), ("alloy fr", "fr", "alloy"), ("alloy", "tts-1", "alloy")
            ):  # fmt: skip
                answer = await api.audio.speech.create(
                    model=model,
                    voice=voice,
                    input=TEXT,
                    response_format="pcm",  # type: ignore[arg-type]
                )
                seen[key] = answer.content
            url = f"http://127.0.0.1:{server.http.port}/v1/audio/speech"
            async with aiohttp.ClientSession() as session:
                for key, extra in (("no voice fr", {}), ("empty voice fr", {"voice": ""})):
                    body = {"model": "fr", "input": TEXT, "response_format": "pcm"} | extra
                    async with session.post(url, json=body) as response:
                        assert response.status == 200, await response.text()
                        seen[key] = await response.read()
                body = {"model": "fr", "input": TEXT, "voice": "nobody"}
                async with session.post(url, json=body) as response:
                    seen["unknown"] = (await response.json())["error"]["message"].encode()
            for name in ("nova", "anna", "mamie"):
                seen[f"wyoming {name}"] = (
                    await synthesize(server.port or 0, TEXT, voice=name)
                ).audio
            return seen

    seen = asyncio.run(bounded(main(), 240))
    assert differing_samples(seen["nova"], seen["wyoming nova"]) == 0.0
    assert differing_samples(seen["nova"], seen["wyoming anna"]) > ANOTHER_VOICE
    assert differing_samples(seen["alloy fr"], seen["wyoming mamie"]) == 0.0
    assert differing_samples(seen["no voice fr"], seen["wyoming mamie"]) == 0.0
    assert differing_samples(seen["empty voice fr"], seen["wyoming mamie"]) == 0.0
    assert b"voices here: anna, mamie, nova (all:" in seen["unknown"], seen["unknown"]
    assert differing_samples(seen["alloy"], seen["wyoming anna"]) == 0.0
    assert len(seen["alloy fr"]) != len(seen["wyoming anna"])  # the French model spoke
