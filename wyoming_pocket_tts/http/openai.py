"""OpenAI's speech API on our voices: `POST /v1/audio/speech`, `GET /v1/models`,
`GET /v1/audio/voices`.

The answer streams (chunked) while the engine speaks, so the first bytes leave about one
first-audio time after the request. Errors found before any audio are JSON in OpenAI's shape; a
failure after audio has started can only cut the stream short (the connection is dropped, so a
client never mistakes a truncated answer for a whole one).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from aiohttp import web

from .. import errors
from ..audio.encode import FORMATS, Encoder
from ..audio.rate import check_speed
from ..intake import Intake, Session
from ..languages import same_language
from ..service import Service
from ..settings import SAMPLE_RATE, VoiceSpec
from ..text.ssml import looks_like_ssml
from .auth import apply_cors
from .errors import ApiError

_LOGGER = logging.getLogger(__name__)

SERVICE = web.AppKey("service", Service)
MODEL_ID = "pocket-tts"
DEFAULT_FORMAT = "mp3"
"""OpenAI's default `response_format`."""
LISTED_VOICES = 8
"""How many valid voice names an unknown-voice error lists."""
_OTHER_FORMATS = {"aac": "aac is not available: the bundled encoder (libsndfile) has no AAC"}


def add_routes(app: web.Application) -> None:
    app.router.add_post("/v1/audio/speech", create_speech)
    app.router.add_get("/v1/models", list_models)
    app.router.add_get("/v1/audio/voices", list_voices)


async def list_models(request: web.Request) -> web.Response:
    """`pocket-tts` plus each language's model, under its name and its code."""
    service = request.app[SERVICE]
    created = int(time.time())
    ids = [MODEL_ID]
    for model in service.engine.settings.models:
        ids += [name for name in (model.model, model.code) if name and name not in ids]
    data = [{"id": i, "object": "model", "created": created, "owned_by": "kyutai"} for i in ids]
    return web.json_response({"object": "list", "data": data})


async def list_voices(request: web.Request) -> web.Response:
    """Every voice with its language and whether it can speak now (as `info` says)."""
    service = request.app[SERVICE]
    info = service.info().tts[0]
    voices = [
        {"id": v.name, "name": v.name, "languages": v.languages, "installed": v.installed}
        for v in info.voices
    ]
    return web.json_response({"object": "list", "data": voices, "default": voices[0]["id"]})


async def create_speech(request: web.Request) -> web.StreamResponse:
    service = request.app[SERVICE]
    body = await _read_body(request)
    fmt = _response_format(body.get("response_format", DEFAULT_FORMAT))
    speed = _speed(body.get("speed"))
    if body.get("stream_format", "audio") != "audio":
        raise ApiError.of(
            errors.INVALID_VALUE, "Only stream_format 'audio' is supported", "stream_format"
        )
    raw = body.get("input")
    if not isinstance(raw, str):
        raise ApiError.of(errors.INVALID_VALUE, "'input' must be a string of text", "input")
    intake = Intake(service)
    if (too_long := intake.too_long(len(raw))) is not None:
        raise ApiError.of(errors.INPUT_TOO_LONG, too_long.text, "input")
    voice = await _voice(service, body.get("voice"), _language(service, body.get("model")))
    session = await intake.line().open(voice=voice, speed=speed, ssml=looks_like_ssml(raw))
    try:
        await session.speak(raw)
        if not session.spoken and session.failure is None:
            raise ApiError.of(errors.EMPTY_INPUT, "'input' has nothing to say", "input")
        _LOGGER.debug("HTTP speech: %d chars, voice %s, %s", len(raw), voice.name, fmt)
        return await _stream(request, service, session, fmt)
    finally:
        session.cancel()  # a no-op once it has ended


