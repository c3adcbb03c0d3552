"""Voice states persisted on disk, so a voice is encoded once and then loads in milliseconds.

A state is saved under a name derived from the prompt's content fingerprint (or URL), the truncate
flag, the model's identity (its config, local weights and pocket-tts version) and whether its
weights can clone voices, so a changed audio file or model gets a new entry. Writes are atomic
(temporary file + rename). A file that cannot be read is logged, deleted and encoded again.
Entries not used for `MAX_AGE_DAYS` are deleted when the server starts.

Each voice's measured loudness (see `audio.loudness`) is kept under the same key: in the state
file's safetensors metadata, or, for voices whose state is not saved (built-in names and
`.safetensors` files, which load in milliseconds anyway), alone in a small JSON file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...files import new_file
from .state_file import write_state

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)

MAX_AGE_DAYS = 90
_SUFFIX = ".safetensors"
_SIDECAR = ".json"
_LOUDNESS_KEY = "loudness_lufs"
ModelState = dict[str, dict[str, Any]]


class VoiceStateStore:
    """A folder of saved voice states for one model."""

    def __init__(self, folder: Path, model_id: str) -> None:
        self.folder = folder
        self._model_id = model_id
        folder.mkdir(parents=True, exist_ok=True)
        self._prune()

    def path_for(self, prompt_id: str, truncate: bool, voice_cloning: bool = True) -> Path:
        """Where the state of a prompt (content fingerprint or URL) is kept.

        `voice_cloning` is the capability of the weights that make the state: pocket-tts loads
        different weights without it, so their states never mix. Weights that can clone keep the
        key of the files saved before the capability was part of it.
        """
        weights = "" if voice_cloning else "\0without-voice-cloning"
        key = f"{self._model_id}\0{prompt_id}\0{truncate}{weights}".encode()
        return self.folder / f"{hashlib.sha256(key).hexdigest()[:40]}{_SUFFIX}"

    def load(self, runtime: Runtime, path: Path) -> tuple[ModelState, float | None] | None:
        """The saved state and the voice's measured loudness (None if not measured), or None
        if there is none or it is unreadable (then it is deleted)."""
        if not path.is_file():
            return None
        try:
            state = runtime.read_state(path)
            loudness = _loudness_of(path)
        except Exception as error:  # any unreadable file is encoded again
            _LOGGER.warning("Discarding unreadable voice state %s: %s", path, error)
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # marks it as used, for pruning
        return state, loudness

    def save(self, state: ModelState, path: Path, loudness: float | None = None) -> None:
        """Write the state and its loudness in one atomic write; a failure is logged, never fatal.

        The file is what pocket-tts's `export_model_state` writes, plus the loudness in the
        safetensors metadata, so pocket-tts itself still reads it as a voice state.
        """
        metadata = None if loudness is None else {_LOUDNESS_KEY: repr(float(loudness))}
        self._write(path, lambda temporary: write_state(state, Path(temporary), metadata))

    def load_loudness(self, path: Path) -> float | None:
        """The measured loudness saved for a voice whose state is not saved (built-in, file)."""
        sidecar = path.with_suffix(_SIDECAR)
        try:
            loudness = float(json.loads(sidecar.read_text(encoding="utf-8"))[_LOUDNESS_KEY])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError, KeyError) as error:
            _LOGGER.warning("Discarding unreadable voice loudness %s: %s", sidecar, error)
            sidecar.unlink(missing_ok=True)
            return None
        os.utime(sidecar)
        return loudness

    def save_loudness(self, path: Path, loudness: float) -> None:
        """Save just the measured loudness under a voice's key, atomically."""
        text = json.dumps({_LOUDNESS_KEY: repr(float(loudness))})
        self._write(
            path.with_suffix(_SIDECAR),
            lambda temporary: Path(temporary).write_text(text, encoding="utf-8"),
        )

    def _write(self, path: Path, write: Callable[[str], object]) -> None:
        try:
            with new_file(path) as temporary:
                write(str(temporary))
        except OSError as error:
            _LOGGER.warning("Cannot save voice state to %s: %s", self.folder, error)

    def _prune(self) -> None:
        cutoff = time.time() - MAX_AGE_DAYS * 86400
        for path in [*self.folder.glob(f"*{_SUFFIX}"), *self.folder.glob(f"*{_SIDECAR}")]:
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    _LOGGER.info("Deleted voice state unused for %d days: %s", MAX_AGE_DAYS, path)
            except OSError as error:
                _LOGGER.debug("Cannot prune %s: %s", path, error)
        for path in self.folder.glob("*.tmp"):
            path.unlink(missing_ok=True)


def _loudness_of(path: Path) -> float | None:
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as state:
        value = (state.metadata() or {}).get(_LOUDNESS_KEY)
    return None if value is None else float(value)
