"""The scheduler's rules, driven directly: which piece goes next, the bounds, how requests end.

No model and no server: the engine side is played by the test, and the scheduler's clock is a
fake the test moves (the rules compare times; a real clock would make them timing-dependent).
These are the fast tests `script/mutate scheduler` pairs with the module; the server-level
behaviour is in test_fairness.py and test_scheduling.py.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from wyoming_pocket_tts.engine.serving import scheduler as scheduler_module
from wyoming_pocket_tts.engine.serving.request import (
    BYTES_PER_SECOND,
    Listener,
    Piece,
    SpeechRequest,
)
from wyoming_pocket_tts.engine.serving.scheduler import IDLE, EngineBusy, Scheduler
from wyoming_pocket_tts.errors import BUSY, SHUTDOWN, TEXT_TOO_LONG, JobError
from wyoming_pocket_tts.settings import VoiceSpec

WARNING = JobError(TEXT_TOO_LONG, "a warning")


def next_text(sched: Scheduler, is_warm):  # -> (request, text) | None
    """`Scheduler.next`, with the piece given as its text."""
    work = sched.next(is_warm)
    return None if work is None else (work[0], work[1].text)


class Clock:
    """The scheduler's `time` module, moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(scheduler_module, "time", fake)
    return fake


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.close()


def make(loop: asyncio.AbstractEventLoop, name: str = "v", listener: Listener | None = None):
    return SpeechRequest(VoiceSpec(name, name), loop, listener or Listener())


def outputs(loop: asyncio.AbstractEventLoop, request: SpeechRequest) -> list[bytes | None]:
    """What reached the request's output queue so far."""
    loop.run_until_complete(asyncio.sleep(0))
    items = []
    while not request.output.empty():
        items.append(request.output.get_nowait())
    return items


def warm(_: SpeechRequest) -> bool:
    return True


def test_the_request_that_runs_out_first_goes_first(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5)
    newer, older = make(loop, "newer"), make(loop, "older")
    sched.admit(newer)
    sched.admit(older)
    sched.add(older, Piece("o1"))
    clock.now += 1
    sched.add(newer, Piece("n1"))
    assert next_text(sched, warm) == (older, "o1")
    sched.done(older)
    # Ties go to the request admitted first.
    first, second = make(loop), make(loop)
    sched.admit(first)
    sched.admit(second)
    sched.add(second, Piece("s"))
    sched.add(first, Piece("f"))
    assert next_text(sched, warm) == (newer, "n1")
    sched.done(newer)
    assert next_text(sched, warm) == (first, "f")


def test_a_listener_with_audio_left_waits_for_one_without(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5)
    playing, silent = make(loop, "playing"), make(loop, "silent")
    sched.admit(playing)
    sched.admit(silent)
    sched.add(playing, Piece("p2"))
    playing.listener.heard(10.0, clock.now)  # ten seconds of audio still to play
    clock.now += 5
    sched.add(silent, Piece("s1"))
    assert playing.runs_out_at == 110.0 and silent.runs_out_at == 105.0
    assert next_text(sched, warm) == (silent, "s1")


def serve(sched: Scheduler, clock: Clock, seconds: float, audio: float = 0.5):
    """The engine speaks the next piece: it takes `seconds` and makes `audio` seconds of it.
    Returns (request, text)."""
    work = next_text(sched, warm)
    assert work is not None
    clock.now += seconds
    work[0].listener.heard(audio, clock.now)
    sched.done(work[0])
    return work


def long_texts(sched: Scheduler, loop, *names: str, pieces: int = 4) -> list[SpeechRequest]:
    requests = [make(loop, name) for name in names]
    for request in requests:
        sched.admit(request)
        for number in range(pieces):
            sched.add(request, Piece(f"{request.voice.name}{number}"))
    return requests


