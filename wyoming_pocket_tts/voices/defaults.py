"""Pocket-TTS's own default voice for a model, known without importing pocket-tts.

`import pocket_tts` takes seconds (torch); the server needs each language's default voice before
it opens its port, so the two tables that decide it are read from pocket-tts's source with `ast`.
If they ever move, pocket-tts is imported and asked instead.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import logging
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)


def default_voice_source(language: str | None, config: str | None) -> tuple[str, str]:
    """(name, source) of the voice pocket-tts uses when none is given.

    A built-in language model has a built-in voice (`alba`, `estelle`, ...); a custom config
    cannot use those states, so pocket-tts clones the fallback voice's original audio.
    """
    try:
        by_language, fallback, origins = _tables()
    except (OSError, SyntaxError, KeyError, ValueError) as error:
        _LOGGER.debug("Reading pocket-tts's voice tables failed (%s): importing it", error)
        return _asked(language, config)
    if config is not None:
        return fallback, origins[fallback]
    for key, voice in by_language.items():
        if language is not None and key in language:
            return voice, voice
    return fallback, fallback


def builtin_voice_names() -> frozenset[str] | None:
    """Names of pocket-tts's built-in voices (read without importing it), None if unreadable."""
    try:
        return frozenset(_tables()[2])
    except (OSError, SyntaxError, KeyError, ValueError) as error:
        _LOGGER.debug("Reading pocket-tts's voice table failed: %s", error)
        return None


@functools.cache
def _tables() -> tuple[dict[str, str], str, dict[str, str]]:
    spec = importlib.util.find_spec("pocket_tts")
    if spec is None or not spec.submodule_search_locations:
        raise OSError("pocket-tts is not installed")
    package = Path(next(iter(spec.submodule_search_locations)))
    parameters = _assignments(package / "default_parameters.py")
    utils = _assignments(package / "utils" / "utils.py")
    return (
        parameters["DEFAULT_VOICE_FOR_LANGUAGE"],
        parameters["DEFAULT_VOICE_FALLBACK"],
        utils["_ORIGINS_OF_PREDEFINED_VOICES"],
    )


def _assignments(path: Path) -> dict[str, Any]:
    """Module-level `NAME = <literal>` assignments of a Python file."""
    values: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    values[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return values


def _asked(language: str | None, config: str | None) -> tuple[str, str]:
    from pocket_tts.default_parameters import (  # imports torch
        DEFAULT_VOICE_FALLBACK,
        get_default_voice_for_language,
    )

    source = get_default_voice_for_language(language, config)
    name = source if "/" not in source and "." not in source else DEFAULT_VOICE_FALLBACK
    return name, source
