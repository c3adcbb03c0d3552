"""The bench's peers installed beside the venv, never into it: `pip install --target DIR`."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def install_command(target: Path, requirements: list[str]) -> list[str]:
    """The pip command that installs `requirements` beside the venv, into `target`."""
    return [sys.executable, "-m", "pip", "install", "--quiet", "--target", str(target),
            *requirements]  # fmt: skip


def ensure_installed(
    target: Path, requirements: list[str], marker: str, timeout: float = 600.0
) -> Path:
    """`target` holding `requirements` (known by its `marker` folder, a `.dist-info`),
    installed there now if it is not (into a folder beside it, then renamed: concurrent
    installs leave one whole copy); RuntimeError naming the command to run by hand when pip
    fails."""
    if (target / marker).is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        subprocess.run(
            install_command(staging, requirements),
            check=True, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
        with contextlib.suppress(OSError):  # another process installed it meanwhile
            staging.rename(target)
    except (subprocess.SubprocessError, OSError) as error:
        detail = getattr(error, "stderr", "") or error
        raise RuntimeError(
            f"could not install {' '.join(requirements)} ({detail}); install it with: "
            f"{' '.join(install_command(target, requirements))}"
        ) from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if not (target / marker).is_dir():
        raise RuntimeError(f"{target} holds something else than {marker}: remove it")
    return target