def test_slower_than_real_time_a_newcomer_goes_before_listeners_that_ran_out_earlier(
    clock: Clock, loop
) -> None:
    """Every listener is out of audio (each piece takes 1 s, makes 0.5 s): the announcement that
    arrives during `a`'s piece goes next, before `b`, which ran out before it arrived."""
    sched = Scheduler(max_queue=5)
    a, b = long_texts(sched, loop, "a", "b")
    assert serve(sched, clock, 1.0) == (a, "a0")
    assert serve(sched, clock, 1.0) == (b, "b0")
    work = next_text(sched, warm)
    assert work == (a, "a1")
    clock.now += 0.7
    announcement = make(loop, "c")
    sched.admit(announcement)
    sched.add(announcement, Piece("c0"))
    sched.add(announcement, Piece("c1"))
    clock.now += 0.3
    a.listener.heard(0.5, clock.now)
    sched.done(a)
    assert b.runs_out_at < announcement.runs_out_at  # earliest run-out would serve `b`
    assert serve(sched, clock, 1.0) == (announcement, "c0")
    # Then every listener out of audio, in turns: the one served longest ago first.
    assert [serve(sched, clock, 1.0)[0] for _ in range(4)] == [b, a, announcement, b]


def test_listeners_out_of_audio_take_turns_however_long_ago_they_ran_out(
    clock: Clock, loop
) -> None:
    """`b` ran out long before `a` (its piece made less audio), yet `a`, served longer ago,
    goes next: one piece each."""
    sched = Scheduler(max_queue=5)
    a, b = long_texts(sched, loop, "a", "b")
    assert serve(sched, clock, 1.0, audio=1.5) == (a, "a0")
    assert serve(sched, clock, 1.0, audio=0.1) == (b, "b0")
    clock.now += 5
    assert b.runs_out_at < a.runs_out_at < clock.now
    assert [serve(sched, clock, 1.0)[1] for _ in range(4)] == ["a1", "b1", "a2", "b2"]


def test_a_listener_that_just_ran_out_counts_as_out_of_audio(clock: Clock, loop) -> None:
    """Out of audio at the very moment its audio ends: it takes its turn before a listener
    that still has audio, even one admitted earlier."""
    sched = Scheduler(max_queue=5)
    playing, out = long_texts(sched, loop, "playing", "out")
    playing.listener.heard(10.0, clock.now)
    assert serve(sched, clock, 1.0, audio=1.0) == (out, "out0")
    clock.now += 1.0
    assert out.runs_out_at == clock.now < playing.runs_out_at
    assert next_text(sched, warm) == (out, "out1")


def test_a_stream_of_newcomers_cannot_starve_a_request_in_turns(clock: Clock, loop) -> None:
    """One client sends one-sentence requests, one after another: each is a newcomer. The long
    text still gets a turn once as many newcomers as other listeners have gone ahead of it."""
    sched = Scheduler(max_queue=5)
    (long,) = long_texts(sched, loop, "long", pieces=6)
    assert serve(sched, clock, 1.0, audio=0.0) == (long, "long0")
    listener = Listener()
    for number in range(4):
        request = make(loop, f"n{number}", listener=listener)
        sched.admit(request)
        sched.add(request, Piece(f"n{number}"))
        sched.close(request)
    spoken = [serve(sched, clock, 1.0, audio=0.0)[1] for _ in range(8)]  # all out of audio
    assert spoken == ["n0", "long1", "n1", "long2", "n2", "long3", "n3", "long4"]


def test_newcomers_go_ahead_of_each_request_in_turns_once_per_other_listener(
    clock: Clock, loop
) -> None:
    """Two long texts out of audio, two newcomers at once: both newcomers go first (each long
    text has three other listeners in care); neither a listener with audio left nor a newcomer
    is counted as overtaken."""
    sched = Scheduler(max_queue=9)
    a, b = long_texts(sched, loop, "a", "b")
    serve(sched, clock, 1.0)
    serve(sched, clock, 1.0)
    clock.now += 0.5
    assert a.runs_out_at < b.runs_out_at == clock.now  # `b` has just run out: it counts
    first, second = make(loop, "first"), make(loop, "second")
    for request in (first, second):
        sched.admit(request)
        sched.add(request, Piece(request.voice.name))
    assert [serve(sched, clock, 1.0)[0] for _ in range(2)] == [first, second]
    assert (a.overtaken, b.overtaken) == (2, 2)
    assert [serve(sched, clock, 1.0)[0] for _ in range(2)] == [a, b]
    assert (a.overtaken, b.overtaken, a.turn, b.turn) == (0, 0, 5, 6)
    clock.now += 1.0
    a.listener.heard(100.0, clock.now)
    playing = make(loop, "playing")  # a newcomer whose listener still has audio
    sched.admit(playing)
    sched.add(playing, Piece("p"))
    playing.listener.heard(100.0, clock.now)
    third = make(loop, "third")
    sched.admit(third)
    sched.add(third, Piece("t"))
    assert serve(sched, clock, 1.0) == (third, "t")
    assert (a.overtaken, b.overtaken, playing.overtaken) == (0, 1, 0)


