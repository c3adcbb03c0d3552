"""`--runtime onnx|auto` without loaded graphs: exported (once) and loaded in the background
while torch serves.

An export takes a minute or more of CPU at full size (`onnx.cache`), far beyond the seconds a start
may take. So the model starts on torch, and a child process at the lowest CPU priority exports
the graphs (`children.graphs`: tracing in the serving process broke its requests). A thread of
the server waits for it, then loads the graphs' own loop on them (`onnx.lean`), from the cache
(or from a temporary folder, removed once the sessions are loaded, without a data folder). When
it is done, the engine thread switches to it at its next idle moment (`tuning.idle`,
`ModelPool.retune`; `auto` times both first): never on the asyncio loop, never during a
request. The torch model is then let go; torch itself stays imported until the next start,
which loads the cached graphs alone. A failure is the usual one warning line, remembered with
the cache like any other (an export killed, as the kernel kills a process out of memory, says
so in that line); torch keeps serving.

Exports queue with every heavy child (`children.process.QUEUE`): one at a time in the server, each
export with the load of its graphs after it, so two models' exports (two languages), or an
export and a voice's encoding, never add their peaks, nor the next child's peak the previous
graphs' load.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ...host import lowest_priority
from ...settings import ModelSettings
from ..children.graphs import ExportFailed, ExportProcess
from ..children.process import QUEUE, Ending
from .cache import (
    TEMPORARY_PREFIX,
    graph_folder,
    graphs_label,
    lean_model,
    needs_export,
    remember_failure,
    warn_torch,
)

if TYPE_CHECKING:
    from .lean import LeanModel

_LOGGER = logging.getLogger(__name__)

POLL = 5.0
"""Seconds of idleness after which the engine looks whether an export has finished."""


class BackgroundExport:
    """One model's graphs exported by a child process; `model` once they run."""

    def __init__(
        self, settings: ModelSettings, data_dir: Path | None, int8: bool, threads: int
    ) -> None:
        self.settings, self.int8, self.threads = settings, int8, threads
        self._data_dir = data_dir
        self.model: LeanModel | None = None
        """The graphs' own loop, once exported and loaded."""
        self.runs = graphs_label(int8)
        """What runs, in words."""
        self.done = threading.Event()
        self._process = ExportProcess(settings, int8)
        self._thread = threading.Thread(target=self._run, name="graph-export", daemon=True)

    def start(self) -> None:
        _LOGGER.info(
            "The %s model serves on torch while its ONNX Runtime graphs are prepared "
            "in the background (exported once; at low priority)",
            self.settings.code,
        )
        self._thread.start()

    @property
    def exporting(self) -> bool:
        """The export's child process runs now."""
        return self._process.running

    def stop(self) -> None:
        """End the export (the server stops, or the model was unloaded): torch stays."""
        self._process.stop()

    def _run(self) -> None:
        data_dir, temporary = self._data_dir, None
        try:
            why_not = lowest_priority(thread=True)  # the loading takes what requests leave
            if why_not is not None:
                _LOGGER.debug("The graphs load at normal priority: %s", why_not)
            if data_dir is None:  # the sessions hold the graphs in memory once loaded
                folder = temporary = Path(tempfile.mkdtemp(prefix=TEMPORARY_PREFIX))
            else:
                folder = graph_folder(data_dir, self.settings)
            if not QUEUE.acquire(blocking=False):
                _LOGGER.info("The %s model's graphs wait for another child", self.settings.code)
                QUEUE.acquire()
            try:
                self._prepare(folder)
            finally:
                QUEUE.release()
        except ExportFailed as error:  # one line: killed (out of memory?) or failed
            if error.ending is not Ending.STOPPED:
                warn_torch(self.settings.code, error)
                if data_dir is not None:
                    remember_failure(folder, error)
        except Exception as error:  # a load that fails here: torch keeps serving
            warn_torch(self.settings.code, error)
        finally:
            if temporary is not None:
                shutil.rmtree(temporary, ignore_errors=True)
            self.done.set()

    def _prepare(self, folder: Path) -> None:
        """Export into `folder` (where `auto` finds nothing cached), then load the graphs."""
        if self._process.stopped:
            raise ExportFailed("the export was stopped", Ending.STOPPED)
        if needs_export(self.settings, self._data_dir, self.int8):
            self._process.run(folder)
        self.model = lean_model(self.settings, folder, self.int8, self.threads)
        if self.model is not None and self.model.int8 != self.int8:  # refused here
            self.int8, self.runs = self.model.int8, graphs_label(self.model.int8)
