"""The OpenAI-compatible HTTP API, driven with the real `openai` client over real TCP.

The server runs in this process (its engine, scheduler and voices are the real ones, on the
tiny endless model) with `--http-port 0`; its Wyoming side answers the same voices, so every
HTTP answer is compared with the Wyoming answer for the same text and voice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import openai

from testkit.model_factory import TinyModel
from testkit.support import differing_samples, running_server, synthesize
from tests.conftest import model_args
from tests.http_support import bounded, client, decode, timed_speech
from wyoming_pocket_tts.server import TtsServer

TEXT = "The kitchen lights are off and the front door is locked."
SHORT_TEXT = "The lights are off."
FORMATS = ("pcm", "wav", "flac", "mp3", "opus")
CODEC_SLACK_S = 0.1
"""Encoders pad the start and end (MP3 by up to ~50 ms here): durations agree within this."""


def http_run(
    model: TinyModel,
    voices: dict[str, Path],
    scenario: Callable[[TtsServer, int], Awaitable[object]],
    *extra: str,
) -> object:
    """Run `scenario(server, http_port)` against a fresh in-process server."""

    async def main() -> object:
        args = model_args(model, voices, "--http-port", "0", *extra)
        async with running_server(args) as server:
            assert server.http is not None and server.http.port
            return await bounded(scenario(server, server.http.port), 240)

    return asyncio.run(main())


async def post(port: int, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{port}/v1/audio/speech", data=body, headers=headers
        ) as response,
    ):
        text = await response.read()
        return response.status, json.loads(text)


def test_every_format_with_create_and_streaming_matches_wyoming(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """Eleven replies (five formats, made and streamed, and the Wyoming reference), of a
    short text: over a second of audio, more than one chunk, and every codec's framing."""

    async def scenario(server: TtsServer, port: int) -> dict:
        reference = await synthesize(server.port or 0, SHORT_TEXT, voice="b")
        answers = {}
        api = client(port)
        for fmt in FORMATS:
            created = await api.audio.speech.create(
                model="pocket-tts", voice="b", input=SHORT_TEXT, response_format=fmt
            )
            streamed = await timed_speech(port, SHORT_TEXT, "b", fmt)
            answers[fmt] = (created.content, streamed.body, created.response.headers)
        return {"reference": reference.audio, "answers": answers}

    result = http_run(endless_model, voices, scenario)
    reference: bytes = result["reference"]  # type: ignore[index]
    expected = decode(reference, "pcm")
    assert expected.seconds > 1.0 and expected.rms > 1e-3, expected.seconds
    for fmt, (created, streamed, headers) in result["answers"].items():  # type: ignore[index]
        assert headers["content-type"].startswith("audio/"), (fmt, headers)
        for body in (created, streamed):
            audio = decode(body, fmt)
            assert audio.rate == (48000 if fmt == "opus" else 24000), fmt  # Ogg Opus decodes at 48k
            assert abs(audio.seconds - expected.seconds) < CODEC_SLACK_S, (fmt, audio.seconds)
            assert audio.rms > 0.3 * expected.rms, (fmt, audio.rms, expected.rms)
        if fmt in ("pcm", "wav", "flac"):  # lossless: the very samples Wyoming sent
            pcm = (decode(created, fmt).samples * 32768).round().astype("<i2").tobytes()
            assert differing_samples(pcm, reference) == 0.0, fmt