def test_later_text_keeps_the_time_the_oldest_text_became_ready(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("a"))
    clock.now += 3
    sched.add(request, Piece("b"))
    assert request.ready_since == 100.0


def test_warm_goes_first_until_a_cold_piece_has_waited_and_the_engine_has_stayed(
    clock: Clock, loop
) -> None:
    sched = Scheduler(max_queue=5, switch_after=1.5)
    cold, hot = make(loop, "cold"), make(loop, "hot")
    sched.admit(cold)
    sched.admit(hot)
    for piece in ("c1", "c2", "c3"):
        sched.add(cold, Piece(piece))
    clock.now += 0.5
    for piece in ("h1", "h2", "h3"):
        sched.add(hot, Piece(piece))
    hot_is_warm = {"hot": True, "cold": False}

    def is_warm(request: SpeechRequest) -> bool:
        return hot_is_warm[request.voice.name]

    clock.now += 1.0  # the cold piece is out of audio for exactly 1.5 s: not more
    assert next_text(sched, is_warm) == (hot, "h1")
    sched.done(hot)
    clock.now += 1.0  # 2.0 s: it must switch (the engine has stayed with `hot` for long)
    assert next_text(sched, is_warm) == (cold, "c1")
    clock.now += 3.0  # the switch took 3 s
    sched.done(cold)
    cold.listener.heard(100.0, clock.now)  # `cold` now has plenty of audio
    hot_is_warm = {"hot": False, "cold": True}
    clock.now += 1.5  # `hot` is starved, but the engine stayed 1.5 s < the 3 s the switch took
    assert next_text(sched, is_warm) == (cold, "c2")
    sched.done(cold)
    clock.now += 1.5  # stayed exactly as long as the switch took: enough
    assert next_text(sched, is_warm) == (hot, "h2")
    sched.done(hot)
    # Nothing warm is ready: the cold piece goes at once.
    hot_is_warm = {"hot": False, "cold": False}
    assert next_text(sched, is_warm) == (hot, "h3")


def test_the_most_urgent_warm_piece_goes_and_warm_pieces_are_not_switches(
    clock: Clock, loop
) -> None:
    sched = Scheduler(max_queue=5, switch_after=1.5)
    newer, cold, older = make(loop, "newer"), make(loop, "cold"), make(loop, "older")
    for request in (newer, cold, older):
        sched.admit(request)
    for piece in ("c1", "c2", "c3"):
        sched.add(cold, Piece(piece))
    clock.now += 0.25
    sched.add(older, Piece("o"))
    clock.now += 0.25
    sched.add(newer, Piece("n"))
    warmth = {"cold": False, "older": True, "newer": True}

    def is_warm(request: SpeechRequest) -> bool:
        return warmth[request.voice.name]

    assert next_text(sched, is_warm) == (older, "o")  # `cold` waits, the older warm one goes
    sched.done(older)
    clock.now = 102.0  # `cold` starved 2 s: switch
    assert next_text(sched, is_warm) == (cold, "c1")
    clock.now = 102.5
    sched.done(cold)  # the switch took 0.5 s
    warmth = {"cold": True, "older": False, "newer": False}
    assert next_text(sched, is_warm) == (cold, "c2")  # the most urgent, and warm: no switch
    clock.now = 104.0
    sched.done(cold)
    cold.listener.heard(100.0, clock.now)
    # The engine has stayed 1.5 s since the switch (the warm piece did not restart that).
    assert next_text(sched, is_warm) == (newer, "n")


def test_a_warm_piece_that_is_the_most_urgent_is_not_a_switch(clock: Clock, loop) -> None:
    """The engine stays with `a` from its cold first piece on (3 s); its warm second piece
    must not restart that stay, or `b` would get its switch 1.5 s after it."""
    sched = Scheduler(max_queue=5, switch_after=1.5)
    (a,) = long_texts(sched, loop, "a", pieces=3)
    warmth = {"a": False, "b": False}

    def is_warm(request: SpeechRequest) -> bool:
        return warmth[request.voice.name]

    assert next_text(sched, is_warm) == (a, "a0")  # nothing warm: a switch
    clock.now = 103.0
    sched.done(a)  # the switch took 3 s
    warmth["a"] = True
    assert next_text(sched, is_warm) == (a, "a1")  # the most urgent, and warm
    clock.now = 104.0
    sched.done(a)
    b = make(loop, "b")
    sched.admit(b)
    sched.add(b, Piece("b0"))
    clock.now = 105.6  # `b` starved 1.6 s; the engine stayed 2.6 s, less than the 3 s switch
    assert next_text(sched, is_warm) == (a, "a2")


