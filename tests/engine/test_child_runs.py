"""How `Child.run` ends a child and says why, on real processes. Modules of the standard library
stand in for the server's children (`timeit` running a long sleep; `json.tool` given a file that
is not there): the ending is `Child`'s, whatever the child; the server's own children's endings
are tested where they run (test_onnx_runtime, test_cloning, test_without_torch).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from wyoming_pocket_tts.engine.children.process import Child, ChildFailed, Ending

pytestmark = pytest.mark.timeout(120)

SLEEP = ["-n", "1", "import time; time.sleep(600)"]
"""`python -m timeit` arguments: a child that would run for 10 minutes."""


def test_a_child_past_its_time_is_killed_then_and_there() -> None:
    """Killed at its time, not waited for (the ending says so), and not running after."""
    child = Child("timeit", "the sleep")
    started = time.monotonic()
    with pytest.raises(ChildFailed, match=r"the sleep took more than 0\.5 s") as failed:
        child.run(SLEEP, timeout=0.5)
    assert failed.value.ending is Ending.TIMED_OUT
    assert time.monotonic() - started < 60 and not child.running


def test_a_child_stopped_before_it_starts_ends_at_once_as_stopped() -> None:
    """A stop that comes before the child starts (a server stopping while the child waited for
    its turn): `stop` raises nothing, and the child never starts: no process, no log line that
    would land in whatever the server does next."""
    child = Child("timeit", "the sleep")
    child.stop()
    started = time.monotonic()
    with pytest.raises(ChildFailed, match="the sleep was stopped") as failed:
        child.run(SLEEP, timeout=300)
    assert failed.value.ending is Ending.STOPPED
    assert time.monotonic() - started < 60 and child.pid == 0


def test_a_child_that_fails_without_a_reason_is_told_by_its_code_and_last_line(
    tmp_path: Path,
) -> None:
    """No `Failed:` line on its stderr: the message says the work, the exit code and the
    child's last line (here argparse's, naming the missing file)."""
    missing = tmp_path / "missing.json"
    with pytest.raises(ChildFailed) as failed:
        Child("json.tool", "the check").run([str(missing)], timeout=60)
    assert failed.value.ending is Ending.FAILED
    message = str(failed.value)
    assert message.startswith("the check ended with code 2: "), message
    assert str(missing) in message, message