def test_model_names_a_language_and_voices_list_their_languages(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario(server: TtsServer, port: int) -> tuple:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/v1/audio/voices") as r:
                listed = await r.json()
            async with session.get(f"http://127.0.0.1:{port}/health") as r:
                health = (r.status, await r.json())
        models = await client(port).models.list()
        # No voice: the default voice of the language `model` names ("en", the first voice a).
        by_model = await client(port).audio.speech.create(
            model="en",
            voice="",
            input=TEXT,
            response_format="pcm",  # type: ignore[arg-type]
        )
        voice_a = await synthesize(server.port or 0, TEXT, voice="a")
        return listed, health, [m.id for m in models.data], by_model.content, voice_a.audio

    listed, health, model_ids, by_model, voice_a = http_run(endless_model, voices, scenario)
    voices = [v for v in listed["data"] if "alias_of" not in v]  # aliases: test_openai_clients
    assert [(v["id"], v["languages"], v["installed"]) for v in voices] == [
        ("a", ["en"], True),
        ("b", ["en"], True),
    ]
    assert health == (200, {"status": "ok", "state": "ready"})
    assert "pocket-tts" in model_ids and "en" in model_ids
    assert differing_samples(by_model, voice_a) == 0.0


def test_bad_requests_get_a_clear_4xx_and_the_server_keeps_serving(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    json_type = {"Content-Type": "application/json"}
    good = {"model": "pocket-tts", "voice": "a", "input": "Fine.", "response_format": "pcm"}

    async def scenario(server: TtsServer, port: int) -> dict:
        api = client(port)
        seen: dict[str, tuple[int, dict]] = {}
        for name, changes in {
            "unknown voice": {"voice": "nobody"},
            "empty input": {"input": "  "},
            "unknown format": {"response_format": "ogg-vorbis"},
            "aac": {"response_format": "aac"},
            "speed": {"speed": 3.0},
            "input too long": {"input": "word " * 100},
        }.items():
            try:
                await api.audio.speech.create(**(good | changes))  # type: ignore[arg-type]
            except openai.APIStatusError as error:
                seen[name] = (error.status_code, error.body or {})
        seen["oversize body"] = await post(
            port, b'{"input": "' + b"a" * 10_000_000 + b'"}', json_type
        )
        seen["wrong content type"] = await post(
            port, json.dumps(good).encode(), {"Content-Type": "text/plain"}
        )
        seen["not json"] = await post(port, b"{nope", json_type)
        after = await api.audio.speech.create(**good)  # type: ignore[arg-type]
        wyoming = await synthesize(server.port or 0, "Fine.", voice="a")
        return {"seen": seen, "after": after.content, "wyoming": wyoming.audio}

    result = http_run(endless_model, voices, scenario, "--max-text-chars", "200")
    seen = result["seen"]  # type: ignore[index]
    expected = {
        "unknown voice": (400, "unknown-voice"),
        "empty input": (400, "empty-input"),
        "unknown format": (400, "unsupported-response-format"),
        "aac": (400, "unsupported-response-format"),
        "speed": (400, "unsupported-speed"),
        "input too long": (400, "input-too-long"),
        "oversize body": (413, "body-too-large"),
        "wrong content type": (415, "unsupported-media-type"),
        "not json": (400, "invalid-json"),
    }
    assert {
        name: (status, body.get("code") if "code" in body else body["error"]["code"])
        for name, (status, body) in seen.items()
    } == expected
    for _, body in seen.values():
        error = body.get("error", body)
        assert error["message"] and error["type"]
    assert "a, b" in seen["unknown voice"][1]["message"]  # lists valid voices
    assert differing_samples(result["after"], result["wyoming"]) == 0.0  # type: ignore[index]


def test_a_token_is_required_when_set_and_health_needs_none(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario(server: TtsServer, port: int) -> tuple:
        outcomes = []
        for token in ("wrong", "secret-token-x", "secret-token"):
            try:
                await client(port, token).audio.speech.create(
                    model="pocket-tts", voice="a", input="Hello.", response_format="pcm"
                )
                outcomes.append(200)
            except openai.APIStatusError as error:
                outcomes.append((error.status_code, (error.body or {}).get("code")))
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/health") as response,
        ):
            health = response.status
        return outcomes, health

    outcomes, health = http_run(endless_model, voices, scenario, "--http-token", "secret-token")
    assert outcomes == [(401, "invalid-api-key"), (401, "invalid-api-key"), 200]
    assert health == 200


def test_cors_only_for_the_configured_origin(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    origin = "http://webui.local:3000"

    async def scenario(server: TtsServer, port: int) -> list:
        url = f"http://127.0.0.1:{port}/v1/audio/speech"
        preflight = {"Access-Control-Request-Method": "POST"}
        seen = []
        async with aiohttp.ClientSession() as session:
            for who in (origin, "http://evil.example"):
                async with session.options(url, headers=preflight | {"Origin": who}) as r:
                    seen.append((r.status, r.headers.get("Access-Control-Allow-Origin")))
                body = {"voice": "a", "input": "Hi.", "response_format": "pcm"}
                async with session.post(url, json=body, headers={"Origin": who}) as r:
                    await r.read()
                    seen.append((r.status, r.headers.get("Access-Control-Allow-Origin")))
        return seen

    seen = http_run(endless_model, voices, scenario, "--http-cors", origin)
    assert seen == [(204, origin), (200, origin), (403, None), (200, None)]


def test_no_http_port_means_no_http_side(endless_model: TinyModel, voices: dict[str, Path]) -> None:
    async def main() -> object:
        async with running_server(model_args(endless_model, voices)) as server:
            return server.http

    assert asyncio.run(main()) is None


def test_a_full_queue_answers_503_busy_as_json(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    async def scenario(server: TtsServer, port: int) -> list:
        async def one(n: int) -> object:
            try:
                answer = await client(port, timeout=120).audio.speech.create(
                    model="pocket-tts", voice="a", input=f"Request {n}.", response_format="pcm"
                )
                return len(answer.content)
            except openai.APIStatusError as error:
                return (error.status_code, (error.body or {}).get("code"))

        return list(await asyncio.gather(*(one(n) for n in range(6))))

    outcomes = http_run(endless_model, voices, scenario, "--max-queue", "1")
    busy = [o for o in outcomes if isinstance(o, tuple)]  # type: ignore[union-attr]
    served = [o for o in outcomes if isinstance(o, int)]  # type: ignore[union-attr]
    assert busy and set(busy) == {(503, "busy")}, outcomes
    assert served and all(size > 0 for size in served), outcomes
