"""A speech request and its listener, as the engine thread and the event loop share them.

Text goes in from the loop through the `Scheduler`, which owns every field of a request's queue
state. Audio comes out from the engine thread (`emit`) through `loop.call_soon_threadsafe`, so
neither side ever blocks the other. `stop` is the `threading.Event` the runtime checks: on the
graphs' loop before every LM frame and every Mimi frame, on torch (pocket-tts's loop) once per
generated frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import JobError, in_precedence
from ...settings import SAMPLE_RATE, SAMPLE_WIDTH, VoiceSpec

if TYPE_CHECKING:
    from ...audio.shaping import ReplyShaper

BYTES_PER_SECOND = SAMPLE_RATE * SAMPLE_WIDTH


@dataclass(frozen=True)
class Piece:
    """One unit of a request's speech: text to generate, or a pause."""

    text: str = ""
    rate: float = 1.0
    """SSML `<prosody rate>`: a factor of the request's speed."""
    voice: VoiceSpec | None = None
    """Another voice for this piece (SSML `xml:lang` served by another language's model)."""
    pause_ms: int = 0
    """Silence instead of text (SSML `<break>`)."""
    cut: bool = False
    """Already cut by the engine to its bound: spoken as it is."""
    prepare: bool = False
    """Only make the voice ready (encode its prompt, measure its loudness): no audio. The
    studio sends one after saving a voice, so that its first play does not pay for that."""


class Listener:
    """Whoever hears a line of requests: a Wyoming connection, or one HTTP response.

    It plays its audio as it arrives, so the engine can tell when it will run out (`plays_until`);
    and it holds what was made for it and not yet written (`unread`, thread-safe), so the engine
    pauses its speech while that is over the scheduler's bound.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._unread = 0
        self.plays_until: float | None = None
        """Monotonic time its audio runs out, played from the first chunk on; None before any
        audio. Engine thread only (read under the scheduler's lock)."""

    @property
    def unread(self) -> int:
        """Bytes of audio made for it and not yet written."""
        return self._unread

    def add(self, size: int) -> None:
        with self._lock:
            self._unread += size

    def remove(self, size: int) -> int:
        """Account for `size` bytes written; returns what is still held."""
        with self._lock:
            self._unread -= size
            return self._unread

    def heard(self, seconds: float, now: float) -> None:
        """`seconds` of audio left for it at `now`: played after what it already has."""
        start = now if self.plays_until is None else max(self.plays_until, now)
        self.plays_until = start + seconds


class SpeechRequest:
    """One request: its text in, its audio out, its errors, and where it stands.

    The loop side gives it text through the scheduler; the engine speaks it piece by piece; the
    reply writer reads `output` (PCM bytes, then None once) and then `errors`.
    """

    def __init__(
        self,
        voice: VoiceSpec,
        loop: asyncio.AbstractEventLoop,
        listener: Listener,
        speed: float | None = None,
    ) -> None:
        self.voice = voice
        self.listener = listener
        self.speed = speed
        """Speaking rate asked by the client; None: the voice's own."""
        self.shaper: ReplyShaper | None = None
        """Lead-in, pauses and rate of its audio (engine thread)."""
        self.stop = threading.Event()
        self.output: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._loop = loop
        # Guarded by the scheduler's lock.
        self.pending: deque[Piece] = deque()
        """Pieces ready to speak, in order."""
        self.ready_since = 0.0
        """Monotonic time its oldest pending text became ready."""
        self.sequence = 0
        """Admission order: ties go to the older request."""
        self.closed = False
        """No more text will come."""
        self.running = False
        """The engine is speaking a piece of it right now."""
        self.turn: int | None = None
        """The engine's turn in which it last got a piece; None before its first (a newcomer)."""
        self.overtaken = 0
        """Newcomers served ahead of it while it was out of audio, since its last turn."""
        self.finished = False
        """Its output has ended (None was sent); nothing more happens to it."""
        self.audio_seconds = 0.0
        """Audio made for it so far."""
        self.created = time.monotonic()
        self.first_audio_at: float | None = None
        """Monotonic time of its first audio (for the record of recent requests)."""
        self.chars = 0
        """Characters of text given to it."""
        self._errors: list[JobError] = []

    @property
    def errors(self) -> list[JobError]:
        """What to report after its audio, failures first (read once `output` has ended)."""
        return in_precedence(self._errors)

    def add_error(self, error: JobError) -> None:
        """Record a reason to report; the same code is reported once."""
        if all(known.code != error.code for known in self._errors):
            self._errors.append(error)

    @property
    def runs_out_at(self) -> float:
        """When its listener runs out of audio this request could give it: now-or-past for a
        request with no audio yet (from when its text became ready)."""
        plays_until = self.listener.plays_until
        if plays_until is None:
            return self.ready_since
        return max(plays_until, self.ready_since)

    def emit(self, audio: bytes) -> None:
        """Hand audio to the loop without waiting for it (engine thread); nothing for b""."""
        if not audio:
            return
        seconds = len(audio) / BYTES_PER_SECOND
        now = time.monotonic()
        if self.first_audio_at is None:
            self.first_audio_at = now
        self.audio_seconds += seconds
        self.listener.heard(seconds, now)
        self.listener.add(len(audio))
        self._put(audio)

    def end(self) -> None:
        """No more output (any thread; the scheduler calls it exactly once): a whole reply's
        trailing silence (`ReplyShaper.tail`), then the end."""
        if self.shaper is not None and not self.stop.is_set():
            self.emit(self.shaper.tail())
        self._put(None)

    def _put(self, item: bytes | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server is shutting down
            self._loop.call_soon_threadsafe(self.output.put_nowait, item)
