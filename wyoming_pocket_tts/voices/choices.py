"""Each language's chosen default voice, kept in the data folder so that it survives a restart.

The choice is made in the voice studio (or by editing `default-voices.json` by hand). It wins over
the configured order (`--voice`, the add-on's `voice` option) while the chosen voice exists; when
it is deleted or renamed away, the language falls back to its first configured voice again.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from ..files import write_atomically

_LOGGER = logging.getLogger(__name__)

FILE_NAME = "default-voices.json"


class DefaultChoices:
    """Language code -> chosen voice name, read at start and written atomically on each change.

    Without a data folder the choices last until the server stops.
    """

    def __init__(self, data_dir: Path | None = None) -> None:
        self.path = data_dir / FILE_NAME if data_dir is not None else None
        self._lock = threading.Lock()
        self._chosen: dict[str, str] = self._read()

    def get(self, language: str) -> str | None:
        """The voice chosen for `language`, if any."""
        return self._chosen.get(language)

    def choose(self, language: str, name: str) -> None:
        """Make `name` the default voice of `language` (persisted)."""
        with self._lock:
            self._chosen[language] = name
            self._write()

    def renamed(self, old: str, new: str) -> None:
        """A voice was renamed: a choice of it follows the new name."""
        with self._lock:
            changed = {code: new for code, name in self._chosen.items() if name == old}
            if changed:
                self._chosen.update(changed)
                self._write()

    def forget(self, name: str) -> None:
        """A voice was deleted: its language goes back to its configured default."""
        with self._lock:
            kept = {code: chosen for code, chosen in self._chosen.items() if chosen != name}
            if kept != self._chosen:
                self._chosen = kept
                self._write()

    def _read(self) -> dict[str, str]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            _LOGGER.warning("Ignoring %s: %s", self.path, error)
            return {}
        if not isinstance(data, dict):
            _LOGGER.warning("Ignoring %s: not a JSON object", self.path)
            return {}
        return {str(code): str(name) for code, name in data.items() if isinstance(name, str)}

    def _write(self) -> None:
        if self.path is None:
            return
        write_atomically(self.path, json.dumps(self._chosen, indent=2, sort_keys=True) + "\n")
