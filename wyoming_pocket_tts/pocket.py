"""What pocket-tts ships, known without importing it.

`import pocket_tts` takes seconds (torch). The server needs pocket-tts's model list, each model's
language and each language's default voice before it opens its port, so they are read from the
installed package's files: its configs folder and two tables parsed with `ast`. If the tables ever
move, pocket-tts is imported and asked instead.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import logging
from pathlib import Path
from typing import Any

_LOGGER = logging.getLogger(__name__)


def package_dir() -> Path | None:
    """The installed pocket_tts package folder, found without importing it (None: not installed)."""
    spec = importlib.util.find_spec("pocket_tts")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def builtin_models() -> list[str]:
    """Names of the models pocket-tts ships configs for (`english`, `french_24l`, ...)."""
    package = package_dir()
    if package is None:
        return []
    return sorted(path.stem for path in (package / "config").glob("*.yaml"))


def smaller_model(model: str) -> str | None:
    """The next smaller pocket-tts built-in model of the same language, if there is one.

    24-layer models step down to their 6-layer sibling; the ~100M English models to the 27.9M
    `english_18m_2026-10`, then the 16.6M `english_7m_2026-10`, then the 11.7M
    `english_2m_2026-10` (`_refl` variants to theirs).
    """
    candidates: list[str] = []
    if model.endswith("_24l"):
        candidates.append(model.removesuffix("_24l"))
    elif model.startswith("english_18m"):
        candidates.append(model.replace("_18m", "_7m"))
    elif model.startswith("english_7m"):
        candidates.append(model.replace("_7m", "_2m"))
    elif model.startswith("english") and not model.startswith("english_2m"):
        refl = "_refl" if "refl" in model else ""
        candidates.append(f"english_18m{refl}_2026-10")
    known = set(builtin_models())
    return next((name for name in candidates if name in known), None)


def default_voice_source(model: str | None, config: str | None) -> tuple[str, str]:
    """(name, source) of the voice pocket-tts uses when none is given.

    A built-in model has a built-in voice (`alba`, `estelle`, ...); a custom config cannot use
    those states, so pocket-tts clones the fallback voice's original audio.
    """
    try:
        by_language, fallback, origins = _tables()
    except (OSError, SyntaxError, KeyError, ValueError) as error:
        _LOGGER.debug("Reading pocket-tts's voice tables failed (%s): importing it", error)
        return _asked(model, config)
    if config is not None:
        return fallback, origins[fallback]
    for key, voice in by_language.items():
        if model is not None and key in model:
            return voice, voice
    return fallback, fallback


def builtin_voice_names() -> frozenset[str] | None:
    """Names of pocket-tts's built-in voices, None if unreadable."""
    try:
        return frozenset(_tables()[2])
    except (OSError, SyntaxError, KeyError, ValueError) as error:
        _LOGGER.debug("Reading pocket-tts's voice table failed: %s", error)
        return None


@functools.cache
def _tables() -> tuple[dict[str, str], str, dict[str, str]]:
    package = package_dir()
    if package is None:
        raise OSError("pocket-tts is not installed")
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


def _asked(model: str | None, config: str | None) -> tuple[str, str]:
    from pocket_tts.default_parameters import (  # imports torch
        DEFAULT_VOICE_FALLBACK,
        get_default_voice_for_language,
    )

    source = get_default_voice_for_language(model, config)
    name = source if "/" not in source and "." not in source else DEFAULT_VOICE_FALLBACK
    return name, source
