"""Work that peaks far above serving, run in a child process so the serving process never holds it.

The graphs' build (`graph_build.child`: the checkpoint read, the int8 graphs quantised and
measured; for split weights torch's export) and, where the graphs have no voice encoder, the
encoding of a new voice (`voice`, in torch) peak far above what serving needs, and torch's
tracing patches the whole process. Each runs as `python -m <module> ...` at nice 19
(`host.lowest_priority`; at the server's own priority where the server waits for it with
nothing else to serve: `SERVER_PRIORITY`), the first process the kernel ends when memory runs
out (`host.first_to_go`), both set by the child itself, and ends itself when the server goes
away (its stdin closes, `end_with_parent`). It is bounded by the CPU it uses, not the clock
(`Child._ended_by_bounds`). A child says why it failed
in the last line of its stderr that begins with `REASON`, for the log and the user, and how,
for the server, in its exit code (`fail`); `Child.run` raises `ChildFailed` with both: the
message, and an `Ending` the server acts on (the weights cannot clone, killed by a signal as
the kernel's out-of-memory killer does, timed out, stopped, or any other failure). Every child
begins with `child_main`. The server runs one heavy child at a time, whatever its work (`QUEUE`).
"""

from __future__ import annotations

import argparse
import enum
import logging
import os
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from ...host import cpu_seconds, first_to_go, lowest_priority
from ...settings import ModelSettings

_LOGGER = logging.getLogger(__name__)

REASON = "Failed: "
"""Begins the line of stderr in which a child says why it failed."""
SERVER_PRIORITY = "--server-priority"
"""Tells a child to keep the server's priority, not nice 19: the server waits for it with
nothing else to serve (the first build without torch), so nice 19 would only hand the
household's first sound to whatever else keeps the host busy."""
OWN_WARNING = "WARNING wyoming_pocket_tts."
"""Begins a warning of this package's modules on a child's stderr (its `logging.basicConfig`
format): something the household should see, as a checkpoint downloaded again."""


QUEUE = threading.Lock()
"""Held for each heavy child's run (a graph build, and in the background the load of its
graphs after it; a voice's encoding): two at once would add their peaks on a small board. Its
holders wait for nothing else."""


STALLED = 5 * 60.0
"""Seconds a child may use no CPU at all before it is taken for stuck and killed."""
POLL = 0.5
"""Seconds between two looks at a running child's CPU time."""


class Ending(enum.Enum):
    """How a child ended without doing its work: what the server does next depends on it."""

    FAILED = "failed"
    """It said why, or crashed."""
    NO_CLONING = "no cloning"
    """The model's weights cannot clone voices."""
    KILLED = "killed"
    """Ended by a signal (the kernel's out-of-memory killer sends SIGKILL)."""
    TIMED_OUT = "timed out"
    """Ran past its bounds (CPU time, or none for too long); the server killed it."""
    STOPPED = "stopped"
    """The server stopped it (it stops, or no longer needs the work)."""


EXIT_CODES = {Ending.FAILED: 1, Ending.NO_CLONING: 3}
"""The endings a child gives itself, as its exit code (`fail`)."""
_BY_CODE = {code: ending for ending, code in EXIT_CODES.items()}


class ChildFailed(Exception):
    """A child did not do its work: the message says why, `ending` how."""

    def __init__(self, message: str, ending: Ending = Ending.FAILED) -> None:
        super().__init__(message)
        self.ending = ending


