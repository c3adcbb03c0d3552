"""The graphs made in a child process, from the server's side: `ExportProcess` starts
`python -m wyoming_pocket_tts.engine.graph_build.child` (`CHILD`) and waits for it, on the
caller's thread; the child (nice 19 unless the server waits for it, ended with the server:
`process`) writes the graphs into the folder it is given, exits 0, or 1 with a one-line reason.
Its memory goes with it.
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
CPU_TIME = 30 * 60.0
"""Seconds of CPU a build may use (a few minutes at full size on a Pi) before it is killed."""

ExportFailed = ChildFailed
"""The export child failed, was killed (past `CPU_TIME`, or by the system) or was stopped."""


class ExportProcess:
    """One export child: `run` it (blocking), `stop` it from any thread."""

    def __init__(self, settings: ModelSettings, int8: bool, lowest: bool = True) -> None:
        """`lowest`: at nice 19, as work beside serving; else at the server's priority."""
        self._arguments = [*model_args(settings), *(["--int8"] if int8 else [])]
        self._child = Child(CHILD, "the graph build", lowest)

    @property
    def stopped(self) -> bool:
        return self._child.stopped

    @property
    def running(self) -> bool:
        """The child has started and not ended."""
        return self._child.running

    def run(self, folder: Path) -> None:
        """Export into `folder`, logging the child's time when done; `ExportFailed` if the
        child fails, runs past its bounds (`CPU_TIME`) or is stopped."""
        started = time.monotonic()
        self._child.run([str(folder), *self._arguments], CPU_TIME)
        took, pid = time.monotonic() - started, self._child.pid
        _LOGGER.info("Built the graphs in %.1f s (process %d)", took, pid)

    def stop(self) -> None:
        """Kill the child, if it runs (the server stops, or no longer needs the graphs)."""
        self._child.stop()
