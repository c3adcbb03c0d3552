"""Saved `--quantize auto` decisions: one small JSON file per host key, written atomically.

The key holds everything that could change the answer (CPU model, usable cores, machine, torch
and pocket-tts versions, torchao's presence, the model's identity, a fixed `--threads`); a change
in any of it gives another file, so the next start measures again. Each file carries the
`VERSION` of the rule and measurement that decided it: one decided otherwise (before version 2:
by real-time factor alone, on a 10-frame generation; before 3: int8 without Mimi's decoder;
before 4: the baseline kept whenever the noise hid a gain) is measured again. A decision also
says whether it is `provisional` (the measurements could not separate the choices, `rule`) and
the `gain` and `noise` behind it; a provisional one is measured again when the server is idle.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import platform
import time
from dataclasses import asdict, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ...files import key_name, write_atomically
from ...host import cpu_model, installed_version, usable_cores
from ...settings import ModelSettings
from ..identity import model_identity
from ..runtime import RuntimeKind
from .rule import Choice
from .timing import Speed

_LOGGER = logging.getLogger(__name__)

VERSION = 4
"""Of the rule and measurement behind a saved decision: 2 is first audio first, on the serving
path (`rule`, `timing`); 3 times int8 with Mimi's decoder transformer in int8 too (`model.int8`);
4 takes the fastest provisionally when the noise hides its gain, where 3 kept the baseline for
good (issue 41: a bursty first start locked in fp32 x1); files without it were decided by
real-time factor alone."""
RUNTIMES_VERSION = 2
"""Of `--runtime auto`'s comparison, in its key: 2 times the graphs at the precision torch
serves at (int8 graphs when `--quantize auto` chose int8) and keeps them at equal figures
(`rule`); 1 timed fp32 graphs unless `--quantize on`, and kept torch at equal figures."""


def host_key(settings: ModelSettings, onnx: bool = False) -> dict[str, str]:
    """Everything a saved auto decision depends on; a change in any of it measures again.
    `onnx`: a decision between torch and ONNX Runtime (`--runtime auto`), which also depends on
    onnxruntime's version and on `--quantize` (which precisions were candidates)."""
    key = {
        "cpu": cpu_model(),
        "cores": str(usable_cores()),
        "machine": platform.machine(),
        "torch": version("torch"),
        "pocket-tts": version("pocket-tts"),
        "torchao": str(importlib.util.find_spec("torchao") is not None),
        "model": model_identity(replace(settings, quantize=False)),
    }
    if settings.threads is not None:
        key["threads"] = str(settings.threads)
    if onnx:
        key["runtimes"] = f"torch onnx {RUNTIMES_VERSION}"
        key["quantize"] = str(settings.quantize)
        key["onnxruntime"] = installed_version("onnxruntime")
    return key


class DecisionStore:
    """Saved auto decisions, one small JSON file per host key; written atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_for(self, key: dict[str, str]) -> Path:
        return self.folder / f"{key_name(key)}.json"

    def read(self, key: dict[str, str]) -> dict[str, Any] | None:
        """The saved decision for `key`, or None (absent, unreadable or for another key)."""
        path = self.path_for(key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if record["key"] != key:
                return None
            if record.get("version") != VERSION:
                _LOGGER.info("Measuring again: %s was decided by an older rule", path)
                return None
            record["figures"] = {
                str(label): Speed(float(f["first_audio"]), float(f["rtf"]))
                for label, f in record["figures"].items()
            }
            record.setdefault("onnx", False)  # saved before `--runtime auto`: torch
            if not all(isinstance(record[n], bool) for n in ("quantize", "provisional", "onnx")):
                raise TypeError("quantize, provisional or onnx is not a boolean")
            if not isinstance(record["threads"], int):
                raise TypeError("threads is not a number")
            record["gain"], record["noise"] = float(record["gain"]), float(record["noise"])
            if record["threads"] < 1:
                raise ValueError(f"threads {record['threads']} out of range")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            _LOGGER.warning("Ignoring unreadable tuning file %s: %s", path, error)
            return None
        return record

    def write(self, key: dict[str, str], choice: Choice, figures: dict[str, Speed]) -> None:
        """Save a decision; a failure is logged (the next start measures again), never fatal."""
        record = {
            "version": VERSION,
            "key": key,
            "quantize": choice.config.quantize,
            "threads": choice.config.threads,
            "onnx": choice.config.runtime is not RuntimeKind.TORCH,
            "provisional": choice.provisional,
            "gain": round(choice.gain, 4),
            "noise": round(choice.noise, 4),
            "figures": {label: asdict(speed) for label, speed in figures.items()},
            "measured": time.strftime("%Y-%m-%d"),
        }
        try:
            write_atomically(self.path_for(key), json.dumps(record, indent=2))
        except OSError as error:
            _LOGGER.warning("Cannot save the tuning decision in %s: %s", self.folder, error)
