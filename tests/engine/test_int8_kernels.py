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
"""The most the int8 audio may differ between kernel classes, as a share of its RMS."""

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def mask(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CPUID mask, built; skips with the reason where this host cannot mask."""
    why = kernels.why_no_mask()
    if why is not None:
        pytest.skip(f"{why}: only this host's kernel class ({kernels.native_class()}) is checked")
    return kernels.build(tmp_path_factory.mktemp("cpuid-mask"))


def _probe(graphs: Path, out: Path, env: dict[str, str]) -> tuple[dict[str, float], str]:
    """`testkit.int8_probe` in a child: its drift and its stderr (the audio goes to `out`)."""
    done = subprocess.run(
        [sys.executable, "-m", "testkit.int8_probe", str(graphs), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _relative(got: np.ndarray, expected: np.ndarray) -> float:
    assert got.shape == expected.shape
    difference = got.astype(np.float64) - expected
    return float(
        np.sqrt(np.mean(difference**2)) / np.sqrt(np.mean(expected.astype(np.float64) ** 2))
    )


def test_the_int8_audio_is_the_same_on_every_kernel_class(
    graphs: Path, mask: Path, tmp_path: Path
) -> None:
    """The same graphs, the same text at temperature 0: the audio of each lower class is this
    host's within `SAME`, and the gate's drift holds on each."""
    native, _ = _probe(graphs, tmp_path / "native.npy", dict(os.environ))
    expected = np.load(tmp_path / "native.npy")
    assert native["latent"] <= BOUND, native
    for name in kernels.masks_here():
        drift, stderr = _probe(graphs, tmp_path / f"{name}.npy", kernels.masked_env(mask, name))
        assert kernels.answered(stderr) > 0, stderr[-2000:]  # ONNX Runtime asked the mask
        assert drift["latent"] <= BOUND, (name, drift)
        assert _relative(np.load(tmp_path / f"{name}.npy"), expected) <= SAME, name


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
