"""OpenAI's speech API on our voices: `POST /v1/audio/speech` (the lists are in `listing`).

The answer streams (chunked) while the engine speaks, so the first bytes leave about one
first-audio time after the request; with `stream_format: "sse"` the same audio goes out as
OpenAI's speech events (`sse`). Errors found before any audio are JSON in OpenAI's shape; a
failure after audio has started can only cut the stream short (the connection is dropped, so a
client never mistakes a truncated answer for a whole one). `instructions` (OpenAI's voice
direction) is read by no model here and ignored.
"""

from __future__ import annotations

import asyncio
import json
import logging
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
from . import listing, sse
from .aliases import VoiceAliases
from .auth import apply_cors
from .errors import ApiError
from .listing import ALIASES, SERVICE

_LOGGER = logging.getLogger(__name__)

DEFAULT_FORMAT = "mp3"
"""OpenAI's default `response_format`."""
LISTED_VOICES = 8
"""How many valid voice names an unknown-voice error lists."""
_OTHER_FORMATS = {"aac": "aac is not available: the bundled encoder (libsndfile) has no AAC"}


def add_routes(app: web.Application, aliases: VoiceAliases) -> None:
    """The speech route and the lists, with the voice aliases both read."""
    app[ALIASES] = aliases
    app.router.add_post("/v1/audio/speech", create_speech)
    listing.add_routes(app)


async def create_speech(request: web.Request) -> web.StreamResponse:
    service = request.app[SERVICE]
    body = await _read_body(request)
    fmt = _response_format(body.get("response_format", DEFAULT_FORMAT))
    speed = _speed(body.get("speed"))
    events = _stream_format(body.get("stream_format", "audio")) == "sse"
    raw = body.get("input")
    if not isinstance(raw, str):
        raise ApiError.of(errors.INVALID_VALUE, "'input' must be a string of text", "input")
    intake = Intake(service)
    if (too_long := intake.too_long(len(raw))) is not None:
        raise ApiError.of(errors.INPUT_TOO_LONG, too_long.text, "input")
    language = _language(service, body.get("model"))
    voice = await _voice(service, request.app[ALIASES], body.get("voice"), language)
    session = await intake.line().open(voice=voice, speed=speed, ssml=looks_like_ssml(raw))
    try:
        await session.speak(raw)
        if not session.spoken and session.failure is None:
            raise ApiError.of(errors.EMPTY_INPUT, "'input' has nothing to say", "input")
        _LOGGER.debug("HTTP speech: %d chars, voice %s, %s", len(raw), voice.name, fmt)
        return await _stream(request, service, session, fmt, events)
    finally:
        session.cancel()  # a no-op once it has ended


async def _stream(
    request: web.Request, service: Service, session: Session, fmt: str, events: bool
) -> web.StreamResponse:
    """Write the audio as it comes (as SSE `events`, or raw); the first chunk is awaited before
    the headers go out, so an early failure is still a JSON error."""
    encoder = Encoder(fmt, SAMPLE_RATE)
    content_type = sse.CONTENT_TYPE if events else encoder.content_type
    headers = {"Content-Type": content_type} | ({"Cache-Control": "no-cache"} if events else {})
    response = web.StreamResponse(headers=headers)
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
                await asyncio.wait_for(response.write(sse.delta(out) if events else out), timeout)
        if (failure := session.failure) is not None:
            if not response.prepared:
                raise ApiError.refusing(failure)
            _LOGGER.warning("Speech failed after audio was sent: %s", failure.text)
            _drop(request)
            return response
        if not response.prepared:
            await response.prepare(request)
        tail = await asyncio.to_thread(encoder.finish)
        if events:
            tail = (sse.delta(tail) if tail else b"") + sse.done()
        if tail:
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


def _stream_format(value: object) -> str:
    if isinstance(value, str) and value in sse.STREAM_FORMATS:
        return value
    shown = json.dumps(value)[:32]
    raise ApiError.of(
        errors.INVALID_VALUE,
        f"Unknown stream_format {shown}; choose one of {', '.join(sse.STREAM_FORMATS)}",
        "stream_format",
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


async def _voice(
    service: Service, aliases: VoiceAliases, name: object, language: str | None
) -> VoiceSpec:
    """The voice called `name` (a key into the voice table, nothing else), else the voice an
    alias maps to; without a name, or for an unmapped OpenAI name, the default voice of the
    language `model` named. Off the loop: a lookup may rescan the voice folders."""
    catalog = service.catalog
    if name is None or name == "":
        return await asyncio.to_thread(catalog.resolve, None, language)
    if isinstance(name, str) and await asyncio.to_thread(catalog.find, name) is not None:
        return await asyncio.to_thread(catalog.resolve, name)
    alias = aliases.get(name)
    if alias is not None and alias.target is None:
        return await asyncio.to_thread(catalog.resolve, None, language)
    if alias is not None and await asyncio.to_thread(catalog.find, alias.target) is not None:
        return await asyncio.to_thread(catalog.resolve, alias.target)
    names = [spec.name for spec in await asyncio.to_thread(lambda: catalog.voices)]
    shown = ", ".join(names[:LISTED_VOICES]) + (", ..." if len(names) > LISTED_VOICES else "")
    unknown = f"Unknown voice {str(name)[:64]!r}"
    if alias is not None:
        unknown = f"Voice alias {alias.name!r} names {str(alias.target)[:64]!r}, which is no voice"
    raise ApiError.of(
        errors.UNKNOWN_VOICE,
        f"{unknown}; voices here: {shown} (all: GET /v1/audio/voices)",
        "voice",
    )
