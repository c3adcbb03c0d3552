"""The machine the server runs on: its usable cores, its CPU, torch's threads, freed memory,
the lowest CPU priority, a process's CPU time.

Every torch thread count the server sets goes through here (`set_torch_threads`,
`encoding_threads`), and every count of cores is the cores this process may actually run on
(`sched_getaffinity`: a container or `taskset` limit), not the machine's total.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import os
import platform
import sys
import threading
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ENCODING_THREADS = 4
"""Most torch threads a voice encoding borrows, so a many-core host keeps cores for others."""


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask), else the machine's count."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's name: x86 `model name`, else the board and core type ARM kernels report."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                name, _, value = line.partition(":")
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    if "model name" in fields:
        return fields["model name"]
    arm = [
        fields[name]
        for name in ("Model", "Hardware", "CPU implementer", "CPU part")
        if name in fields
    ]
    return " ".join(arm) or platform.processor() or platform.machine()


def set_torch_threads(count: int) -> None:
    """Torch's intra-op threads for what runs next (process-wide; pocket-tts sets 1); nothing
    in a process that never imported torch (one serving on the graphs alone)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)


def torch_threads() -> int:
    """Torch's intra-op threads now (1 in a process that never imported torch)."""
    torch = sys.modules.get("torch")
    return 1 if torch is None else int(torch.get_num_threads())


@contextlib.contextmanager
def encoding_threads() -> Iterator[None]:
    """Let torch use up to `ENCODING_THREADS` usable cores while a prompt is encoded.

    pocket-tts sets torch to one thread for generation, which runs on two threads of its own.
    Encoding runs alone on the engine thread, and on 2 cores it is 1.8x faster with 2 threads
    (script/bench), so the engine lends it the cores and takes them back.
    """
    previous = torch_threads()
    set_torch_threads(max(previous, min(usable_cores(), ENCODING_THREADS)))
    try:
        yield
    finally:
        set_torch_threads(previous)


def release_freed_memory() -> None:
    """Give the heap freed by quantisation (the fp32 layers, or the model that lost the
    comparison) back to the system: glibc keeps it otherwise, and RSS stays at the peak."""
    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


def lowest_priority(thread: bool = False) -> str | None:
    """Run this process (`thread`: only the calling thread, which Linux gives a nice value of
    its own) at nice 19, so it takes only the CPU the rest leaves; why not, if it cannot."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id() if thread else 0, 19)
    except (AttributeError, OSError) as error:
        return str(error)
    return None


def first_to_go() -> str | None:
    """Have the kernel end this process first when memory runs out (`oom_score_adj` 1000):
    a child's work can be done again, the server's and Home Assistant's cannot; why not, if it
    cannot."""
    try:
        Path("/proc/self/oom_score_adj").write_text("1000")
    except OSError as error:
        return str(error)
    return None


def cpu_seconds(pid: int) -> float | None:
    """The CPU time process `pid` has used, its threads' and its ended children's, in seconds
    (`/proc/PID/stat`); None where it cannot be read (not Linux, or the process is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after the name, which may hold spaces
    ticks = sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def installed_version(package: str) -> str:
    """`package`'s installed version, or "missing"."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "missing"
