"""The household's pronunciations: per language, "written -> said" entries (a name, a place, a
brand), applied to text after clean-up and before numbers are read.

Each language's entries are a plain file in the data folder, `pronunciations/<code>.txt`, one
`written -> said` a line (`#` starts a comment), so they can be edited without the voice studio.
The file is read again whenever it changes: no restart is needed.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomically
from ..settings import LANGUAGE_CODE

_LOGGER = logging.getLogger(__name__)

FOLDER = "pronunciations"
SEPARATOR = "->"
MAX_ENTRIES = 500
MAX_CHARS = 100
"""Longest written or said form."""
_CODE_RE = re.compile(LANGUAGE_CODE)


@dataclass(frozen=True)
class Lexicon:
    """One language's entries, ready to apply."""

    entries: tuple[tuple[str, str], ...] = ()

    def apply(self, text: str) -> str:
        """`text` with each written form (a whole word or phrase, any case) replaced by its
        spoken form; longer forms win over shorter ones they contain."""
        if not self.entries:
            return text
        return _pattern(self.entries).sub(lambda m: self._said[m.group(0).casefold()], text)

    @property
    def _said(self) -> dict[str, str]:
        return {written.casefold(): said for written, said in self.entries}


_PATTERNS: dict[tuple[tuple[str, str], ...], re.Pattern[str]] = {}


def _pattern(entries: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    pattern = _PATTERNS.get(entries)
    if pattern is None:
        forms = sorted({written for written, _ in entries}, key=len, reverse=True)
        alternatives = "|".join(re.escape(form) for form in forms)
        pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
        if len(_PATTERNS) > 32:
            _PATTERNS.clear()
        _PATTERNS[entries] = pattern
    return pattern


class PronunciationError(ValueError):
    """Entries that cannot be kept; the message says which and why."""


def parse(text: str) -> list[tuple[str, str]]:
    """The entries of a pronunciations file; lines that are not `written -> said` are skipped."""
    entries = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        written, sep, said = line.partition(SEPARATOR)
        if sep and written.strip() and said.strip():
            entries.append((written.strip(), said.strip()))
    return entries[:MAX_ENTRIES]


def validated(entries: Sequence[object]) -> list[tuple[str, str]]:
    """Entries from a client, checked: pairs of one-line strings without `->` or `#`."""
    if not isinstance(entries, Sequence) or len(entries) > MAX_ENTRIES:
        raise PronunciationError(f"Expected a list of at most {MAX_ENTRIES} entries")
    result = []
    for number, entry in enumerate(entries, 1):
        if not (isinstance(entry, Sequence) and len(entry) == 2):
            raise PronunciationError(f"Entry {number}: expected [written, said]")
        written, said = (str(part).strip() for part in entry)
        for part in (written, said):
            if (
                not part
                or len(part) > MAX_CHARS
                or any(c in part for c in "\n\r#")
                or (SEPARATOR in part)
            ):
                raise PronunciationError(
                    f"Entry {number}: each side is 1 to {MAX_CHARS} characters on one line, "
                    f"without '#' or '{SEPARATOR}'"
                )
        result.append((written, said))
    return result


class Pronunciations:
    """Every language's lexicon, from files in the data folder (in memory without one)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.folder = data_dir / FOLDER if data_dir is not None else None
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[object, Lexicon]] = {}

    def lexicon(self, language: str) -> Lexicon:
        """The entries of `language` as its file is now (read again only if it changed)."""
        if not _CODE_RE.fullmatch(language):
            return Lexicon()
        version = self._version(language)
        with self._lock:
            known = self._cache.get(language)
            if known is not None and (known[0] == version or self.folder is None):
                return known[1]
        lexicon = Lexicon(tuple(self._read(language)))
        with self._lock:
            self._cache[language] = (version, lexicon)
        return lexicon

    def replace(self, language: str, entries: Sequence[object]) -> Lexicon:
        """Make `entries` the whole list of `language` (written to its file)."""
        if not _CODE_RE.fullmatch(language):
            raise PronunciationError(f"Not a language code: {language[:20]!r}")
        checked = validated(entries)
        if self.folder is not None:
            lines = [f"{written} {SEPARATOR} {said}" for written, said in checked]
            header = f"# Pronunciations ({language}): written {SEPARATOR} said, one a line\n"
            write_atomically(self._path(language), header + "".join(f"{x}\n" for x in lines))
        lexicon = Lexicon(tuple(checked))
        with self._lock:
            self._cache[language] = (self._version(language), lexicon)
        return lexicon

    def _path(self, language: str) -> Path:
        assert self.folder is not None
        return self.folder / f"{language}.txt"

    def _version(self, language: str) -> object:
        if self.folder is None:
            return None
        try:
            stat = self._path(language).stat()
        except OSError:
            return None
        return stat.st_size, stat.st_mtime_ns

    def _read(self, language: str) -> list[tuple[str, str]]:
        if self.folder is None:
            return []
        try:
            return parse(self._path(language).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as error:
            _LOGGER.warning("Cannot read pronunciations of %s: %s", language, error)
            return []
