"""pocket-tts's safetensors checkpoint read with numpy, one tensor at a time.

The file is memory-mapped by safetensors; a tensor is read when a graph takes it, and each read
checks its name and shape against what the config implies, so a damaged or mismatched
checkpoint fails with the tensor named instead of building a graph that computes nonsense.
The layout is `TTSModel.state_dict()`'s (`flow_lm.…`, `mimi.…`), the one pocket-tts loads from
a config's `weights_path` and the one the tests' random models are saved in.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

_FLOAT = {"F32": np.float32, "F16": np.float16, "F64": np.float64}
"""The safetensors dtypes read (as float32); anything else (bf16) is refused by name."""


class CheckpointError(ValueError):
    """The checkpoint cannot give a tensor a graph needs (missing, wrong shape or dtype)."""


class Checkpoint:
    """A safetensors checkpoint opened for reading (a context manager: `with Checkpoint(...)`)."""

    def __init__(self, path: Path) -> None:
        from safetensors import safe_open

        self.path = Path(path)
        try:
            self._file: Any = safe_open(str(self.path), framework="numpy")
        except Exception as error:  # safetensors raises its own errors for a damaged header
            raise CheckpointError(
                f"{self.path}: not a readable safetensors file ({error})"
            ) from error
        self._names = set(self._file.keys())

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._file = None

    def has(self, name: str) -> bool:
        return name in self._names

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of tensor `name` as stored (CheckpointError if there is none)."""
        if name not in self._names:
            raise CheckpointError(f"{self.path}: the checkpoint has no tensor {name!r}")
        return tuple(int(n) for n in self._file.get_slice(name).get_shape())

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """Tensor `name` as float32, which must have `shape` (what the config implies)."""
        stored = self.shape(name)
        if stored != tuple(shape):
            raise CheckpointError(
                f"{self.path}: tensor {name!r} has shape {list(stored)}, the config implies "
                f"{list(shape)}"
            )
        dtype = self._file.get_slice(name).get_dtype()
        if dtype not in _FLOAT:
            raise CheckpointError(
                f"{self.path}: tensor {name!r} is {dtype}, not a float type read here"
            )
        try:
            array = self._file.get_tensor(name)
        except Exception as error:  # a truncated file fails here, on the first tensor past its end
            raise CheckpointError(
                f"{self.path}: tensor {name!r} cannot be read ({error})"
            ) from error
        return np.ascontiguousarray(array, dtype=np.float32)
