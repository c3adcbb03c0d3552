"""A synthesis request as the engine thread and the event loop share it.

Text goes in from the loop (`add_text`, `close`), audio comes out from the engine thread (`emit`)
through `loop.call_soon_threadsafe`, so neither side ever blocks the other. `stop` is the
`threading.Event` pocket-tts checks once per generated frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from dataclasses import dataclass

from ..settings import VoiceSpec


@dataclass(frozen=True)
class JobError:
    """A failure to report to the client as a Wyoming `error` event."""

    code: str
    text: str


JobOutput = bytes | JobError | None
"""PCM audio, an error, or None: the job is over and nothing more will come."""


class StreamStalled(Exception):
    """A streamed request sent no text for too long while holding the engine."""


class SynthesisJob:
    """One request's text in, audio out."""

    def __init__(self, voice: VoiceSpec, loop: asyncio.AbstractEventLoop) -> None:
        self.voice = voice
        self.stop = threading.Event()
        self.output: asyncio.Queue[JobOutput] = asyncio.Queue()
        self.submitted = False
        """Set when the job is queued; a job never submitted is finished by its owner."""
        self._texts: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._loop = loop

    # Loop side.

    def add_text(self, text: str) -> None:
        """Queue text to be spoken after what was queued before."""
        self._texts.put(text)

    def close(self) -> None:
        """No more text will come."""
        self._texts.put(None)

    def cancel(self) -> None:
        """Stop generating now: nobody is listening any more."""
        self.stop.set()
        self._texts.put(None)

    def finish_unsubmitted(self, error: JobError | None = None) -> None:
        """End a job that never reached the engine, optionally with an error."""
        if error is not None:
            self.output.put_nowait(error)
        self.output.put_nowait(None)

    # Engine side.

    def next_text(self, timeout: float) -> str | None:
        """The next piece of text, or None when the request is complete or cancelled."""
        try:
            text = self._texts.get(timeout=timeout)
        except queue.Empty:
            raise StreamStalled(f"no text for {timeout:.0f} s") from None
        return None if self.stop.is_set() else text

    def emit(self, item: JobOutput) -> None:
        """Hand output to the loop without waiting for it."""
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server is shutting down
            self._loop.call_soon_threadsafe(self.output.put_nowait, item)