def test_a_cold_piece_goes_at_once_when_nothing_warm_is_ready(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("x"))
    assert next_text(sched, lambda _: False) == (request, "x")


def test_at_most_max_queue_listeners_and_a_listeners_later_requests_do_not_count(loop) -> None:
    sched = Scheduler(max_queue=2)
    first = make(loop)
    sched.admit(first)
    sched.admit(make(loop, listener=first.listener))  # the same listener: its own line
    assert sched.in_care == 1
    sched.admit(make(loop))
    assert sched.in_care == 2
    with pytest.raises(EngineBusy) as busy:
        sched.admit(make(loop))
    assert busy.value.error.code == BUSY
    assert sched.in_care == 2


def test_only_the_first_request_of_a_line_competes(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5)
    first = make(loop, "first")
    later = make(loop, "later", listener=first.listener)
    sched.admit(first)
    sched.admit(later)
    sched.add(later, Piece("l"))
    clock.now += 1
    sched.add(first, Piece("f"))
    sched.close(first)
    assert next_text(sched, warm) == (first, "f")
    sched.done(first)
    assert first.finished and outputs(loop, first) == [None]
    assert next_text(sched, warm) == (later, "l")
    assert sched.in_care == 1


def test_a_listener_holding_max_buffered_bytes_is_paused(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=5, max_buffered=1000)
    full, other = make(loop, "full"), make(loop, "other")
    sched.admit(full)
    sched.admit(other)
    sched.add(full, Piece("f"))
    clock.now += 1
    sched.add(other, Piece("o"))
    full.listener.add(1000)
    assert next_text(sched, warm) == (other, "o")
    sched.done(other)
    full.listener.remove(1)
    assert next_text(sched, warm) == (full, "f")


def test_the_rest_of_a_piece_goes_back_first_in_order(loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("c"))
    assert next_text(sched, warm) == (request, "c")
    sched.add(request, Piece("d"))
    sched.done(request, [Piece(t) for t in ["a", "b"]])
    spoken = []
    for _ in range(3):
        piece = next_text(sched, warm)
        assert piece is not None
        spoken.append(piece[1])
        sched.done(request)
    assert spoken == ["a", "b", "d"]


def test_close_ends_a_request_once_its_text_is_spoken(loop) -> None:
    sched = Scheduler(max_queue=5)
    idle, busy, running = make(loop), make(loop), make(loop)
    for request in (idle, busy, running):
        sched.admit(request)
    sched.close(idle)  # nothing pending, not running: ends now
    assert idle.finished and outputs(loop, idle) == [None]
    sched.add(busy, Piece("b"))
    sched.close(busy)  # text still pending: not yet
    assert not busy.finished
    sched.add(running, Piece("r"))
    assert next_text(sched, warm) in ((busy, "b"), (running, "r"))
    piece = next_text(sched, warm)
    assert piece is not None
    sched.close(running)  # running: ends when the engine is done
    assert not running.finished
    sched.done(busy)
    sched.done(running)
    assert busy.finished and running.finished
    assert outputs(loop, busy) == [None] and outputs(loop, running) == [None]
    assert sched.in_care == 0


def test_every_ended_request_is_in_the_recent_record(loop) -> None:
    """The studio's status lists what ended, however it ended, newest first."""
    sched = Scheduler(max_queue=5)
    spoken, refused = make(loop, "spoken"), make(loop, "refused")
    for request in (spoken, refused):
        sched.admit(request)
    sched.add(spoken, Piece("s"))
    sched.close(spoken)
    assert next_text(sched, warm) == (spoken, "s")
    sched.done(spoken)
    refused.add_error(WARNING)
    sched.cancel(refused)
    recent = sched.recent.snapshot()
    assert [(item["voice"], item["errors"]) for item in recent] == [
        ("refused", (TEXT_TOO_LONG,)),
        ("spoken", ()),
    ]


def test_an_open_request_stays_after_its_text_is_spoken(loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("a"))
    assert next_text(sched, warm) == (request, "a")
    sched.done(request)
    assert not request.finished and sched.in_care == 1