class Child:
    """One run of a child module: `run` it (blocking), `stop` it from any thread."""

    def __init__(self, module: str, what: str, lowest: bool = True) -> None:
        self._module = module
        self._what = what
        """The work, in words, for the log and the messages ("the graph export")."""
        self._lowest = lowest
        """The child runs at nice 19; else at the server's priority (`SERVER_PRIORITY`)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._stopped = threading.Event()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    @property
    def pid(self) -> int:
        """The last child's process id (0 before one started)."""
        return self._process.pid if self._process is not None else 0

    @property
    def running(self) -> bool:
        """The child has started and not ended."""
        process = self._process
        return process is not None and process.poll() is None

    def run(self, arguments: list[str], cpu_time: float) -> None:
        """Run the child with `arguments` until it ends; `ChildFailed` if it fails, is stopped,
        or runs past its bounds (`_ended_by_bounds`). Its stderr lines go to the debug log, but
        for the warnings of this package's own modules (`OWN_WARNING`), logged as warnings."""
        if self._stopped.is_set():  # stopped while it waited for its turn: never started
            raise ChildFailed(f"{self._what} was stopped", Ending.STOPPED)
        priority = [] if self._lowest else [SERVER_PRIORITY]
        command = [sys.executable, "-m", self._module, *priority, *arguments]
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors,
                env=child_env(),
            )  # fmt: skip
            self._process = process
            _LOGGER.info(
                "%s runs in a separate process (pid %d)", _capital(self._what), process.pid
            )
            if self._stopped.is_set():  # stopped while it was being started
                process.kill()
            try:
                code = self._ended_by_bounds(process, cpu_time)
            finally:
                if process.stdin is not None:
                    process.stdin.close()
            errors.seek(0)
            lines = errors.read().decode(errors="replace").splitlines()
        for line in lines:
            level = logging.WARNING if line.startswith(OWN_WARNING) else logging.DEBUG
            _LOGGER.log(level, "Process %d: %s", process.pid, line)
        if self._stopped.is_set():
            raise ChildFailed(f"{self._what} was stopped", Ending.STOPPED)
        if code != 0:
            ending = Ending.KILLED if code < 0 else _BY_CODE.get(code, Ending.FAILED)
            raise ChildFailed(self._reason(lines, code), ending)

    def _ended_by_bounds(self, process: subprocess.Popen[bytes], cpu_time: float) -> int:
        """`process`'s exit code, once it ends; killed first (`ChildFailed`, `TIMED_OUT`) if it
        uses more than `cpu_time` seconds of CPU (a runaway), or none for `STALLED` seconds (a
        deadlock, a read that never returns). Not the seconds on the clock: a child at nice 19
        on a host kept busy by others gets a sliver of a core, and is slow, not stuck."""
        started = moved = time.monotonic()
        used = 0.0
        while True:
            try:
                return process.wait(POLL)
            except subprocess.TimeoutExpired:
                pass
            now, seen = time.monotonic(), cpu_seconds(process.pid)
            if seen is None:  # no /proc: the clock stands in for the CPU
                seen = now - started
            if seen > used:
                used, moved = seen, now
            if used > cpu_time:
                why = f"used more than {cpu_time:g} s of CPU"
            elif now - moved > STALLED:
                why = f"used no CPU for {STALLED:g} s"
            else:
                continue
            process.kill()
            process.wait()
            raise ChildFailed(f"{self._what} {why} (killed)", Ending.TIMED_OUT)

    def stop(self) -> None:
        """Kill the child, if it runs (the server stops, or no longer needs its work)."""
        self._stopped.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def _reason(self, lines: list[str], code: int) -> str:
        """The child's own reason (`REASON`), else how it ended and its last line."""
        given = [line[len(REASON) :] for line in lines if line.startswith(REASON)]
        if given:
            return given[-1]
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
            hint = " (out of memory?)" if code == -signal.SIGKILL else ""
            return f"{self._what} was killed by {name}{hint}"
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        return f"{self._what} ended with code {code}" + (f": {last}" if last else "")


def model_args(settings: ModelSettings) -> list[str]:
    """The flags that name `settings`' model to a child (`add_model_args`)."""
    if settings.config is not None:
        return ["--config", settings.config]
    return ["--model", str(settings.model)]


def add_model_args(parser: argparse.ArgumentParser) -> None:
    """The child's side of `model_args`."""
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument("--model", help="a pocket-tts built-in model")
    model.add_argument("--config", help="a pocket-tts YAML config")


def child_env() -> dict[str, str]:
    """This environment, with this package first on the path where it is not installed in a
    site folder (a source tree): the child runs the server's code."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[__name__.count(".")])  # above the package
    folders = [*site.getsitepackages(), site.getusersitepackages()]
    sites = {str(Path(folder).resolve()) for folder in folders}
    if root not in sites:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (root, env.get("PYTHONPATH"))))
    return env


def child_main(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """In a child, before its work: its arguments; nice 19 unless `SERVER_PRIORITY` (stderr
    says where refused) and the first process to go when memory runs out; ended when the server
    goes (`end_with_parent`); warnings on stderr in the format the server relays
    (`OWN_WARNING`)."""
    parser.add_argument(SERVER_PRIORITY, action="store_true", help="keep the server's priority")
    args = parser.parse_args(argv)
    why_not = None if args.server_priority else lowest_priority()
    if why_not is not None:
        print(f"The child runs at normal priority: {why_not}", file=sys.stderr)
    first_to_go()
    end_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return args


def end_with_parent() -> None:
    """In a child: exit as soon as stdin closes (the server ended, or was killed, without
    stopping it)."""

    def watch() -> None:  # on the descriptor: a buffered read's lock would stop the exit
        while os.read(0, 4096):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def fail(error: BaseException, for_users: bool = False, ending: Ending = Ending.FAILED) -> int:
    """In a child: say why it failed (the last line of stderr, `REASON`): `error`'s message
    alone if it is `for_users`, else its type and first line; the exit code that says how
    (`EXIT_CODES[ending]`)."""
    print(REASON + (str(error) if for_users else one_line(error)), file=sys.stderr, flush=True)
    return EXIT_CODES[ending]


def one_line(error: BaseException) -> str:
    """`error`'s type and the first line of its message (torch's run to pages)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
