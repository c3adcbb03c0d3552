"""The graphs made in a child process, from the server's side: `ExportProcess` starts
`python -m wyoming_pocket_tts.engine.graph_build.child` (`CHILD`) and waits for it, on the
caller's thread; the child (nice 19, ended with the server: `process`) writes the
graphs into the folder it is given, exits 0, or 1 with a one-line reason. Its memory goes with
it.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from ...settings import ModelSettings
from .process import Child, ChildFailed, model_args

_LOGGER = logging.getLogger(__name__)

CHILD = "wyoming_pocket_tts.engine.graph_build.child"
"""The child's program (`graph_build.child.main`), run by module name: the graphs' runtime
never imports what makes them."""
TIMEOUT = 30 * 60.0
"""Seconds an export may take (several minutes at full size on a Pi) before it is killed."""

ExportFailed = ChildFailed
"""The export child failed, was killed (at `TIMEOUT`, or by the system) or was stopped."""


class ExportProcess:
    """One export child: `run` it (blocking), `stop` it from any thread."""

    def __init__(self, settings: ModelSettings, int8: bool) -> None:
        self._arguments = [*model_args(settings), *(["--int8"] if int8 else [])]
        self._child = Child(CHILD, "the graph build")

    @property
    def stopped(self) -> bool:
        return self._child.stopped

    @property
    def running(self) -> bool:
        """The child has started and not ended."""
        return self._child.running

    def run(self, folder: Path) -> None:
        """Export into `folder`, logging the child's time when done; `ExportFailed` if the
        child fails, outlives `TIMEOUT` or is stopped."""
        started = time.monotonic()
        self._child.run([str(folder), *self._arguments], TIMEOUT)
        took, pid = time.monotonic() - started, self._child.pid
        _LOGGER.info("Built the graphs in %.1f s (process %d)", took, pid)

    def stop(self) -> None:
        """Kill the child, if it runs (the server stops, or no longer needs the graphs)."""
        self._child.stop()