def test_cancel_ends_an_idle_request_now_and_a_running_one_when_its_piece_is_done(loop) -> None:
    sched = Scheduler(max_queue=5)
    idle, running = make(loop), make(loop)
    sched.admit(idle)
    sched.admit(running)
    sched.add(idle, Piece("never spoken"))
    sched.add(running, Piece("r"))
    sched.add(running, Piece("dropped"))
    assert next_text(sched, lambda r: r is running) == (running, "r")
    sched.cancel(idle)
    assert idle.finished and idle.stop.is_set() and not idle.pending and idle.errors == []
    sched.cancel(running, WARNING)
    assert not running.finished and running.stop.is_set() and not running.pending
    sched.add(running, Piece("late"))
    assert not running.pending
    sched.done(running, [Piece(t) for t in ["rest"]])
    assert running.finished and [e.code for e in running.errors] == [TEXT_TOO_LONG]
    assert outputs(loop, running) == [None]
    assert sched.in_care == 0


def test_abandon_ends_the_output_even_while_the_engine_is_stuck_in_it(loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("a"))
    sched.add(request, Piece("b"))
    assert next_text(sched, warm) == (request, "a")
    sched.abandon(request)
    assert request.finished and request.stop.is_set() and not request.pending
    assert [e.code for e in request.errors] == [SHUTDOWN]
    sched.done(request)  # the engine comes back: nothing more happens
    assert outputs(loop, request) == [None]
    assert sched.in_care == 0


def test_stop_ends_every_request_with_shutdown_and_refuses_new_ones(loop) -> None:
    sched = Scheduler(max_queue=5)
    first = make(loop)
    queued = make(loop, listener=first.listener)
    other = make(loop)
    for request in (first, queued, other):
        sched.admit(request)
    sched.add(other, Piece("o"))
    sched.stop()
    for request in (first, queued, other):
        assert request.finished and request.stop.is_set()
        assert [e.code for e in request.errors] == [SHUTDOWN]
        assert outputs(loop, request) == [None]
    assert next_text(sched, warm) is None
    with pytest.raises(EngineBusy) as refused:
        sched.admit(make(loop))
    assert refused.value.error.code == SHUTDOWN


def test_next_waits_for_text_and_stop_wakes_it(loop) -> None:
    sched = Scheduler(max_queue=5)
    request = make(loop)
    sched.admit(request)
    got: list[object] = []
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()
    engine.join(0.05)
    assert engine.is_alive() and not got  # nothing to speak yet: it waits
    sched.add(request, Piece("x"))
    engine.join(10)
    assert got == [(request, "x")]
    sched.done(request)
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()
    sched.stop()
    engine.join(10)
    assert got[-1] is None


def test_stop_wakes_an_engine_waiting_with_nothing_in_care() -> None:
    sched = Scheduler(max_queue=5)
    got: list[object] = []
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()
    engine.join(0.05)
    sched.stop()
    engine.join(10)
    assert got == [None]


def test_a_paused_listener_resumes_when_it_reads(loop) -> None:
    sched = Scheduler(max_queue=5, max_buffered=1000)
    request = make(loop)
    sched.admit(request)
    sched.add(request, Piece("x"))
    request.listener.add(1000)
    got: list[object] = []
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()
    engine.join(0.05)
    assert not got
    request.listener.remove(500)
    sched.wake()
    engine.join(10)
    assert got == [(request, "x")]


def test_a_finished_request_wakes_the_engine_for_the_next_in_its_line(loop) -> None:
    sched = Scheduler(max_queue=5)
    first = make(loop)
    later = make(loop, listener=first.listener)
    sched.admit(first)
    sched.admit(later)
    sched.add(later, Piece("l"))  # waits behind `first`
    got: list[object] = []
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()
    engine.join(0.05)
    assert not got
    sched.close(first)
    engine.join(10)
    assert got == [(later, "l")]


def test_the_engine_is_woken_when_a_piece_is_done_and_more_is_ready(loop) -> None:
    sched = Scheduler(max_queue=5, max_buffered=1000)
    request = make(loop)
    sched.admit(request)
    for piece in ("a", "b"):
        sched.add(request, Piece(piece))
    assert next_text(sched, warm) == (request, "a")
    got: list[object] = []
    engine = threading.Thread(target=lambda: got.append(next_text(sched, warm)), daemon=True)
    engine.start()  # a second engine call waits while `request` is running
    engine.join(0.05)
    assert not got
    sched.done(request)
    engine.join(10)
    assert got == [(request, "b")]


