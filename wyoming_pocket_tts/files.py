"""Files replaced whole: a reader (or a power cut) sees the old file or the new one, never half."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def new_file(path: Path, *, overwrite: bool = True) -> Iterator[Path]:
    """A temporary path beside `path` to write; on a clean exit it is synced to disk and takes
    `path`'s place whole. With `overwrite=False` an existing `path` is never replaced: that
    raises `FileExistsError`. On an error the temporary file goes and `path` is untouched."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        if overwrite:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8), whole."""
    with new_file(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def key_name(key: Mapping[str, object]) -> str:
    """A file name for a cache key: 32 hex digits of the SHA-256 of its sorted JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
