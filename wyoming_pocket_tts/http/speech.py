"""The HTTP side's only use of the engine: one text in one voice -> 16-bit PCM as it is made.

Written against the engine API of today, and relying on exactly this (re-point this module, and
nothing else, when that API changes):
- `prepare_for_speech` (clean-up and numbers, run in a thread) with the server's text settings;
- `SynthesisJob(voice, loop, Outbox())`: one job per HTTP request, with its own outbox, so
  `Scheduler.per_connection` and the unread-audio bound apply per request like per connection;
- `Scheduler.admit` (raises `EngineBusy`), `add_text`, `close`, `cancel`, `wake`, `max_buffered`;
- `job.output`: an asyncio queue of PCM bytes, `JobError`s, then exactly one `None`.

Cancellation: closing the generator (the HTTP client left, the handler was cancelled) cancels
the job; the engine sees `job.stop` at its next frame.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from ..engine.job import JobError, Outbox, SynthesisJob
from ..engine.scheduler import EngineBusy
from ..service import Service
from ..settings import VoiceSpec
from ..text.speech import prepare_for_speech


class SpeechFailed(Exception):
    """The engine could not speak the request (busy, model or voice unavailable, ...)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def prepare(service: Service, text: str, language: str) -> str:
    """`text` as the model should read it, prepared as a Wyoming `synthesize` text is."""
    settings = service.settings
    return await asyncio.to_thread(
        prepare_for_speech,
        text,
        language,
        clean=settings.clean_text,
        numbers=settings.number_words,
    )


async def speak(service: Service, text: str, voice: VoiceSpec) -> AsyncGenerator[bytes, None]:
    """Speak prepared `text` in `voice`: PCM chunks as the engine makes them.

    Raises `SpeechFailed` (before or between chunks). Use under `contextlib.aclosing` so that
    leaving early cancels the generation.
    """
    scheduler = service.engine.scheduler
    outbox = Outbox()
    job = SynthesisJob(voice, asyncio.get_running_loop(), outbox)
    try:
        scheduler.admit(job)
    except EngineBusy as error:
        raise SpeechFailed("busy", f"Server busy: {error}") from error
    try:
        scheduler.add_text(job, text)
        scheduler.close(job)
        while (item := await job.output.get()) is not None:
            if isinstance(item, JobError):
                raise SpeechFailed(item.code, item.text)
            held = outbox.remove(len(item))
            if held < scheduler.max_buffered <= held + len(item):
                scheduler.wake()  # this request was paused for unread audio: it may go on
            yield item
    finally:
        scheduler.cancel(job)  # a no-op once the job has ended
