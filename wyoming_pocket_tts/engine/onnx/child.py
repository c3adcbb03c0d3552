"""The graph export as a child process: `python -m wyoming_pocket_tts.engine.onnx.child`.

`torch.onnx.export` traces with torch.fx, which patches `torch.nn.Module.__call__` for the whole
process while it runs: a request served meanwhile on the engine thread failed inside fx
(`AssertionError: Unexpected key ...`). The tracing also holds the GIL for tens of seconds, and
its peak memory would stay with the server. So the export runs in a process of its own
(`engine.child_process`: nice 19, ended with the server), from its own fp32 copy of the model:
`ExportProcess.run` starts it and waits (on the caller's thread), `main` is the child. The child
writes the graphs into the folder it is given (`onnx.cache.prepare_graphs`: a partial export
removed), exits 0, or 1 with a one-line reason.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from ...host import lowest_priority
from ...settings import ModelSettings
from ..child_process import Child, ChildFailed, add_model_args, end_with_parent, fail, model_args

_LOGGER = logging.getLogger(__name__)

TIMEOUT = 30 * 60.0
"""Seconds an export may take (several minutes at full size on a Pi) before it is killed."""

ExportFailed = ChildFailed
"""The export child failed, was killed (at `TIMEOUT`, or by the system) or was stopped."""


class ExportProcess:
    """One export child: `run` it (blocking), `stop` it from any thread."""

    def __init__(self, settings: ModelSettings, int8: bool) -> None:
        self._arguments = [*model_args(settings), *(["--int8"] if int8 else [])]
        self._child = Child(__name__, "the graph export")

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
        _LOGGER.info("Exported the graphs in %.1f s (process %d)", took, pid)

    def stop(self) -> None:
        """Kill the child, if it runs (the server stops, or no longer needs the graphs)."""
        self._child.stop()


def main(argv: list[str] | None = None) -> int:
    """The child: nice 19 first, then the export; 0, or 1 with a one-line reason."""
    why_not = lowest_priority()
    if why_not is not None:
        print(f"The export runs at normal priority: {why_not}", file=sys.stderr)
    parser = argparse.ArgumentParser(description="Export a model's ONNX graphs into FOLDER.")
    parser.add_argument("folder", type=Path)
    add_model_args(parser)
    parser.add_argument("--int8", action="store_true", help="the int8 graphs too")
    args = parser.parse_args(argv)
    end_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from ..model.loading import plain_model
        from .cache import prepare_graphs

        settings = ModelSettings(model=args.model, config=args.config)
        prepare_graphs(plain_model(settings, False), args.folder, args.int8)
    except Exception as error:  # the reason, as the last line of stderr
        return fail(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
