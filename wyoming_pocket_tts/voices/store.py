"""Voice states persisted on disk, so a voice is encoded once and then loads in milliseconds.

A state is saved under a name derived from the prompt's content fingerprint (or URL), the truncate
flag and the model's identity (its config, local weights and pocket-tts version), so a changed
audio file or model gets a new entry. Writes are atomic (temporary file + rename). A file that
cannot be read is logged, deleted and encoded again. Entries not used for `MAX_AGE_DAYS` are
deleted when the server starts.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..settings import ModelSettings

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

MAX_AGE_DAYS = 90
_SUFFIX = ".safetensors"
_WEIGHT_KEYS = ("weights_path", "weights_path_without_voice_cloning")

ModelState = dict[str, dict[str, Any]]


def model_identity(settings: ModelSettings) -> str:
    """A fingerprint of everything that shapes a voice state: config, local weights, code."""
    from pocket_tts.utils.config import CONFIGS_DIR

    if settings.quantize is None:
        raise ValueError("model_identity needs the resolved quantisation, not auto")
    digest = hashlib.sha256(f"pocket-tts {version('pocket-tts')} q={settings.quantize}".encode())
    config = settings.config or str(CONFIGS_DIR / f"{settings.language}.yaml")
    if config.startswith(("hf://", "http://", "https://")):
        digest.update(config.encode())  # hf:// revisions pin the content
        return digest.hexdigest()
    text = Path(config).read_text(encoding="utf-8")
    digest.update(text.encode())
    for weights in _local_weights(yaml.safe_load(text) or {}):
        stat = weights.stat()
        digest.update(f"{weights}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def _local_weights(config: dict[str, Any]) -> list[Path]:
    sections = [config, config.get("flow_lm") or {}, config.get("mimi") or {}]
    paths = [section.get(key) for section in sections for key in _WEIGHT_KEYS]
    return [Path(p) for p in paths if isinstance(p, str) and "://" not in p and Path(p).is_file()]


class VoiceStateStore:
    """A folder of saved voice states for one model."""

    def __init__(self, folder: Path, model_id: str) -> None:
        self.folder = folder
        self._model_id = model_id
        folder.mkdir(parents=True, exist_ok=True)
        self._prune()

    def path_for(self, prompt_id: str, truncate: bool) -> Path:
        """Where the state of a prompt (content fingerprint or URL) is kept."""
        key = f"{self._model_id}\0{prompt_id}\0{truncate}".encode()
        return self.folder / f"{hashlib.sha256(key).hexdigest()[:40]}{_SUFFIX}"

    def load(self, model: TTSModel, path: Path) -> ModelState | None:
        """The saved state, or None if there is none or it is unreadable (then it is deleted)."""
        if not path.is_file():
            return None
        try:
            state = model.get_state_for_audio_prompt(path)
        except Exception as error:  # any unreadable file is encoded again
            _LOGGER.warning("Discarding unreadable voice state %s: %s", path, error)
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # marks it as used, for pruning
        return state

    def save(self, state: ModelState, path: Path) -> None:
        """Write atomically; a failure is logged, never fatal."""
        from pocket_tts import export_model_state

        try:
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            os.close(handle)
            try:
                export_model_state(state, temporary)
                os.replace(temporary, path)
            finally:
                Path(temporary).unlink(missing_ok=True)
        except OSError as error:
            _LOGGER.warning("Cannot save voice state to %s: %s", self.folder, error)

    def _prune(self) -> None:
        cutoff = time.time() - MAX_AGE_DAYS * 86400
        for path in self.folder.glob(f"*{_SUFFIX}"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    _LOGGER.info("Deleted voice state unused for %d days: %s", MAX_AGE_DAYS, path)
            except OSError as error:
                _LOGGER.debug("Cannot prune %s: %s", path, error)
        for path in self.folder.glob("*.tmp"):
            path.unlink(missing_ok=True)
