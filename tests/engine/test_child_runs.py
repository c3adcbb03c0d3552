"""How `Child.run` ends a child and says why, on real processes. Modules of the standard library
stand in for the server's children (`timeit` running a long sleep, an endless loop or a
starved piece of work; `json.tool` given a file that is not there): the ending is `Child`'s,
whatever the child; the server's own children's endings are tested where they run
(test_onnx_runtime, test_cloning, test_without_torch).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wyoming_pocket_tts.engine.children import process
from wyoming_pocket_tts.engine.children.process import Child, ChildFailed, Ending

pytestmark = pytest.mark.timeout(120)

SLEEP = ["-n", "1", "import time; time.sleep(600)"]
"""`python -m timeit` arguments: a child that would sleep for 10 minutes (five times over:
timeit's repeats) and use no CPU."""
SPIN = ["-n", "1", "while True: pass"]
"""`python -m timeit` arguments: a child that would use CPU for ever."""


@pytest.mark.parametrize(
    ("arguments", "cpu_time", "said"),
    [
        (SPIN, 0.5, r"the child used more than 0\.5 s of CPU"),  # a runaway
        (SLEEP, 300, r"the child used no CPU for 1 s"),  # stuck: `STALLED` seconds, here 1
    ],
)
def test_a_child_past_its_bounds_is_killed_then_and_there(
    arguments: list[str], cpu_time: float, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runaway (past its CPU time) and a stuck child (a deadlock, a read that never returns:
    no CPU for `STALLED` seconds) are killed then, not waited for; the ending says so, and the
    child is not running after."""
    monkeypatch.setattr(process, "STALLED", 1.0)
    child = Child("timeit", "the child")
    started = time.monotonic()
    try:
        with pytest.raises(ChildFailed, match=said) as failed:
            child.run(arguments, cpu_time=cpu_time)
        assert failed.value.ending is Ending.TIMED_OUT
        assert time.monotonic() - started < 60 and not child.running
    finally:  # a broken kill must not leave a spinning child to starve the tests after it
        if child.running:
            os.kill(child.pid, signal.SIGKILL)


def test_without_proc_the_clock_stands_in_for_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a child's CPU time cannot be read (no /proc: not Linux; SIMULATED by `cpu_seconds`
    answering None, since this host is Linux), the clock bounds it: a child that sleeps is
    killed once its CPU time has passed on the clock, not before."""
    monkeypatch.setattr(process, "cpu_seconds", lambda pid: None)
    child = Child("timeit", "the sleep")
    started = time.monotonic()
    with pytest.raises(ChildFailed, match=r"the sleep used more than 2 s") as failed:
        child.run(SLEEP, cpu_time=2.0)
    assert failed.value.ending is Ending.TIMED_OUT
    assert 2.0 <= time.monotonic() - started < 60 and not child.running


def test_a_child_starved_by_a_busy_host_is_slow_not_killed() -> None:
    """A child at nice 19 on a core another process keeps busy (a household's busy host) gets a
    sliver of it: it needs 0.15 s of CPU (0.03 s five times: timeit's repeats) and takes
    seconds of the clock, more than its 1 s of CPU time. It is let finish. Both pinned to one
    core, so the other cores' idleness cannot feed it."""
    core = min(os.sched_getaffinity(0))
    pin = f"import os; os.sched_setaffinity(0, {{{core}}})"
    work = "t = time.process_time()\nwhile time.process_time() - t < 0.03: pass"
    hog = subprocess.Popen([sys.executable, "-c", f"{pin}\nwhile True: pass"])
    try:
        child = Child("timeit", "the starved work")
        started = time.monotonic()
        child.run(["-n", "1", "-s", f"{pin}; os.nice(19); import time", work], cpu_time=1.0)
        took = time.monotonic() - started
    finally:
        hog.kill()
        hog.wait()
    assert took > 2.0, f"not starved ({took:.1f} s): the test did not test its case"


def test_a_child_stopped_before_it_starts_ends_at_once_as_stopped() -> None:
    """A stop that comes before the child starts (a server stopping while the child waited for
    its turn): `stop` raises nothing, and the child never starts: no process, no log line that
    would land in whatever the server does next."""
    child = Child("timeit", "the sleep")
    child.stop()
    started = time.monotonic()
    with pytest.raises(ChildFailed, match="the sleep was stopped") as failed:
        child.run(SLEEP, cpu_time=300)
    assert failed.value.ending is Ending.STOPPED
    assert time.monotonic() - started < 60 and child.pid == 0


def test_a_child_that_fails_without_a_reason_is_told_by_its_code_and_last_line(
    tmp_path: Path,
) -> None:
    """No `Failed:` line on its stderr: the message says the work, the exit code and the
    child's last line (here argparse's, naming the missing file)."""
    missing = tmp_path / "missing.json"
    with pytest.raises(ChildFailed) as failed:
        Child("json.tool", "the check").run([str(missing)], cpu_time=60)
    assert failed.value.ending is Ending.FAILED
    message = str(failed.value)
    assert message.startswith("the check ended with code 2: "), message
    assert str(missing) in message, message
