"""The HTTP side's only use of the engine: one text in one voice -> 16-bit PCM as it is made.

An HTTP request is one more listener of the engine, through the same `Intake` as a Wyoming
connection: the same admission (`busy`), text preparation, SSML, scheduling and speech controls.
Closing the generator (the HTTP client left, the handler was cancelled) cancels the request; the
engine sees its `stop` at the next frame.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from ..engine.request import Listener
from ..intake import Intake
from ..service import Service
from ..settings import VoiceSpec


class SpeechFailed(Exception):
    """The engine could not speak the request (busy, model or voice unavailable, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def prepare(service: Service, text: str, language: str) -> str:
    """`text` as the model should read it, prepared as a Wyoming `synthesize` text is."""
    return await asyncio.to_thread(Intake(service).prepare, text, language)


async def speak(
    service: Service,
    text: str,
    voice: VoiceSpec,
    *,
    speed: float | None = None,
    ssml: bool = False,
) -> AsyncGenerator[bytes, None]:
    """Speak `text` (prepared plain text, or raw SSML) in `voice`: PCM chunks as the engine
    makes them. Raises `SpeechFailed` for a failure (a warning does not fail the answer). Use
    under `contextlib.aclosing` so that leaving early cancels the generation."""
    intake = Intake(service)
    scheduler = service.engine.scheduler
    listener = Listener()
    request = intake.open(listener, voice.name, speed=speed)
    try:
        if ssml:
            stream = intake.stream(request, ssml=True)
            await stream.add(text)
            stream.finish()
        else:
            intake.add(request, text)
            intake.close(request)
        while (pcm := await request.output.get()) is not None:
            held = listener.remove(len(pcm))
            if held < scheduler.max_buffered <= held + len(pcm):
                scheduler.wake()  # this request was paused for unread audio: it may go on
            yield pcm
        failure = next((error for error in request.errors if error.is_failure), None)
        if failure is not None:
            raise SpeechFailed(failure.code, failure.text)
    finally:
        scheduler.cancel(request)  # a no-op once the request has ended
