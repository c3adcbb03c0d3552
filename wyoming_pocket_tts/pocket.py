"""What pocket-tts ships, known without it: its model configs and its voice tables.

The server needs pocket-tts's model list, each model's config, each language's default voice and
the built-in voices before it opens its port, and the graphs need them with no pocket-tts
installed at all (`import pocket_tts` also takes seconds: torch). They are kept in the project,
as pocket-tts 4.0.1 has them (`pocket_files/`: its `config/` folder, and `tables.json` with
`default_parameters`' and `utils`' tables); `tests/repo/test_pocket_files.py` holds them equal
to the installed pocket-tts's.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

FILES = Path(__file__).parent / "pocket_files"
POCKET_TTS_VERSION = "4.0.1"
"""The pocket-tts whose files `FILES` holds (and whose code `engine.onnx` and
`engine.graph_build` follow)."""


def configs_dir() -> Path:
    """The folder of pocket-tts's built-in configs (`utils.config.CONFIGS_DIR`'s copy)."""
    return FILES / "config"


def builtin_models() -> list[str]:
    """Names of the models pocket-tts ships configs for (`english`, `french_24l`, ...)."""
    return sorted(path.stem for path in configs_dir().glob("*.yaml"))


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
    tables = _tables()
    fallback = tables["DEFAULT_VOICE_FALLBACK"]
    if config is not None:
        return fallback, tables["_ORIGINS_OF_PREDEFINED_VOICES"][fallback]
    for key, voice in tables["DEFAULT_VOICE_FOR_LANGUAGE"].items():
        if model is not None and key in model:
            return voice, voice
    return fallback, fallback


def builtin_voice_origins() -> dict[str, str]:
    """Each built-in voice's original audio (`_ORIGINS_OF_PREDEFINED_VOICES`)."""
    return dict(_tables()["_ORIGINS_OF_PREDEFINED_VOICES"])


def builtin_voice_names() -> frozenset[str]:
    """Names of pocket-tts's built-in voices."""
    return frozenset(_tables()["_ORIGINS_OF_PREDEFINED_VOICES"])


def builtin_state_url(name: str, language: str) -> str:
    """Where the saved state of built-in voice `name` for the packaged config `language` lies
    (`get_predefined_voice`)."""
    return str(_tables()["predefined_voice"]).format(language=language, name=name)


@functools.cache
def _tables() -> dict[str, Any]:
    tables: dict[str, Any] = json.loads((FILES / "tables.json").read_text(encoding="utf-8"))
    return tables
