"""The graph export as a child process: `python -m wyoming_pocket_tts.engine.onnx.child`.

`torch.onnx.export` traces with torch.fx, which patches `torch.nn.Module.__call__` for the whole
process while it runs: a request served meanwhile on the engine thread failed inside fx
(`AssertionError: Unexpected key ...`). The tracing also holds the GIL for tens of seconds, and
its peak memory would stay with the server. So the export runs in a process of its own, at nice
19, from its own fp32 copy of the model: `run` starts it and waits (on the caller's thread),
`main` is the child. The child writes the graphs into the folder it is given as an in-process
export would (`onnx.cache.prepare_graphs`: a partial export removed), exits 0, or 1 with a one-line
reason on its stderr (`REASON`); it ends itself when the server goes away (its stdin closes).
"""

from __future__ import annotations

import argparse
import logging
import os
import site
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ...host import lowest_priority
from ...settings import ModelSettings

_LOGGER = logging.getLogger(__name__)

TIMEOUT = 30 * 60.0
"""Seconds an export may take (several minutes at full size on a Pi) before it is killed."""
REASON = "Export failed: "
"""Begins the line of stderr in which the child says why it failed."""


class ExportFailed(Exception):
    """The export child failed, was killed at `TIMEOUT`, or was stopped; the message says why."""


class ExportProcess:
    """One export child: `run` it (blocking), `stop` it from any thread."""

    def __init__(self, settings: ModelSettings, int8: bool) -> None:
        self._arguments = [*_model_args(settings), *(["--int8"] if int8 else [])]
        self._process: subprocess.Popen[bytes] | None = None
        self._stopped = threading.Event()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    @property
    def running(self) -> bool:
        """The child has started and not ended."""
        process = self._process
        return process is not None and process.poll() is None

    def run(self, folder: Path) -> None:
        """Export into `folder`, logging the child's pid and, when done, its time;
        `ExportFailed` if the child fails, outlives `TIMEOUT` or is stopped."""
        started, limit = time.monotonic(), TIMEOUT
        command = [sys.executable, "-m", __name__, str(folder), *self._arguments]
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors,
                env=_child_env(),
            )  # fmt: skip
            self._process = process
            _LOGGER.info("The graph export runs in a separate process (pid %d)", process.pid)
            if self._stopped.is_set():
                process.kill()
            try:
                code = process.wait(limit)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise ExportFailed(f"the export took more than {limit:g} s (killed)") from None
            finally:
                if process.stdin is not None:
                    process.stdin.close()
            errors.seek(0)
            lines = errors.read().decode(errors="replace").splitlines()
        for line in lines:
            _LOGGER.debug("Export process %d: %s", process.pid, line)
        if self._stopped.is_set():
            raise ExportFailed("the export was stopped")
        if code != 0:
            raise ExportFailed(_reason(lines, code))
        _LOGGER.info(
            "Exported the graphs in %.1f s (process %d)", time.monotonic() - started, process.pid
        )

    def stop(self) -> None:
        """Kill the child, if it runs (the server stops, or no longer needs the graphs)."""
        self._stopped.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()


def _reason(lines: list[str], code: int) -> str:
    """The child's own reason (`REASON`), else its exit code and last line (a crash's)."""
    given = [line[len(REASON) :] for line in lines if line.startswith(REASON)]
    if given:
        return given[-1]
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return f"the export process ended with code {code}" + (f": {last}" if last else "")


def _model_args(settings: ModelSettings) -> list[str]:
    if settings.config is not None:
        return ["--config", settings.config]
    return ["--model", str(settings.model)]


def _child_env() -> dict[str, str]:
    """This environment, with this package first on the path where it is not installed in a
    site folder (a source tree): the child runs the server's code."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[__name__.count(".")])  # above the package
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    sites = {str(Path(folder).resolve()) for folder in folders}
    if root not in sites:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return env


def main(argv: list[str] | None = None) -> int:
    """The child: nice 19 first, then the export; 0, or 1 with a one-line reason."""
    why_not = lowest_priority()
    if why_not is not None:
        print(f"The export runs at normal priority: {why_not}", file=sys.stderr)
    parser = argparse.ArgumentParser(description="Export a model's ONNX graphs into FOLDER.")
    parser.add_argument("folder", type=Path)
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", help="a pocket-tts built-in model")
    model.add_argument("--config", help="a pocket-tts YAML config")
    parser.add_argument("--int8", action="store_true", help="the int8 graphs too")
    args = parser.parse_args(argv)
    _end_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        from ..model.loading import plain_model
        from .cache import prepare_graphs

        settings = ModelSettings(model=args.model, config=args.config)
        prepare_graphs(plain_model(settings, False), args.folder, args.int8)
    except Exception as error:  # the reason, as the last line of stderr
        print(REASON + one_line(error), file=sys.stderr, flush=True)
        return 1
    return 0


def one_line(error: BaseException) -> str:
    """`error`'s type and the first line of its message (torch's run to pages)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def _end_with_parent() -> None:
    """Exit as soon as stdin closes: the server ended (or killed) without stopping us."""

    def watch() -> None:  # on the descriptor: a buffered read's lock would stop the exit
        while os.read(0, 4096):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
