"""`--runtime onnx` without cached graphs: exported in the background while torch serves.

An export takes a minute or more of CPU at full size (`runtime`), far beyond the seconds a start
may take. So the model starts on torch, and a thread of its own, at the lowest CPU priority
(nice 19 for that thread, on Linux), loads a second fp32 copy, exports the graphs into the cache
and gives that copy the graphs. When it is done, the engine thread switches to it at its next
idle moment (`Engine`, `ModelPool.switch`): never on the asyncio loop, never during a request.
A failure is the usual one warning line, and torch keeps serving.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import ModelSettings

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

POLL = 5.0
"""Seconds of idleness after which the engine looks whether an export has finished."""


class BackgroundExport:
    """One model's graphs exported on a thread of its own; `model` once they run."""

    def __init__(
        self, settings: ModelSettings, data_dir: Path | None, int8: bool, threads: int
    ) -> None:
        self.settings, self.int8, self.threads = settings, int8, threads
        self._data_dir = data_dir
        self.model: TTSModel | None = None
        """The fp32 copy running the graphs, once exported and loaded."""
        self.runs = ""
        """What runs, in words (`runtime.onnx_or_torch`)."""
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="graph-export", daemon=True)

    def start(self) -> None:
        _LOGGER.info(
            "The %s model serves on torch while its ONNX Runtime graphs are exported "
            "in the background (once; at low priority)",
            self.settings.code,
        )
        self._thread.start()

    def _run(self) -> None:
        from .runtime import onnx_or_torch, warn_torch
        from .tuning import equip, plain_model

        try:
            _lowest_priority()
            model = plain_model(self.settings, False)
            runs = onnx_or_torch(model, self.settings, self._data_dir, self.int8, self.threads)
            if runs is not None:
                equip(model)
                self.model, self.runs = model, runs
        except Exception as error:  # a load that fails here: torch keeps serving
            warn_torch(self.settings.code, error)
        finally:
            self.done.set()


def _lowest_priority() -> None:
    """This thread at nice 19 (Linux gives threads their own nice value), so the export takes
    only what requests leave."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError) as error:
        _LOGGER.debug("The export runs at normal priority: %s", error)
