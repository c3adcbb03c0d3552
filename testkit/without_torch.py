"""A process without torch and pocket-tts, in a venv that has them: `hidden_env` gives the
environment of one (a `sitecustomize` on PYTHONPATH, `HIDE`, makes the import system find
neither, for the process and every child it starts), as a `pip install .` without the
`[torch]` extra leaves them out. Used by tests/engine/test_without_torch.py and bench.lean_start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HIDE = """
import importlib.machinery
import sys

HIDDEN = {"torch", "pocket_tts", "torchaudio", "onnxscript"}


class _Without(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname.partition(".")[0] in HIDDEN:
            return None
        return super().find_spec(fullname, path, target)


sys.meta_path[:] = [_Without if f is importlib.machinery.PathFinder else f for f in sys.meta_path]
"""


def hidden_env(folder: Path) -> dict[str, str | None]:
    """Environment entries of a process that finds neither torch nor pocket-tts (`folder`
    receives the `sitecustomize`)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(HIDE, encoding="utf-8")
    return {"PYTHONPATH": os.pathsep.join([str(folder), *sys.path])}
