"""ONNX Runtime's kernel classes on one host: a command run with CPU features hidden.

ONNX Runtime picks its int8 kernels from CPUID (VNNI, AVX2 without VNNI, SSE4) and has no
switch for it. `cpuid_mask.c` beside this file, built here with the system's C compiler and
preloaded into a child process, hides the features of a class where Linux can fault CPUID
(`cpuid_fault`). pytest's faulthandler owns SIGSEGV, which the mask needs: masked children run
with `-p no:faulthandler`, or without pytest.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("cpuid_mask.c")
MASKS = ("avx2", "sse")
"""What `cpuid_mask.c` can hide down to: "avx2" (no AVX-512, VNNI or AMX), "sse" (no AVX)."""


def cpu_flags() -> set[str]:
    """The first CPU's flags in /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    match = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def native_class(flags: set[str] | None = None) -> str:
    """This host's int8 kernel class: "vnni", "avx2" or "sse"."""
    flags = cpu_flags() if flags is None else flags
    if flags & {"avx512_vnni", "avx_vnni", "amx_int8"}:
        return "vnni"
    return "avx2" if "avx2" in flags else "sse"


def masks_here() -> list[str]:
    """The masks that give this host another kernel class than its own."""
    order = ["vnni", "avx2", "sse"]
    return [mask for mask in MASKS if order.index(mask) > order.index(native_class())]


def why_no_mask() -> str | None:
    """Why this host cannot run a masked child (None where it can)."""
    if platform.machine() != "x86_64":
        return f"CPUID masking is for x86-64, this host is {platform.machine()}"
    if "cpuid_fault" not in cpu_flags():
        return "this host has no CPUID faulting (no cpuid_fault in /proc/cpuinfo)"
    if shutil.which("cc") is None:
        return "no C compiler (cc) to build the CPUID mask"
    if not masks_here():
        return "this host's kernel class is already the lowest (sse)"
    return None


def build(folder: Path) -> Path:
    """`cpuid_mask.c` built into `folder` as a shared library."""
    library = folder / "cpuid_mask.so"
    subprocess.run(
        ["cc", "-O1", "-shared", "-fPIC", "-o", str(library), str(SOURCE)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return library


def masked_env(library: Path, mask: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child that sees the CPU features `mask` leaves."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONFAULTHANDLER", None)
    env["LD_PRELOAD"] = str(library)
    env["CPUID_MASK"] = mask
    return env


def answered(stderr: str) -> int:
    """How many CPUIDs the mask answered in a child, from its last line (0 if none)."""
    counts = re.findall(r"cpuid_mask: answered (\d+)", stderr)
    return int(counts[-1]) if counts else 0
