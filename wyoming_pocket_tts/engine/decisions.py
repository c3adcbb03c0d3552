"""Saved `--quantize auto` decisions: one small JSON file per host key, written atomically.

The key holds everything that could change the answer (CPU model, usable cores, machine, torch
and pocket-tts versions, torchao's presence, the model's identity); a change in any of it gives
another file, so the next start measures again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import platform
import tempfile
import time
from dataclasses import asdict, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ..host import cpu_model, usable_cores
from ..settings import ModelSettings
from ..voices.store import model_identity
from .timing import Speed

_LOGGER = logging.getLogger(__name__)

MAX_THREADS = 4
"""The most torch intra-op threads tried (never more than the usable cores)."""


def host_key(settings: ModelSettings) -> dict[str, str]:
    """Everything a saved auto decision depends on; a change in any of it measures again."""
    return {
        "cpu": cpu_model(),
        "cores": str(usable_cores()),
        "machine": platform.machine(),
        "torch": version("torch"),
        "pocket-tts": version("pocket-tts"),
        "torchao": str(importlib.util.find_spec("torchao") is not None),
        "model": model_identity(replace(settings, quantize=False)),
    }


class DecisionStore:
    """Saved auto decisions, one small JSON file per host key; written atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_for(self, key: dict[str, str]) -> Path:
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        return self.folder / f"{digest[:32]}.json"

    def read(self, key: dict[str, str]) -> dict[str, Any] | None:
        """The saved decision for `key`, or None (absent, unreadable or for another key)."""
        path = self.path_for(key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if record["key"] != key:
                return None
            record["figures"] = {
                str(label): Speed(float(f["first_audio"]), float(f["rtf"]))
                for label, f in record["figures"].items()
            }
            if not isinstance(record["quantize"], bool) or not isinstance(record["threads"], int):
                raise TypeError("quantize or threads has the wrong type")
            if not 1 <= record["threads"] <= MAX_THREADS:
                raise ValueError(f"threads {record['threads']} out of range")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            _LOGGER.warning("Ignoring unreadable tuning file %s: %s", path, error)
            return None
        return record

    def write(
        self, key: dict[str, str], quantize: bool, threads: int, figures: dict[str, Speed]
    ) -> None:
        """Save a decision; a failure is logged (the next start measures again), never fatal."""
        record = {
            "key": key,
            "quantize": quantize,
            "threads": threads,
            "figures": {label: asdict(speed) for label, speed in figures.items()},
            "measured": time.strftime("%Y-%m-%d"),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    json.dump(record, file, indent=2)
                os.replace(temporary, self.path_for(key))
            finally:
                Path(temporary).unlink(missing_ok=True)
        except OSError as error:
            _LOGGER.warning("Cannot save the tuning decision in %s: %s", self.folder, error)
