"""Which piece of speech the engine thread generates next.

The unit of work is a piece of text that is ready to speak: a sentence of a stream, or a
Pocket-TTS chunk of a longer text. Pieces from all requests are served in the order they became
ready, so an announcement that arrives during a long LLM reply waits for the piece being generated,
not for the whole reply; a stream whose next sentence has not arrived holds nothing. Within a
request, order is kept.

Bounds: at most `max_waiting` requests wait with ready text (`per_connection` of them from one
connection), so no client can take the whole queue; a connection whose unread audio is over
`max_buffered` bytes gets no new piece until it reads. A cancelled request leaves at once.

The loop calls `admit`, `add_text`, `close` and `cancel`; the engine thread calls `next` and
`done`. Every job ends with exactly one `None` on its output, sent by whichever side ends it.
"""

from __future__ import annotations

import itertools
import logging
import threading

from .job import JobError, Outbox, SynthesisJob

_LOGGER = logging.getLogger(__name__)

MAX_BUFFERED_BYTES = 2 * 1024 * 1024
"""Unread audio a connection may hold before its speech pauses: about 44 s at 24 kHz 16-bit."""

SHUTDOWN = JobError("shutdown", "The server is shutting down")


class EngineBusy(Exception):
    """Too many requests are already waiting for the engine."""


class Scheduler:
    """Ready work of every request, for one engine thread."""

    def __init__(
        self,
        max_waiting: int,
        per_connection: int | None = None,
        max_buffered: int = MAX_BUFFERED_BYTES,
    ) -> None:
        self.max_waiting = max_waiting
        self.per_connection = per_connection or max(1, max_waiting // 2)
        self.max_buffered = max_buffered
        self._cond = threading.Condition()
        self._ready: list[SynthesisJob] = []
        """Jobs with text to speak that the engine is not speaking now."""
        self._admitted: set[SynthesisJob] = set()
        self._sequence = itertools.count()
        self._stopping = False

    # Loop side.

    def admit(self, job: SynthesisJob) -> None:
        """Let `job` queue for the engine, or raise `EngineBusy`; before its first text."""
        with self._cond:
            if self._stopping:
                raise EngineBusy("the server is shutting down")
            waiting = len(self._ready)
            if waiting >= self.max_waiting:
                raise EngineBusy(f"{waiting} requests are already waiting")
            mine = sum(1 for other in self._ready if other.outbox is job.outbox)
            if mine >= self.per_connection:
                raise EngineBusy(f"this connection has {mine} requests waiting")
            job.admitted = True
            self._admitted.add(job)

    def add_text(self, job: SynthesisJob, text: str) -> None:
        """Queue `text` to be spoken after the job's earlier text."""
        with self._cond:
            if job.finished or job.stop.is_set():
                return
            job.pending.append((next(self._sequence), text))
            if not job.running and job not in self._ready:
                self._ready.append(job)
                self._cond.notify()

    def close(self, job: SynthesisJob) -> None:
        """No more text will come; the job ends once what it has is spoken."""
        with self._cond:
            job.closed = True
            if not job.running and not job.pending:
                self._finish(job)

    def cancel(self, job: SynthesisJob, error: JobError | None = None) -> None:
        """Stop now (nobody listens, or the request failed): drop its text and its place."""
        with self._cond:
            job.stop.set()
            job.pending.clear()
            if job in self._ready:
                self._ready.remove(job)
            if not job.running:
                self._finish(job, error)

    def wake(self) -> None:
        """A connection read some of its audio: paused work may go on."""
        with self._cond:
            self._cond.notify()

    def stop(self) -> None:
        """Shutdown: end every job with an error; `next` returns None from now on."""
        with self._cond:
            self._stopping = True
            for job in list(self._admitted):
                job.stop.set()
                job.pending.clear()
                if not job.running:
                    self._finish(job, SHUTDOWN)
            self._ready.clear()
            self._cond.notify_all()

    # Engine side.

    def next(self) -> tuple[SynthesisJob, str] | None:
        """Block until a piece is ready; take the oldest one whose connection is reading."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                eligible = [job for job in self._ready if not self._paused(job.outbox)]
                if eligible:
                    job = min(eligible, key=lambda job: job.ready_since)
                    self._ready.remove(job)
                    job.running = True
                    job.current, text = job.pending.popleft()
                    return job, text
                self._cond.wait()

    def done(self, job: SynthesisJob, rest: list[str] | None = None) -> None:
        """The engine spoke a piece of `job`; `rest` goes back first, as ready as the piece was."""
        with self._cond:
            job.running = False
            if self._stopping:
                self._finish(job, SHUTDOWN)
                return
            if job.stop.is_set():
                self._finish(job)
                return
            if rest:
                job.pending.extendleft((job.current, text) for text in reversed(rest))
            if job.pending:
                self._ready.append(job)
            elif job.closed:
                self._finish(job)

    def _paused(self, outbox: Outbox) -> bool:
        return outbox.bytes >= self.max_buffered

    def _finish(self, job: SynthesisJob, error: JobError | None = None) -> None:
        if job.finished:
            return
        job.finished = True
        self._admitted.discard(job)
        if error is not None:
            job.emit(error)
        job.emit(None)