def test_listener_audio_plays_after_what_it_has_or_from_now() -> None:
    listener = Listener()
    listener.heard(2.0, 10.0)
    listener.heard(1.0, 11.0)  # queued behind the 2 s still playing
    assert listener.plays_until == 13.0
    listener.heard(1.0, 20.0)  # it had run out: plays from now
    assert listener.plays_until == 21.0


def test_a_request_runs_out_when_its_listener_does_but_not_before_its_text_was_ready(
    loop,
) -> None:
    request = make(loop)
    request.ready_since = 50.0
    assert request.runs_out_at == 50.0
    request.listener.heard(5.0, 40.0)
    assert request.runs_out_at == 50.0
    request.listener.heard(20.0, 40.0)
    assert request.runs_out_at == 65.0


def test_emit_counts_audio_and_each_error_code_is_reported_once(loop) -> None:
    request = make(loop)
    request.emit(b"\0" * BYTES_PER_SECOND)
    assert request.audio_seconds == 1.0 and request.listener.unread == BYTES_PER_SECOND
    request.add_error(WARNING)
    request.add_error(JobError(SHUTDOWN, "x"))
    request.add_error(WARNING)
    assert [e.code for e in request.errors] == [SHUTDOWN, TEXT_TOO_LONG]


# Idle time for the engine's own work (a provisional speed decision measured again).


def test_idle_comes_after_the_asked_time_with_nobody_in_care(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=2)
    clock.now += 5.0
    assert sched.next(warm, idle_after=5.0) == IDLE
    assert not sched.arrived.is_set()
    clock.now += 4.9  # once per idle period: the next one starts now
    request = make(loop)
    sched.admit(request)
    assert sched.arrived.is_set()  # the idle work stops for it
    sched.add(request, Piece("Hello."))
    assert next_text(sched, warm) == (request, "Hello.")
    sched.done(request)
    sched.close(request)
    clock.now += 4.9  # the period counts from when the last request ended
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(sched.next(warm, idle_after=5.0)))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and not got
    sched.stop()
    waiting.join(5)
    assert got == [None]


def test_no_idle_while_a_listener_has_a_request_in_care(clock: Clock, loop) -> None:
    sched = Scheduler(max_queue=2)
    request = make(loop)
    sched.admit(request)  # a stream waiting for its text
    clock.now += 60.0
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(sched.next(warm, idle_after=1.0)))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and not got
    sched.add(request, Piece("Hello."))
    waiting.join(5)
    assert got and got[0] not in (IDLE, None)


def test_an_idle_period_starts_with_no_arrival_of_its_own(clock: Clock, loop) -> None:
    """A request that came and went before the idle period does not stop its work."""
    sched = Scheduler(max_queue=2)
    request = make(loop)
    sched.admit(request)
    sched.close(request)  # nothing pending: it ends now
    assert request.finished and sched.arrived.is_set()
    clock.now += 5.0
    assert sched.next(warm, idle_after=5.0) == IDLE
    assert not sched.arrived.is_set()


def test_a_request_waiting_for_its_voice_lets_the_others_go_until_woken(clock: Clock, loop) -> None:
    """A new voice's child runs off the engine (`voice_states.making`): the request that waits
    for it gets no piece, even as the oldest newcomer; the others are served meanwhile, and a
    `next` blocked on it alone returns it once the child ends and `wake` is called."""
    sched = Scheduler(max_queue=5)
    new, warm_one = make(loop, "new"), make(loop, "warm")
    sched.admit(new)
    sched.admit(warm_one)
    sched.add(new, Piece("n1"))
    clock.now += 1
    sched.add(warm_one, Piece("w1"))
    made = threading.Event()

    def waits(request: SpeechRequest, piece: Piece) -> bool:
        return request is new and not made.is_set()

    work = sched.next(warm, waits=waits)
    assert work is not None and (work[0], work[1].text) == (warm_one, "w1")
    sched.done(warm_one)
    got: list[object] = []
    waiting = threading.Thread(target=lambda: got.append(sched.next(warm, waits=waits)))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive()  # nothing ready: the voice is still being made
    made.set()
    sched.wake()
    waiting.join(5)
    assert [(work[0], work[1].text) for work in got] == [(new, "n1")]  # type: ignore[index]
