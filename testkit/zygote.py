"""A pre-imported interpreter that forks the tests' server processes (test-only).

A server process spends 5-9 s of CPU importing torch, `torch._dynamo` (pocket-tts's
`@torch.compiler.disable`) and scipy before any of its own code runs, and the suite starts
about thirty. A zygote imports those once per test worker; each start is a `fork` of it
that runs `python -m ENTRY ARGS` (or `python -c CODE ARGS`) with the test's environment,
working folder and log. The child is a real process: the test signals it by pid, and `wait`
gives its exit status as `subprocess.Popen` would (negative for a signal).

Only modules that read no environment at import are pre-imported: huggingface_hub reads
`HF_HOME` at import, so it, pocket-tts and the server's own modules are imported by each
child, after its environment is set. What a forked child cannot show is the interpreter's
own start; the tests of that (`test_cli.py`, one start of the image's command in
`test_supervisor_contract.py`) start a fresh `python`. A child can also start inside a
container's namespaces and root (`enter`), as `nsenter` would put it there.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import TypedDict

PRELOAD = (
    *("numpy", "torch", "torch._dynamo", "scipy.signal", "scipy.io.wavfile", "safetensors"),
    *("aiohttp.web", "wyoming.server"),
)
"""Imported once by the zygote: heavy, and reading no environment a test sets."""
_REAP_EVERY = 0.02
_MESSAGE_LIMIT = 1 << 20


FORK_ENV = "TESTS_FORK_SERVERS"
"""Environment variable: "1" (set by tests/conftest.py for the tests and what they start) makes
`start_python` and `run_python` fork from this process's zygote instead of starting a python."""

_NAMESPACES = (("net", 0x40000000), ("mnt", 0x00020000))
"""The namespaces `enter` joins, with their `setns` flags (CLONE_NEWNET, CLONE_NEWNS)."""


