"""A voice state's file: what pocket-tts's `export_model_state` writes (safetensors, one tensor
per `module/key`), read and written with safetensors' numpy API, no torch. Either runtime's
states are saved so (numpy arrays, or CPU torch tensors `np.asarray` reads); the graphs read
them back here, torch with pocket-tts's own reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

State = dict[str, dict[str, np.ndarray]]
"""A voice state of arrays: module name -> key -> array."""


def read_state(path: Path) -> State:
    """The state a safetensors file holds (pocket-tts's `export_model_state` layout)."""
    from safetensors.numpy import load_file

    state: State = {}
    for key, array in load_file(str(path)).items():
        module, name = key.split("/")
        if name == "current_end":
            state.setdefault(module, {})["offset"] = np.full(1, array.shape[0], np.int64)
        else:
            state.setdefault(module, {})[name] = array
    return state


def write_state(
    state: dict[str, dict[str, Any]], path: Path, metadata: dict[str, str] | None = None
) -> None:
    """Save `state` (of numpy arrays, or of anything `np.asarray` reads: CPU torch tensors) as
    pocket-tts's `export_model_state` does (`read_state` reads it back)."""
    from safetensors.numpy import save_file

    flat = {
        f"{module}/{name}": np.ascontiguousarray(array)
        for module, entries in state.items()
        for name, array in entries.items()
    }
    save_file(flat, str(path), metadata=metadata)
