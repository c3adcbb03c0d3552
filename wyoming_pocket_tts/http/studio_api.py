"""The voice studio's JSON routes: voices, samples, pronunciations and status.

Decoding, checking and writing files run in a worker thread, never on the event loop. Uploads are
read with their own bound (`sample_check.MAX_BYTES`), whatever the application's body limit.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from aiohttp import web

from ..audio import sample_check
from ..audio.sample_check import SampleRefused
from ..errors import (
    BAD_CONTENT_TYPE,
    BAD_JSON,
    BAD_PRONUNCIATION,
    BAD_TEXT,
    BAD_TRIM,
    NO_AUDIO,
    POOR_SAMPLE,
    TOO_LARGE,
    UNKNOWN_LANGUAGE,
)
from ..intake import Intake
from ..service import Service
from ..settings import VoiceSpec
from ..text.pronunciations import PronunciationError
from ..voices.manage import VoiceEditError, VoiceManager, valid_name
from .errors import StudioError
from .studio_views import status_view, voice_view, voices_view

_LOGGER = logging.getLogger(__name__)

MAX_JSON_BYTES = 64 * 1024
MAX_PREPARE_CHARS = 2000
PREPARE_TIMEOUT = 300
"""Seconds a saved voice may wait for the engine to encode it (behind the requests in line)."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class StudioApi:
    """Handlers of `studio/api/...`."""

    def __init__(
        self, service: Service, manager: VoiceManager, read_only: str | None = None
    ) -> None:
        self.service = service
        self.manager = manager
        self.read_only = read_only
        """Why changes are refused (the page shows it where it would offer to add a voice)."""

    def routes(self) -> list[tuple[str, str, Handler, bool]]:
        """(method, path, handler, changes state)."""
        base = "/studio/api"
        return [
            ("GET", f"{base}/voices", self.voices, False),
            ("GET", f"{base}/status", self.status, False),
            ("POST", f"{base}/check", self.check, True),
            ("POST", f"{base}/voices", self.save, True),
            ("POST", f"{base}/voices/rename", self.rename, True),
            ("POST", f"{base}/voices/delete", self.delete, True),
            ("POST", f"{base}/defaults", self.choose_default, True),
            ("GET", f"{base}/pronunciations", self.pronunciations, False),
            ("POST", f"{base}/pronunciations", self.set_pronunciations, True),
            ("POST", f"{base}/prepare", self.prepare, True),
        ]

    async def voices(self, request: web.Request) -> web.StreamResponse:
        view = await asyncio.to_thread(voices_view, self.service, self.manager)
        if self.read_only is not None:
            view |= {"can_add": False, "folder_problem": self.read_only}
        return web.json_response(view)

    async def status(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(status_view(self.service))

    async def check(self, request: web.Request) -> web.StreamResponse:
        data = await _read_audio(request)
        report = await asyncio.to_thread(_check, data)
        return web.json_response(report.as_json())

    async def save(self, request: web.Request) -> web.StreamResponse:
        query = request.query
        name, language = query.get("name", ""), query.get("language", "")
        start, end = _seconds(query.get("start", "0")), _seconds(query.get("end", "0"))
        # The name and language are checked before the upload is read.
        await asyncio.to_thread(_edit, self.manager.folder_for, language)
        await asyncio.to_thread(_edit, self.manager.check_free, name)
        data = await _read_audio(request)
        saved = await asyncio.to_thread(self._save, data, name, language, start, end)
        await self._prepare(saved.name)
        # The saved voice's own view, also when another voice speaks for it (no cloning).
        view = await asyncio.to_thread(voice_view, saved, self.service, self.manager)
        return web.json_response(view, status=201)

    async def _prepare(self, name: str) -> None:
        """Have the engine encode and measure a new voice before it is reported (an ordinary
        request of one `prepare` piece, in line with the others): its first play then costs
        what a known voice's does. A failure is the voice's reason in the answer."""
        session = await Intake(self.service).line().open(name)
        session.prepare_voice()
        try:
            await asyncio.wait_for(_drain(session.audio()), PREPARE_TIMEOUT)
        except asyncio.TimeoutError:
            _LOGGER.warning("Voice %s: not prepared within %d s", name, PREPARE_TIMEOUT)
            session.cancel()

    def _save(self, data: bytes, name: str, language: str, start: float, end: float) -> VoiceSpec:
        audio, rate, channels = _decode(data)
        audio = sample_check.trim(audio, rate, start, end)
        report = sample_check.check(audio, rate, channels)
        if not report.usable:
            problems = "; ".join(c.advice for c in report.checks if c.verdict == "bad")
            raise StudioError(POOR_SAMPLE, f"Not saved: {problems}")
        _edit(self.manager.save, name, language, audio, rate)
        return _edit(self.manager.voice, valid_name(name))

    async def rename(self, request: web.Request) -> web.StreamResponse:
        body = await _read_json(request)
        spec = await asyncio.to_thread(
            _edit, self.manager.rename, body.get("name"), body.get("new_name")
        )
        return web.json_response(voice_view(spec, self.service, self.manager))

    async def delete(self, request: web.Request) -> web.StreamResponse:
        body = await _read_json(request)
        await asyncio.to_thread(_edit, self.manager.delete, body.get("name"))
        return web.json_response({"deleted": body.get("name")})

    async def choose_default(self, request: web.Request) -> web.StreamResponse:
        body = await _read_json(request)
        language, name = body.get("language"), body.get("name")
        await asyncio.to_thread(_edit, self.manager.choose_default, language, name)
        return web.json_response({"language": language, "default": name})

    async def pronunciations(self, request: web.Request) -> web.StreamResponse:
        language = self._language(request.query.get("language"))
        lexicon = await asyncio.to_thread(self.service.pronunciations.lexicon, language)
        return web.json_response({"language": language, "entries": lexicon.entries})

    async def set_pronunciations(self, request: web.Request) -> web.StreamResponse:
        body = await _read_json(request)
        language = self._language(body.get("language"))
        try:
            lexicon = await asyncio.to_thread(
                self.service.pronunciations.replace, language, body.get("entries", [])
            )
        except PronunciationError as error:
            raise StudioError(BAD_PRONUNCIATION, str(error)) from None
        return web.json_response({"language": language, "entries": lexicon.entries})

    async def prepare(self, request: web.Request) -> web.StreamResponse:
        """The text exactly as the model will read it in a voice's language."""
        body = await _read_json(request)
        text = body.get("text")
        if not isinstance(text, str) or len(text) > MAX_PREPARE_CHARS:
            raise StudioError(BAD_TEXT, f"Text of at most {MAX_PREPARE_CHARS} characters")
        voice = await asyncio.to_thread(  # it may rescan the voice folders: off the loop
            self.service.catalog.resolve, body.get("voice"), body.get("language")
        )
        # Exactly the intake's preparation, so the page shows what a request would speak.
        prepared = await asyncio.to_thread(Intake(self.service).prepare, text, voice.code)
        return web.json_response(
            {"voice": voice.name, "language": voice.code, "prepared": prepared}
        )

    def _language(self, language: object) -> str:
        if language not in self.service.catalog.languages:
            raise StudioError(UNKNOWN_LANGUAGE, "Unknown language")
        assert isinstance(language, str)
        return language


def _edit(action: Callable[..., Any], *args: Any) -> Any:
    """Run a voice change; its refusal becomes the studio's, with the status of its code."""
    try:
        return action(*args)
    except VoiceEditError as error:
        raise StudioError(error.code, str(error)) from None


async def _drain(audio: AsyncIterator[bytes]) -> None:
    async for _ in audio:
        pass


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise StudioError(BAD_TRIM, "start and end are seconds") from None
    if not 0 <= seconds <= sample_check.MAX_SECONDS:
        raise StudioError(BAD_TRIM, "start and end are within the sample")
    return seconds


def _decode(data: bytes) -> Any:
    try:
        return sample_check.decode(data)
    except SampleRefused as refused:
        raise StudioError(refused.code, str(refused)) from None


def _check(data: bytes) -> sample_check.SampleReport:
    audio, rate, channels = _decode(data)
    return sample_check.check(audio, rate, channels)


async def _read_audio(request: web.Request) -> bytes:
    """The request body, refused past `MAX_BYTES` (before reading it when the length is given)."""
    limit = sample_check.MAX_BYTES
    if request.content_length is not None and request.content_length > limit:
        raise StudioError(TOO_LARGE, f"The file is over {limit // 2**20} MB")
    data = bytearray()
    while chunk := await request.content.read(64 * 1024):
        data += chunk
        if len(data) > limit:
            raise StudioError(TOO_LARGE, f"The file is over {limit // 2**20} MB")
    if not data:
        raise StudioError(NO_AUDIO, "No file was sent")
    return bytes(data)


async def _read_json(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise StudioError(BAD_CONTENT_TYPE, "Send JSON")
    if request.content_length is None or request.content_length > MAX_JSON_BYTES:
        raise StudioError(TOO_LARGE, "The request is too large")
    try:
        body = json.loads(await request.read())
    except ValueError:
        raise StudioError(BAD_JSON, "Not JSON") from None
    if not isinstance(body, dict):
        raise StudioError(BAD_JSON, "Expected a JSON object")
    return body
