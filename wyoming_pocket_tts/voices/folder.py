"""A folder of voices: each audio file or `.safetensors` state in it is a voice named by its stem.

The folder is scanned again whenever the voice list is needed, so files the user drops in or removes
show up without a restart. Each file is checked once per version (size, modification time) by
reading its header only; a file that cannot be read is reported once, with its path and why, and
skipped.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ..settings import VoiceSpec

_LOGGER = logging.getLogger(__name__)

AUDIO_SUFFIXES = frozenset({".wav", ".mp3", ".flac", ".ogg"})
STATE_SUFFIX = ".safetensors"

_Version = tuple[int, int]


def file_version(path: Path) -> _Version | None:
    """Size and modification time: what changes when a file is replaced or edited."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def check_voice_file(path: Path) -> str | None:
    """Why `path` cannot be used as a voice (reading its header only), or None if it can."""
    try:
        if path.suffix.lower() == STATE_SUFFIX:
            from safetensors import safe_open

            with safe_open(str(path), framework="numpy") as state:
                if not any("/" in key for key in state.keys()):  # noqa: SIM118 - not a dict
                    return "not a pocket-tts voice state (no module/tensor keys)"
            return None
        import soundfile

        info = soundfile.info(str(path))
        if info.frames <= 0:
            return "no audio in the file"
    except Exception as error:  # whatever makes it unreadable is reported
        return str(error) or type(error).__name__
    return None


def _is_voice_file(entry: os.DirEntry[str]) -> bool:
    suffix = os.path.splitext(entry.name)[1].lower()
    return (suffix in AUDIO_SUFFIXES or suffix == STATE_SUFFIX) and entry.is_file()


class VoiceFolder:
    """The voices in one folder, as it is on disk now."""

    def __init__(self, path: Path, code: str = "") -> None:
        self.path = path
        self.code = code
        """Language code of the model its voices belong to."""
        self._checked: dict[Path, tuple[_Version, str | None]] = {}

    def scan(self) -> list[VoiceSpec]:
        """Usable voices in the folder, sorted by name; unreadable files are skipped."""
        try:
            entries = sorted(os.scandir(self.path), key=lambda entry: entry.name)
        except OSError as error:
            _LOGGER.warning("Cannot read voices folder %s: %s", self.path, error)
            return []
        voices: dict[str, VoiceSpec] = {}
        candidates = [Path(entry.path) for entry in entries if _is_voice_file(entry)]
        self._checked = {path: self._checked[path] for path in candidates if path in self._checked}
        for path in candidates:
            if not self._usable(path):
                continue
            if path.stem in voices:
                _LOGGER.debug("Voice %s: %s is shadowed by another file", path.stem, path.name)
                continue
            voices[path.stem] = VoiceSpec(name=path.stem, source=str(path), code=self.code)
        return list(voices.values())

    def _usable(self, path: Path) -> bool:
        version = file_version(path)
        if version is None:
            return False
        known = self._checked.get(path)
        if known is None or known[0] != version:
            problem = check_voice_file(path)
            if problem is not None:
                _LOGGER.warning("Skipping voice file %s: %s", path, problem)
            known = (version, problem)
            self._checked[path] = known
        return known[1] is None