class Request(TypedDict):
    """A start: `python ARGV` with `env`, in `cwd` (of the root of process `enter`, if any)."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    enter: int | None


def serve(control_fd: int) -> None:
    """The zygote: fork a child per request on `control_fd` until the test worker goes away.

    Returns only in a child, after setting up its process; the caller then runs it.
    """
    for name in PRELOAD:
        __import__(name)
    gc.freeze()  # the children's collections skip what the zygote made (and leave it shared)
    control = socket.socket(fileno=control_fd)
    children: dict[int, socket.socket] = {}
    while True:
        readable, _, _ = select.select([control], [], [], _REAP_EVERY)
        while children:
            pid, code = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            status = children.pop(pid)
            with status:
                status.sendall(f"{os.waitstatus_to_exitcode(code)}\n".encode())
        if not readable:
            continue
        data, fds, _, _ = socket.recv_fds(control, _MESSAGE_LIMIT, 3)
        if not data:
            os._exit(0)  # the test worker has gone; its children were its to stop
        request: Request = json.loads(data)
        stdout_fd, stderr_fd, status_fd = fds
        pid = os.fork()
        if pid == 0:
            control.close()
            os.close(status_fd)
            for other in children.values():
                other.close()
            _become_child(request, stdout_fd, stderr_fd)
            return
        os.close(stdout_fd)
        os.close(stderr_fd)
        status = socket.socket(fileno=status_fd)
        status.sendall(f"{pid}\n".encode())
        children[pid] = status


def _become_child(request: Request, stdout_fd: int, stderr_fd: int) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    for fd, target in ((null, 0), (stdout_fd, 1), (stderr_fd, 2)):
        os.dup2(fd, target)
    for fd in {null, stdout_fd, stderr_fd}:
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    if request["enter"] is not None:
        _enter(request["enter"])
    os.chdir(request["cwd"])
    # As a fresh interpreter: PYTHONPATH's folders come right after the working folder.
    sys.path[1:1] = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.argv = request["argv"]


def _enter(pid: int) -> None:
    """Join the network and mount namespaces and the root of process `pid`, as `nsenter -t PID
    -n -m -r` does (needs root; the forked child has a single thread, as `setns` requires)."""
    libc = ctypes.CDLL(None, use_errno=True)
    root = os.open(f"/proc/{pid}/root", os.O_RDONLY | os.O_DIRECTORY)
    for name, flag in _NAMESPACES:
        fd = os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY)
        if libc.setns(fd, flag) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"setns {name} of {pid}: {os.strerror(error)}")
        os.close(fd)
    os.fchdir(root)
    os.chroot(".")
    os.close(root)


def run_child() -> None:
    """In a forked child: run its `-m` module or `-c` code as a fresh interpreter would."""
    import runpy

    mode, target = sys.argv[0], sys.argv[1]
    if mode == "-m":
        sys.argv = [target, *sys.argv[2:]]  # run_module puts the module's file first
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.argv = ["-c", *sys.argv[2:]]
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})


class ForkedProcess:
    """A child of the zygote, with the parts of `subprocess.Popen` the tests use."""

    def __init__(self, args: list[str], status: socket.socket) -> None:
        self.args = args
        self._status = status
        self._buffer = b""
        self.pid = int(self._line(timeout=60))
        self.returncode: int | None = None

    def _line(self, timeout: float | None) -> str:
        self._status.settimeout(timeout)
        while b"\n" not in self._buffer:
            data = self._status.recv(64)
            if not data:
                raise RuntimeError("the zygote went away")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(BlockingIOError, TimeoutError):
                self.returncode = int(self._line(timeout=0))
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                self.returncode = int(self._line(timeout))
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
            self._status.close()
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """One per test worker, started at its first use, gone with the worker."""

    _lock = threading.Lock()
    _process: subprocess.Popen[bytes] | None = None
    _control: socket.socket | None = None

    @classmethod
    def spawn(
        cls,
        argv: list[str],
        env: dict[str, str],
        stdout: int,
        stderr: int | None = None,
        cwd: Path | None = None,
        enter: int | None = None,
    ) -> ForkedProcess:
        """Fork `python ARGV` (`-m module ...` or `-c code ...`) with `env`, in `cwd` (default
        this process's), its output to the file descriptors `stdout` and `stderr` (`stdout`
        too when None). With `enter`, the child first joins the network and mount namespaces
        and the root of that process, and `cwd` is a folder of that root."""
        ours, theirs = socket.socketpair()
        request = Request(argv=argv, env=env, cwd=str(cwd or os.getcwd()), enter=enter)
        outputs = [stdout, stdout if stderr is None else stderr]
        with cls._lock:
            message = [json.dumps(request).encode()]
            socket.send_fds(cls._started(), message, [*outputs, theirs.fileno()])
        theirs.close()
        return ForkedProcess([sys.executable, *argv], ours)

    @classmethod
    def run(
        cls, argv: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`subprocess.run([python, *argv], env=env, cwd=cwd, capture_output=True, text=True)`,
        forked: for a child that imports torch (one that does not starts as fast afresh)."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            process = cls.spawn(argv, env, out.fileno(), err.fileno(), cwd)
            try:
                code = process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                raise
            texts = []
            for file in (out, err):
                file.seek(0)
                texts.append(file.read().decode(errors="replace"))
        return subprocess.CompletedProcess(process.args, code, *texts)

    @classmethod
    def _started(cls) -> socket.socket:
        if cls._control is None or (cls._process and cls._process.poll() is not None):
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            code = "import sys, testkit.zygote as z; z.serve(int(sys.argv[1])); z.run_child()"
            cls._process = subprocess.Popen(
                [sys.executable, "-c", code, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                cwd=Path(__file__).resolve().parents[1],
                stdin=subprocess.DEVNULL,
            )
            theirs.close()
            cls._control = ours
        return cls._control


def start_python(
    argv: list[str], env: dict[str, str], stdout: int
) -> subprocess.Popen[bytes] | ForkedProcess:
    """`python ARGV` with `env`, its output (and errors) to `stdout`: forked where `FORK_ENV` is
    set, a fresh interpreter otherwise (`script/bench` run by hand, which times starts)."""
    if os.environ.get(FORK_ENV) == "1":
        return Zygote.spawn(argv, env, stdout)
    return subprocess.Popen(
        [sys.executable, *argv], stdout=stdout, stderr=subprocess.STDOUT, env=env
    )


def run_python(
    argv: list[str], env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """`python ARGV` with `env` to its end, output captured: forked as `start_python` decides."""
    if os.environ.get(FORK_ENV) == "1":
        return Zygote.run(argv, env, timeout)
    command = [sys.executable, *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
