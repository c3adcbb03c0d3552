"""pocket-tts's safetensors checkpoint read with numpy, one tensor at a time.

The file's header (its JSON table of names, dtypes, shapes and byte ranges) is read at once;
each tensor is read from the file when a graph takes it, and dropped once written. The file is
not memory-mapped: a mapping keeps every page read in the process's resident memory until it
is closed (a build at `english` shapes peaked at 449 MiB with safetensors' mapped reader, and
ends at 57 MiB). Each read checks its name and shape against what the config implies, so a
damaged or mismatched checkpoint fails with the tensor named instead of building a graph that
computes nonsense. The layout is `TTSModel.state_dict()`'s (`flow_lm.…`, `mimi.…`), the one
pocket-tts loads from a config's `weights_path` and the one the tests' random models have.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "BF16": np.uint16}
"""The safetensors dtypes read (as float32; bfloat16 through its 16 high bits)."""
_LARGEST_HEADER = 100 << 20
"""safetensors' own bound on its header."""


class CheckpointError(ValueError):
    """The checkpoint cannot give a tensor a graph needs (missing, wrong shape, cut short)."""


class CheckpointCut(CheckpointError):
    """The file ends before its header or a tensor it lists does (an interrupted copy or
    download, a full disk): the file is damaged, not the model, so a new copy may mend it."""


class Checkpoint:
    """A safetensors checkpoint opened for reading (a context manager: `with Checkpoint(...)`)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file: BinaryIO = self.path.open("rb")
        try:
            self._table, self._start = self._header()
        except BaseException:
            self._file.close()
            raise

    def _header(self) -> tuple[dict[str, Any], int]:
        """The header's table of tensors, and where their bytes start; each range checked to
        lie within the file."""
        size = self.path.stat().st_size
        head = self._file.read(8)
        if len(head) < 8:
            raise CheckpointCut(f"{self.path}: cut short, {size} bytes")
        length = struct.unpack("<Q", head)[0]
        if not 0 < length <= _LARGEST_HEADER:
            raise CheckpointError(f"{self.path}: not a safetensors file (no header)")
        if length > size - 8:
            raise CheckpointCut(f"{self.path}: cut short, within its header")
        try:
            table = json.loads(self._file.read(length))
        except ValueError as error:
            raise CheckpointError(f"{self.path}: not a safetensors file ({error})") from error
        table.pop("__metadata__", None)
        start = 8 + length
        for name, entry in table.items():
            if start + int(entry["data_offsets"][1]) > size:
                raise CheckpointCut(f"{self.path}: cut short, tensor {name!r} ends past its end")
        return table, start

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._file.close()

    def has(self, name: str) -> bool:
        return name in self._table

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of tensor `name` as stored (CheckpointError if there is none)."""
        if name not in self._table:
            raise CheckpointError(f"{self.path}: the checkpoint has no tensor {name!r}")
        return tuple(int(n) for n in self._table[name]["shape"])

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """Tensor `name` as float32, which must have `shape` (what the config implies)."""
        stored = self.shape(name)
        if stored != tuple(shape):
            raise CheckpointError(
                f"{self.path}: tensor {name!r} has shape {list(stored)}, the config implies "
                f"{list(shape)}"
            )
        entry = self._table[name]
        kind = entry["dtype"]
        if kind not in _DTYPES:
            raise CheckpointError(f"{self.path}: tensor {name!r} is {kind}, no float type read")
        dtype = np.dtype(_DTYPES[kind]).newbyteorder("<")
        begin, end = (int(n) for n in entry["data_offsets"])
        count = math.prod(stored)
        if end - begin != count * dtype.itemsize:
            raise CheckpointError(f"{self.path}: tensor {name!r} has {end - begin} bytes")
        self._file.seek(self._start + begin)
        array = np.fromfile(self._file, dtype, count).reshape(stored)
        if kind == "BF16":
            return (array.astype(np.uint32) << 16).view(np.float32)
        return np.ascontiguousarray(array, dtype=np.float32)
