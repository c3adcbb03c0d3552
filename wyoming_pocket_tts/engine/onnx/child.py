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
import os
import sys
import time
from pathlib import Path

from ...host import first_to_go, lowest_priority
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
    """The child: nice 19 and the first to go when memory runs out, then the export; 0, or 1
    with a one-line reason.

    The fp32 graphs come from a model loaded here and emptied stage by stage (`onnx.export`);
    the int8 ones from their files, after this process has replaced itself (`INT8_ONLY`, the
    same pid) with one that never imports torch: torch, pocket-tts and what the export left
    in the heap would stay resident under the quantiser's peak otherwise."""
    why_not = lowest_priority()
    if why_not is not None:
        print(f"The export runs at normal priority: {why_not}", file=sys.stderr)
    first_to_go()
    parser = argparse.ArgumentParser(description="Export a model's ONNX graphs into FOLDER.")
    parser.add_argument("folder", type=Path)
    add_model_args(parser)
    parser.add_argument("--int8", action="store_true", help="the int8 graphs too")
    parser.add_argument(INT8_ONLY, action="store_true", help="only the int8 graphs, from fp32")
    arguments = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(arguments)
    end_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from .cache import exported_graphs, prepare_int8

        if args.int8_only:
            prepare_int8(args.folder)
            _note_peak("the int8 graphs")
            return 0
        if exported_graphs(args.folder) is None:
            _export_fp32(ModelSettings(model=args.model, config=args.config), args.folder)
        if args.int8:
            if "torch" in sys.modules:  # the same pid, without torch
                sys.stderr.flush()
                module = __spec__.name if __spec__ is not None else __name__  # not "__main__"
                os.execv(sys.executable, [sys.executable, "-m", module, *arguments, INT8_ONLY])
            prepare_int8(args.folder)
            _note_peak("the int8 graphs")
    except Exception as error:  # the reason, as the last line of stderr
        return fail(error)
    return 0


INT8_ONLY = "--int8-only"


def _export_fp32(settings: ModelSettings, folder: Path) -> None:
    from ..model.loading import plain_model
    from ..model.one_copy import one_copy_of_weights
    from .cache import prepare_graphs

    with one_copy_of_weights():  # one copy of the weights, not two
        model = plain_model(settings, False)
    _note_peak("loading the model")
    prepare_graphs(model, folder, False)
    _note_peak("the fp32 graphs")


def _note_peak(stage: str) -> None:
    """This process's peak resident memory so far (VmHWM), on stderr (logged at debug)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    except (OSError, StopIteration, IndexError):
        return
    print(f"Peak memory after {stage}: {int(kib) / 1024:.0f} MiB", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