async def _stream(
    request: web.Request, service: Service, session: Session, fmt: str
) -> web.StreamResponse:
    """Write the audio as it comes; the first chunk is awaited before the headers go out, so
    an early failure is still a JSON error."""
    encoder = Encoder(fmt, SAMPLE_RATE)
    response = web.StreamResponse(headers={"Content-Type": encoder.content_type})
    response.enable_chunked_encoding()
    apply_cors(request, response)
    timeout = service.settings.write_timeout
    try:
        async for pcm in session.audio():
            if not response.prepared:
                await response.prepare(request)
            feed = encoder.feed
            out = await asyncio.to_thread(feed, pcm) if encoder.costly else feed(pcm)
            if out:
                await asyncio.wait_for(response.write(out), timeout)
        if (failure := session.failure) is not None:
            if not response.prepared:
                raise ApiError.refusing(failure)
            _LOGGER.warning("Speech failed after audio was sent: %s", failure.text)
            _drop(request)
            return response
        if not response.prepared:
            await response.prepare(request)
        if tail := await asyncio.to_thread(encoder.finish):
            await asyncio.wait_for(response.write(tail), timeout)
        await response.write_eof()
    except (ConnectionError, asyncio.TimeoutError) as error:
        _LOGGER.debug("HTTP client gone: %s", error)
        _drop(request)
    finally:
        encoder.close()
    return response


def _drop(request: web.Request) -> None:
    """End the connection without the chunked terminator: the client sees a cut answer."""
    if request.transport is not None:
        request.transport.abort()


async def _read_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise ApiError.of(
            errors.WRONG_CONTENT_TYPE,
            f"Expected Content-Type application/json, got {request.content_type or 'none'}",
        )
    raw = await request.read()  # bounded by the app's client_max_size (413 past it)
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise ApiError.of(errors.INVALID_JSON, f"The body is not valid JSON: {error}") from None
    if not isinstance(body, dict):
        raise ApiError.of(errors.INVALID_JSON, "The body must be a JSON object")
    return body


def _response_format(value: object) -> str:
    if isinstance(value, str) and value in FORMATS:
        return value
    if isinstance(value, str) and value in _OTHER_FORMATS:
        reason = _OTHER_FORMATS[value]
    else:
        reason = f"Unknown response_format {str(value)[:32]!r}"
    raise ApiError.of(
        errors.UNSUPPORTED_FORMAT,
        f"{reason}; choose one of {', '.join(FORMATS)}",
        "response_format",
    )


def _speed(value: object) -> float | None:
    """The speaking rate asked for (None: the voice's own); outside 0.5-2.0 is a clear 400."""
    if value is None:
        return None
    try:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"speed must be a number, got {json.dumps(value)}")
        return check_speed(value)
    except ValueError as error:
        raise ApiError.of(errors.UNSUPPORTED_SPEED, str(error), "speed") from None


def _language(service: Service, model: object) -> str | None:
    """The language a `model` names: a model's code (`fr`, `fr-FR`) or its name (`french`)."""
    if not isinstance(model, str):
        return None
    for settings in service.engine.settings.models:
        if model in (settings.model, settings.config) or same_language(model, settings.code):
            return settings.code
    return None


async def _voice(service: Service, name: object, language: str | None) -> VoiceSpec:
    """The named voice (a key into the voice table, nothing else); without a name, the default
    voice of the language `model` named. Off the loop: a lookup may rescan the voice folders."""
    catalog = service.catalog
    if name is None or name == "":
        return await asyncio.to_thread(catalog.resolve, None, language)
    if isinstance(name, str) and await asyncio.to_thread(catalog.find, name) is not None:
        return await asyncio.to_thread(catalog.resolve, name)
    names = [spec.name for spec in await asyncio.to_thread(lambda: catalog.voices)]
    shown = ", ".join(names[:LISTED_VOICES]) + (", ..." if len(names) > LISTED_VOICES else "")
    raise ApiError.of(
        errors.UNKNOWN_VOICE,
        f"Unknown voice {str(name)[:64]!r}; voices here: {shown} (all: GET /v1/audio/voices)",
        "voice",
    )
