"""Changes to the household's voices: save a new one into the voices folder, rename, delete, and
choose each language's default.

Only files of the voices folder are ever written, renamed or removed; configured and built-in
voices are read-only here. A file's name is always made from a validated voice name, never taken
from a client. New files appear whole (written beside their target, then linked into place), so
the catalog, which rescans the folder on every `describe`, never sees half a file.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import (
    INVALID_NAME,
    NAME_TAKEN,
    NO_VOICES_FOLDER,
    READ_ONLY_FOLDER,
    READ_ONLY_VOICE,
    UNKNOWN_LANGUAGE,
    UNKNOWN_VOICE,
    WRONG_LANGUAGE,
)
from ..files import new_file
from ..settings import VoiceSpec
from .catalog import VoiceCatalog, VoiceKind, voice_kind

_LOGGER = logging.getLogger(__name__)

NAME_RE = re.compile(r"[^\W_][\w-]{0,39}")
"""A voice name: letters, digits, `_` and `-`, starting with a letter or digit, at most 40."""


def read_only_message(folder: Path | None, error: OSError | None = None) -> str:
    """What the studio says about a voices folder it cannot write to, with the fix."""
    why = f" ({error.strerror})" if error is not None and error.strerror else ""
    return (
        f"The voices folder {folder} is read-only{why}: voices can be used but not added, "
        "renamed or deleted here. Fix: choose a writable voices folder (in the add-on, "
        "/config/voices, the default; move your files there over Samba's addon_configs), or "
        "make this one writable"
    )


class VoiceEditError(Exception):
    """A change that cannot be made; `code` is machine-readable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def valid_name(name: object) -> str:
    """`name` normalised (NFC, trimmed), or `VoiceEditError` if it cannot name a voice file."""
    if not isinstance(name, str):
        raise VoiceEditError(INVALID_NAME, "A voice name is required")
    name = unicodedata.normalize("NFC", name.strip())
    if not NAME_RE.fullmatch(name):
        raise VoiceEditError(
            INVALID_NAME,
            "A voice name has 1 to 40 letters, digits, '-' or '_' and starts with a letter "
            "or digit",
        )
    return name


class VoiceManager:
    """Saves, renames and deletes the voices folder's files and records default choices."""

    def __init__(self, catalog: VoiceCatalog, folder: Path | None) -> None:
        self.catalog = catalog
        self.folder = folder
        """Where new voices go (the first `--voices-dir`); None: voices cannot be added."""

    def folder_problem(self) -> str | None:
        """Why voices cannot be added, renamed or deleted here (with the fix), or None."""
        if self.folder is None:
            return "No voices folder is configured (--voices-dir): voices cannot be added"
        if not os.access(self.folder, os.W_OK):  # a read-only mount answers EROFS, even to root
            return read_only_message(self.folder)
        return None

    def folder_for(self, language: str) -> Path:
        """The folder a new voice of `language` is saved in (its language subfolder)."""
        if self.folder is None:
            raise VoiceEditError(NO_VOICES_FOLDER, "No voices folder is configured")
        self._writable()
        if language not in self.catalog.languages:
            raise VoiceEditError(UNKNOWN_LANGUAGE, f"Language {language!r} is not served")
        first = self.catalog.languages[0]
        return self.folder if language == first else self.folder / language

    def editable(self, spec: VoiceSpec) -> bool:
        """Whether `spec` is a file of the voices folder (which the studio may change)."""
        if self.folder is None or voice_kind(spec.source) is not VoiceKind.FILE:
            return False
        if any(spec.name == configured.name for configured in self.catalog.configured):
            return False
        parent = Path(spec.source).resolve().parent
        root = self.folder.resolve()
        return parent == root or (parent.parent == root and parent.name in self.catalog.languages)

    def save(self, name: str, language: str, audio: np.ndarray, sample_rate: int) -> Path:
        """Write `audio` (mono float) as the new voice `name` of `language` (a free name)."""
        import soundfile

        name = self.check_free(name)
        folder = self.folder_for(language)
        target = folder / f"{name}.wav"
        with self._writing():
            try:
                with new_file(target, overwrite=False) as temporary:
                    soundfile.write(temporary, audio, sample_rate, format="WAV", subtype="PCM_16")
            except FileExistsError:
                raise VoiceEditError(NAME_TAKEN, f"{target.name} already exists") from None
        _LOGGER.info("Saved voice %s (%s): %s", name, language, target)
        return target

    def rename(self, old: str, new: str) -> VoiceSpec:
        """Give a voice of the folder a new name (its file follows)."""
        spec = self._own(old)
        new = self.check_free(new)
        source = Path(spec.source)
        with self._writing():
            _place(source, source.with_name(new + source.suffix), move=True)
        self.catalog.chosen.renamed(spec.name, new)
        _LOGGER.info("Renamed voice %s to %s", spec.name, new)
        return self.voice(new)

    def delete(self, name: str) -> None:
        """Remove a voice of the folder (its file)."""
        spec = self._own(name)
        with self._writing():
            Path(spec.source).unlink()
        self.catalog.chosen.forget(spec.name)
        _LOGGER.info("Deleted voice %s (%s)", spec.name, spec.source)

    def choose_default(self, language: str, name: str) -> None:
        """Make `name` the default voice of `language`, now and after restarts."""
        spec = self.voice(name)
        if spec.code != language:
            raise VoiceEditError(
                WRONG_LANGUAGE, f"Voice {spec.name} speaks {spec.code}, not {language}"
            )
        self.catalog.chosen.choose(language, spec.name)
        _LOGGER.info("Default voice of %s: %s", language, spec.name)

    def _writable(self) -> None:
        problem = self.folder_problem()
        if problem is not None:
            raise VoiceEditError(READ_ONLY_FOLDER, problem)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """A change of the folder; refused as `READ_ONLY_FOLDER` if the system refuses the write."""
        self._writable()
        try:
            yield
        except PermissionError as error:
            raise VoiceEditError(READ_ONLY_FOLDER, read_only_message(self.folder, error)) from None
        except OSError as error:
            if error.errno != errno.EROFS:
                raise
            raise VoiceEditError(READ_ONLY_FOLDER, read_only_message(self.folder, error)) from None

    def voice(self, name: object) -> VoiceSpec:
        """The voice called `name` itself, never one that speaks for it (`catalog.resolve`)."""
        spec = next((s for s in self.catalog.voices if s.name == name), None)
        if spec is None:
            raise VoiceEditError(UNKNOWN_VOICE, f"No voice is called {str(name)[:40]!r}")
        return spec

    def _own(self, name: object) -> VoiceSpec:
        spec = self.voice(name)
        if not self.editable(spec):
            raise VoiceEditError(
                READ_ONLY_VOICE,
                f"Voice {spec.name} is configured or built in: change it in the configuration",
            )
        return spec

    def check_free(self, name: object) -> str:
        """`name` validated and normalised, if no voice has it (in any case)."""
        name = valid_name(name)
        if any(spec.name.casefold() == name.casefold() for spec in self.catalog.voices):
            raise VoiceEditError(NAME_TAKEN, f"A voice is already called {name}")
        return name


def _place(source: Path, target: Path, *, move: bool = False) -> None:
    """Link `source` to `target` without replacing an existing file (then drop `source` if
    `move`): the target appears whole, and a file that appeared meanwhile is never lost."""
    try:
        os.link(source, target)
    except FileExistsError:
        raise VoiceEditError(NAME_TAKEN, f"{target.name} already exists") from None
    if move:
        source.unlink()
