"""Which piece of speech the engine thread generates next: newcomers first, then in turns.

The unit of work is a piece of text ready to speak: one sentence (of a stream or of a one-shot
text), or a bounded part of a longer one. After each piece the engine picks, in this order:

1. a request whose listener is out of audio and that has had no piece yet (a *newcomer*): first
   audio is what a person waits for; the one whose text became ready first goes first;
2. the other requests whose listeners are out of audio, in turns, one piece each: the one served
   longest ago goes first, so each keeps progressing and none waits for another's whole text;
3. requests whose listeners still have audio: the one that runs out soonest (the audio already
   made for it, played from its first chunk on).

A fast engine builds a lead on a long reply (3) and an announcement goes next (1); an engine
slower than real time leaves everyone out of audio and shares itself in turns (2): short gaps
between sentences for everyone rather than one reply finished while another waits. Newcomers
cannot starve a request in turns: once as many newcomers have gone ahead of it as there are
other listeners in care, it goes before the next newcomer. Within a request, order is kept.

Switches are costly: a piece whose model is not loaded, or whose voice state is not cached, is
*cold*. A warm piece goes before a cold one unless the cold one has run out for more than
`switch_after` seconds and the engine has stayed with its current model and voice for at least as
long as the last switch took; so two languages sharing one model slot alternate in turns that
pay for their loads, not sentence by sentence.

A request whose next piece waits for its voice (a child makes its state off the engine thread,
`voice_states.making`; the engine's `waits` says so) gets no piece until the voice is made, and
the others are served meanwhile; `wake` is called when a child ends.

Bounds, counted at every moment: at most `max_queue` listeners have a request in the engine's
care (each listener's later requests wait in its line, in order, and do not compete); a listener
holding more than `max_buffered` bytes of unread audio gets no piece until it reads.

The loop calls `admit`, `add`, `close`, `cancel`, `abandon` and `stop`; the engine thread calls
`next`, `cancel` (a piece that failed) and `done`. Every request's output ends exactly once, in
`_finish`.

Idle work (a provisional speed decision measured again, `comparison`): `next` returns `IDLE`
once no listener has had a request in care for the `idle_after` seconds the engine asks for;
`arrived` is set by the next `admit`, so that the idle work stops for the request.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Literal

from ...errors import BUSY, SHUTDOWN, JobError
from .recent import RecentRequests
from .request import Listener, Piece, SpeechRequest

_LOGGER = logging.getLogger(__name__)

MAX_BUFFERED_BYTES = 2 * 1024 * 1024
"""Unread audio a listener may hold before its speech pauses: about 44 s at 24 kHz 16-bit."""

SWITCH_AFTER = 1.5
"""Seconds a cold piece may be out of audio while warm pieces go first (see the module doc)."""

SHUTTING_DOWN = JobError(SHUTDOWN, "The server is shutting down")
IDLE: Literal["idle"] = "idle"
"""What `next` returns when the engine has been idle for as long as it asked."""


class EngineBusy(Exception):
    """The request cannot be taken; `error` says why (`busy`, `shutdown`, or the `refusal`)."""

    def __init__(self, error: JobError) -> None:
        super().__init__(error.text)
        self.error = error


class Scheduler:
    """Ready work of every request, for one engine thread."""

    def __init__(
        self,
        max_queue: int,
        max_buffered: int = MAX_BUFFERED_BYTES,
        switch_after: float = SWITCH_AFTER,
    ) -> None:
        self.max_queue = max_queue
        self.max_buffered = max_buffered
        self.switch_after = switch_after
        self._cond = threading.Condition()
        self.recent = RecentRequests()
        """The last finished requests with their first-audio times (for the voice studio)."""
        self._lines: dict[Listener, deque[SpeechRequest]] = {}
        """Each listener's unfinished requests in order; only the first competes."""
        self._sequence = itertools.count()
        self._turns = itertools.count(1)
        self._stopping = False
        self._stayed_since = 0.0
        """When the engine last switched to a cold piece."""
        self._switch_took = 0.0
        """How long that cold piece took (its load or encode included)."""
        self._running_cold = False
        self._running_since = 0.0
        self._idle_since = time.monotonic()
        """When the last listener's request ended (or the scheduler was made)."""
        self.arrived = threading.Event()
        """Set by `admit` after `next` returned `IDLE`: the idle work stops for a request."""
        self.refusal: JobError | None = None
        """While set (see `refuse`), every request is refused with it."""

    @property
    def in_care(self) -> int:
        """Listeners with a request admitted and not finished (bounded by `max_queue`)."""
        with self._cond:
            return len(self._lines)

    # Loop side.

    def admit(self, request: SpeechRequest) -> None:
        """Take `request` into its listener's line, or raise `EngineBusy`."""
        with self._cond:
            if self._stopping:
                raise EngineBusy(SHUTTING_DOWN)
            if self.refusal is not None:
                raise EngineBusy(self.refusal)
            line = self._lines.get(request.listener)
            if line is None:
                if len(self._lines) >= self.max_queue:
                    raise EngineBusy(
                        JobError(BUSY, f"Server busy: {len(self._lines)} requests are in line")
                    )
                line = self._lines[request.listener] = deque()
            request.sequence = next(self._sequence)
            line.append(request)
            self.arrived.set()

    def add(self, request: SpeechRequest, piece: Piece) -> None:
        """Queue `piece` to be spoken after the request's earlier pieces."""
        with self._cond:
            if request.finished or request.stop.is_set():
                return
            if not request.pending:
                request.ready_since = time.monotonic()
            request.pending.append(piece)
            request.chars += len(piece.text)
            self._cond.notify()

    def close(self, request: SpeechRequest) -> None:
        """No more text will come; the request ends once what it has is spoken."""
        with self._cond:
            request.closed = True
            if not request.running and not request.pending:
                self._finish(request)

    def cancel(self, request: SpeechRequest, error: JobError | None = None) -> None:
        """Stop now (any thread: nobody listens, or it cannot go on): drop its text and its
        place; `error`, if given, is reported after what was spoken."""
        with self._cond:
            if error is not None:
                request.add_error(error)
            self._cut(request)

    def abandon(self, request: SpeechRequest) -> None:
        """Shutdown, and the engine is stuck (a load or an encode): end the output from here;
        the engine finds it finished when it comes back."""
        with self._cond:
            request.add_error(SHUTTING_DOWN)
            self._cut(request)
            self._finish(request)

    def wake(self) -> None:
        """A listener read some of its audio, or a voice's child ended (any thread): work that
        was paused or waiting may go on."""
        with self._cond:
            self._cond.notify()

    def stop(self) -> None:
        """Shutdown: cut every request with `shutdown`; `next` returns None from now on."""
        with self._cond:
            self._stopping = True
            for line in list(self._lines.values()):
                for request in list(line):
                    request.add_error(SHUTTING_DOWN)
                    self._cut(request)
            self._cond.notify_all()

    # Engine side.

    def refuse(self, error: JobError | None) -> None:
        """Until called with None, end the requests in care and refuse new ones with `error`
        (the engine has no model to speak with yet)."""
        with self._cond:
            self.refusal = error
            if error is None:
                return
            for line in list(self._lines.values()):
                for request in list(line):
                    request.add_error(error)
                    self._cut(request)

    def wait_stopped(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for `stop`; True if the scheduler is stopping."""
        with self._cond:
            return self._cond.wait_for(lambda: self._stopping, timeout)

    def next(
        self,
        is_warm: Callable[[SpeechRequest], bool],
        idle_after: float | None = None,
        waits: Callable[[SpeechRequest, Piece], bool] = lambda request, piece: False,
    ) -> tuple[SpeechRequest, Piece] | Literal["idle"] | None:
        """Block until a piece is ready and take the one to speak now (see the module doc);
        `IDLE` once nobody has had a request in care for `idle_after` seconds. A request whose
        next piece `waits` (for its voice) is not ready."""
        with self._cond:
            while not self._stopping:
                ready = [
                    line[0]
                    for listener, line in self._lines.items()
                    if line[0].pending
                    and not line[0].running
                    and not self._paused(listener)
                    and not waits(line[0], line[0].pending[0])
                ]
                if ready:
                    request, cold = self._choose(ready, is_warm)
                    self._take_turn(request, ready)
                    request.running = True
                    self._running_cold = cold
                    self._running_since = time.monotonic()
                    return request, request.pending.popleft()
                wait = None
                if idle_after is not None and not self._lines:
                    wait = self._idle_since + idle_after - time.monotonic()
                    if wait <= 0:
                        self.arrived.clear()
                        self._idle_since = time.monotonic()  # once per idle period
                        return IDLE
                self._cond.wait(wait)
            return None

    def done(self, request: SpeechRequest, rest: list[Piece] | None = None) -> None:
        """The engine spoke a piece of `request`; `rest` of it goes back first."""
        with self._cond:
            request.running = False
            if self._running_cold:
                self._stayed_since = time.monotonic()
                self._switch_took = self._stayed_since - self._running_since
            if request.stop.is_set():
                self._finish(request)
                return
            if rest:
                request.pending.extendleft(reversed(rest))
            if not request.pending and request.closed:
                self._finish(request)
            else:
                self._cond.notify()

    # Rules.

    def _choose(
        self, ready: list[SpeechRequest], is_warm: Callable[[SpeechRequest], bool]
    ) -> tuple[SpeechRequest, bool]:
        """The most urgent request (see the module doc); a warm piece before a cold one while
        switching may wait."""
        now = time.monotonic()
        others = len(self._lines) - 1

        def urgency(request: SpeechRequest) -> tuple[int, float, int]:
            if request.runs_out_at > now:
                return 3, request.runs_out_at, request.sequence
            if request.turn is None:
                return 1, request.ready_since, request.sequence
            waited_a_round = request.overtaken >= others
            return (0 if waited_a_round else 2), request.turn, request.sequence

        first = min(ready, key=urgency)
        if is_warm(first):
            return first, False
        warm = [request for request in ready if is_warm(request)]
        if not warm or self._must_switch(first):
            return first, True
        return min(warm, key=urgency), False

    def _take_turn(self, chosen: SpeechRequest, ready: list[SpeechRequest]) -> None:
        """Count the turn; a newcomer's is counted against each request out of audio it
        went ahead of."""
        if chosen.turn is None:
            now = time.monotonic()
            for request in ready:
                if request.turn is not None and request.runs_out_at <= now:
                    request.overtaken += 1
        chosen.turn = next(self._turns)
        chosen.overtaken = 0

    def _must_switch(self, cold: SpeechRequest) -> bool:
        now = time.monotonic()
        starved = now - cold.runs_out_at
        stayed = now - self._stayed_since
        return starved > self.switch_after and stayed >= max(self.switch_after, self._switch_took)

    def _paused(self, listener: Listener) -> bool:
        return listener.unread >= self.max_buffered

    def _cut(self, request: SpeechRequest) -> None:
        request.stop.set()
        request.pending.clear()
        if not request.running:
            self._finish(request)

    def _finish(self, request: SpeechRequest) -> None:
        if request.finished:
            return
        request.finished = True
        line = self._lines.get(request.listener)
        if line is not None:
            if request in line:
                line.remove(request)
            if not line:
                del self._lines[request.listener]
                self._idle_since = time.monotonic()
        self._cond.notify()
        self.recent.add(request)
        request.end()
