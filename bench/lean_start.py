"""`python -m bench.lean_start [--size full] [--memory-limit MiB] [--busy N] [--json FILE]`: a first
start with no torch installed, timed and weighed.

A random model of `english`'s shapes (`--size`, testkit), a fresh data folder, the server started
with torch and pocket-tts hidden from the import system (as a `pip install .` without the `[torch]`
extra leaves them out: `testkit.without_torch`), `--runtime auto --quantize auto` and one voice
cloned from a 10 s recording. Reported: seconds from the start to `Ready` and of the build child
alone (its own log line), the build child's peak (its `Peak memory after ...` lines, VmHWM), the
voice's encoding in the server (its log line), the server's peak RSS (VmHWM, read before it stops,
after one reply in the cloned voice), and, with `--memory-limit`, whether it all ran inside a
cgroup v1 memory limit of that size (the server and its children moved into it; the cgroup's own
peak, page cache included, is printed too). `--busy N` keeps N other processes spinning at
normal priority from before the server starts to its end: a host kept busy by other work.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from testkit.model_factory import build_tiny_model, write_voice_wav
from testkit.support import ServerProcess, synthesize
from testkit.without_torch import hidden_env
from testkit.zygote import FORK_ENV

CGROUP = Path("/sys/fs/cgroup/memory")


def measure(size: str, limit_mib: int | None, busy: int, root: Path) -> dict[str, object]:
    files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    voice = write_voice_wav(root / "me.wav", 10.0, seed=3)
    env = hidden_env(root / "hide")
    os.environ.pop(FORK_ENV, None)  # a fresh interpreter: the zygote has torch imported
    args = ["--model-config", str(files.config_path), "--voice", f"me={voice}"]
    args += ["--data-dir", str(root / "data"), "--runtime", "auto", "--quantize", "auto", "--debug"]
    group = _cgroup(limit_mib) if limit_mib else None
    started = time.monotonic()
    with _spinning(busy), ServerProcess(args, root / "server.log", env) as server:
        if group is not None:
            (group / "cgroup.procs").write_text(str(server.process.pid), encoding="ascii")
        server.wait_for_log("Ready", timeout=900)
        ready = time.monotonic() - started
        reply = asyncio.run(synthesize(server.port, "The front door is locked for the night."))
        peak = _vm_hwm(server.process.pid)
        assert server.stop() == 0, server.log
    log = server.log
    built = re.search(r"Built the graphs in ([\d.]+) s", log)
    encoded = re.search(r"Encoded voice me in ([\d.]+) s", log)
    child_peaks = [int(m) for m in re.findall(r"Peak memory after [^:]+: (\d+) MiB", log)]
    result: dict[str, object] = {
        "size": size,
        "ready_s": round(ready, 1),
        "build_s": float(built.group(1)) if built else None,
        "build_peak_mib": max(child_peaks) if child_peaks else None,
        "voice_encode_s": float(encoded.group(1)) if encoded else None,
        "server_peak_mib": peak,
        "reply_audio_s": round(len(reply.audio) / 2 / 24000, 2),
        "load": round(os.getloadavg()[0], 1),
        "busy": busy,
    }
    if group is not None:
        result["cgroup_limit_mib"] = limit_mib
        peak_bytes = int((group / "memory.max_usage_in_bytes").read_text(encoding="ascii"))
        result["cgroup_peak_mib"] = peak_bytes // 2**20
        result["cgroup_limit_hits"] = int((group / "memory.failcnt").read_text(encoding="ascii"))
    return result


@contextlib.contextmanager
def _spinning(count: int) -> Iterator[None]:
    """`count` processes each spinning on a core at normal priority, while the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def _cgroup(limit_mib: int) -> Path:
    group = CGROUP / f"pocket-tts-bench-{os.getpid()}"
    group.mkdir()
    (group / "memory.limit_in_bytes").write_text(str(limit_mib * 2**20), encoding="ascii")
    return group


def _vm_hwm(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    return int(kib) // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="full", help="testkit model size (default: full)")
    parser.add_argument("--memory-limit", type=int, help="MiB: run inside a cgroup this size")
    parser.add_argument("--busy", type=int, default=0, help="processes spinning meanwhile")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lean-start-") as folder:
        result = measure(args.size, args.memory_limit, args.busy, Path(folder))
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
