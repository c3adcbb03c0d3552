"""The int8 graphs give the same audio on every kernel class ONNX Runtime has for this CPU, and
hold torch int8's bar on each (issue 60).

ONNX Runtime chooses its int8 kernel from CPUID: VNNI, AVX2 without VNNI (`vpmaddubsw`, whose
int16 sums saturate signed weights), SSE4. A child process sees fewer features through
`testkit.kernels`' CPUID mask, where Linux can fault CPUID; elsewhere the masked tests skip and
say so, and only this host's own class is checked (tests/engine/test_int8_graphs.py, in
process). The mask is the one part that is not the real CPU: it answers CPUID as a CPU of the
lower class would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from testkit import kernels
from wyoming_pocket_tts.engine.onnx.int8_gate import BOUND

ROOT = Path(__file__).resolve().parents[2]
SAME = 1e-4
"""The most the int8 LM's probe latents may differ between kernel classes, as a share of their
RMS: each frame is fed the same input, so this is what the int8 kernels compute (measured with
qemu-user on an AVX2 host, 2026-12-04: u8u8 on SSE4 against AVX2 2.2e-7; u8s8 0.044)."""

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def mask(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CPUID mask, built; skips with the reason where this host cannot mask."""
    why = kernels.why_no_mask()
    if why is not None:
        pytest.skip(f"{why}: only this host's kernel class ({kernels.native_class()}) is checked")
    return kernels.build(tmp_path_factory.mktemp("cpuid-mask"))


def _probe(graphs: Path, out: Path, env: dict[str, str]) -> tuple[dict[str, float], str]:
    """`testkit.int8_probe` in a child: its drift and its stderr (its arrays go to `out`)."""
    done = subprocess.run(
        [sys.executable, "-m", "testkit.int8_probe", str(graphs), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _relative(got: np.ndarray, expected: np.ndarray) -> float:
    size = min(got.size, expected.size)  # free-running audio may end a frame apart
    got = got.reshape(-1)[:size].astype(np.float64)
    expected = expected.reshape(-1)[:size].astype(np.float64)
    return float(np.sqrt(np.mean((got - expected) ** 2)) / np.sqrt(np.mean(expected**2)))


def test_the_int8_graphs_compute_alike_on_every_kernel_class(
    graphs: Path, mask: Path, tmp_path: Path
) -> None:
    """The same graphs on each lower class: the int8 LM's probe latents are this host's within
    `SAME`, the gate holds, and the free-running audio (temperature 0) differs from this host's
    less than int8 differs from fp32 here: every fp32 sum in another order (7.5e-7 between AVX2
    and SSE4 for the fp32 graphs) may move an activation across an int8 step, and generation
    feeds that back (u8u8 audio, SSE4 against AVX2: 4.3e-4, int8's own change 9.4e-4; u8s8
    1.2e-2 against 1.2e-2)."""
    native, _ = _probe(graphs, tmp_path / "native.npz", dict(os.environ))
    here = np.load(tmp_path / "native.npz")
    own_change = _relative(here["int8"], here["fp32"])
    assert native["latent"] <= BOUND, native
    for name in kernels.masks_here():
        drift, stderr = _probe(graphs, tmp_path / f"{name}.npz", kernels.masked_env(mask, name))
        there = np.load(tmp_path / f"{name}.npz")
        assert kernels.answered(stderr) > 0, stderr[-2000:]  # ONNX Runtime asked the mask
        assert drift["latent"] <= BOUND, (name, drift)
        assert _relative(there["latents"], here["latents"]) <= SAME, name
        assert _relative(there["int8"], here["int8"]) < own_change, name


def test_the_int8_drift_tests_pass_masked(mask: Path) -> None:
    """tests/engine/test_int8_graphs.py passes in a child that sees the next class down (the
    one CPUs without VNNI have on a VNNI host), torch's int8 bar measured there too."""
    name = kernels.masks_here()[0]
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:faulthandler", "-p", "no:xdist",
            "-p", "no:cacheprovider", "-q", "tests/engine/test_int8_graphs.py",
        ],
        cwd=ROOT, env=kernels.masked_env(mask, name), capture_output=True, text=True,
        timeout=840,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert kernels.answered(done.stderr) > 0, done.stderr[-2000:]


def test_the_mask_builds_and_says_when_it_cannot_fault(tmp_path: Path) -> None:
    """Wherever there is a C compiler on x86-64: the mask builds, and a child preloading it
    either runs (CPUID faulting: it answered CPUIDs) or stops at once with exit code 3 and its
    reason, never with a crash."""
    if kernels.platform.machine() != "x86_64" or kernels.shutil.which("cc") is None:
        pytest.skip("the CPUID mask needs x86-64 and a C compiler")
    library = kernels.build(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", "import onnxruntime"],
        env=kernels.masked_env(library, "avx2"), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if "cpuid_fault" in kernels.cpu_flags():
        assert done.returncode == 0, done.stderr[-2000:]
        assert kernels.answered(done.stderr) > 0
    else:
        assert done.returncode == 3, done.stderr[-2000:]
        assert "cannot fault CPUID" in done.stderr
