"""A synthesis request as the engine thread and the event loop share it.

Text goes in from the loop through the `Scheduler`; audio comes out from the engine thread
(`emit`) through `loop.call_soon_threadsafe`, so neither side ever blocks the other. `stop` is the
`threading.Event` pocket-tts checks once per generated frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from dataclasses import dataclass

from ..settings import VoiceSpec


@dataclass(frozen=True)
class JobError:
    """A failure to report to the client as a Wyoming `error` event."""

    code: str
    text: str


JobOutput = bytes | JobError | None
"""PCM audio, an error, or None: the job is over and nothing more will come."""


class Outbox:
    """Audio made for one connection and not yet written to it, in bytes (thread-safe).

    The engine does not start another piece of a connection's speech while this is over the
    scheduler's bound, so a client that stops reading holds a few MB at most.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bytes = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    def add(self, size: int) -> None:
        with self._lock:
            self._bytes += size

    def remove(self, size: int) -> int:
        """Account for `size` bytes written; returns what is still held."""
        with self._lock:
            self._bytes -= size
            return self._bytes


class SynthesisJob:
    """One request's text in, audio out. Its queue state belongs to the `Scheduler`."""

    def __init__(self, voice: VoiceSpec, loop: asyncio.AbstractEventLoop, outbox: Outbox) -> None:
        self.voice = voice
        self.outbox = outbox
        self.stop = threading.Event()
        self.output: asyncio.Queue[JobOutput] = asyncio.Queue()
        # Guarded by the scheduler's lock.
        self.pending: deque[tuple[int, str]] = deque()
        """Text ready to speak, each piece with the sequence number of when it became ready."""
        self.admitted = False
        self.closed = False
        """No more text will come."""
        self.running = False
        """The engine is speaking a piece of it right now."""
        self.current = 0
        """The sequence number of the piece being spoken."""
        self.finished = False
        self._loop = loop

    @property
    def ready_since(self) -> int:
        """When its oldest unspoken text became ready (a scheduler sequence number)."""
        return self.pending[0][0]

    def emit(self, item: JobOutput) -> None:
        """Hand output to the loop without waiting for it (any thread)."""
        if isinstance(item, bytes):
            self.outbox.add(len(item))
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server is shutting down
            self._loop.call_soon_threadsafe(self.output.put_nowait, item)
