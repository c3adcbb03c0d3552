"""Add-on option values the server would refuse: replaced by their defaults, with one line each.

The Supervisor starts the add-on only with options its schema (config.yaml) accepts, and the
schema refuses what it can express (ranges, choices, patterns). What it cannot express is checked
here: two models of one language, a voice whose file is missing or whose language has no model,
an unknown default voice, a voices folder that is missing and cannot be created, a runtime the
image does not hold (`torch`, saved by an add-on before 0.10, whose image had it). Each such value
is dropped or replaced by the server's default and named in one warning line, and the add-on
serves: a setting that cannot be honoured must not keep the whole voice assistant silent.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Protocol

from .cli import QUANTIZE_MODES, build_parser
from .engine.runtime import RuntimeKind
from .flags import loudness_target
from .languages import language_code
from .pocket import builtin_models, builtin_voice_names
from .settings import AUTO, RUNTIMES
from .voices.catalog import VoiceKind, voice_kind

CONFIG_DIR = Path("/config")
"""The add-on's own folder (`addon_config:rw`): backed up with the add-on, shared over Samba."""
SHARE_DIR = Path("/share")
"""Home Assistant's shared folder, mapped read-only: voice files given by path live here."""
DEFAULT_VOICES_DIR = str(CONFIG_DIR / "voices")
DEFAULT_LANGUAGE = "english"
_QUANTIZE_VALUES = (*QUANTIZE_MODES, "True", "False", True, False)
"""auto/on/off, and 0.1.0's bool as the Supervisor writes it ("True"/"False") or as JSON."""


_NAME_MARKS = frozenset(":=")
"""What `--voice [CODE:]NAME=SOURCE` reads as separators: a name holding one would be renamed
(`en:grandma` is `grandma` in English) or refused (`mom:calm`: no model for `mom`)."""


class _Option(Protocol):
    @property
    def optional(self) -> bool: ...


def language_of(value: str) -> str | None:
    """The language code a voice's `language` names: a code (`fr`) or a model name (`french`)."""
    by_name = {name: language_code(name) for name in builtin_models()}
    return {**{code: code for code in by_name.values()}, **by_name}.get(value.strip())


def prepare_voices_dir(
    voices_dir: str | None,
    writable: Collection[Path] = (CONFIG_DIR, SHARE_DIR),
    default: str = DEFAULT_VOICES_DIR,
) -> tuple[str | None, list[str]]:
    """The voices folder to serve, created if missing; (folder or None, warning lines).

    A missing folder is created only inside the add-on's mapped folders (`writable`): anywhere
    else it would be a folder in the container that the user cannot reach. If it cannot be used,
    the default folder is used instead, and if that fails too the add-on serves without one.
    """
    if voices_dir is None or not voices_dir.strip():
        return None, []
    notes: list[str] = []
    for candidate in dict.fromkeys([voices_dir.strip(), default]):
        why = _make_folder(Path(candidate), writable)
        if why is None:
            return candidate, notes
        instead = f"using {default} instead" if candidate != default else "serving without one"
        notes.append(f"Voices folder {candidate}: {why}; {instead}")
    return None, notes


def _make_folder(path: Path, writable: Collection[Path]) -> str | None:
    """Why `path` cannot be the voices folder after trying to create it, or None if it can."""
    if path.is_dir():
        return None
    if path.exists():
        return "not a folder"
    resolved = path.resolve()
    if not any(resolved.is_relative_to(Path(top).resolve()) for top in writable):
        places = " or ".join(str(top) for top in writable)
        return f"no such folder (only folders under {places} are created)"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot be created: {error.strerror or error}"
    return None


def settle_options(
    options: Mapping[str, Any],
    known: Mapping[str, _Option],
    languages: Collection[str],
    folder_voices: Mapping[str, str],
) -> tuple[dict[str, Any], list[str]]:
    """Options whose every value the server accepts; (options, one warning line per change).

    `known`: the add-on's options; `languages`: pocket-tts's model names; `folder_voices`: the
    voices of the voices folder, by name. The types must already be right (`check_options`).
    """
    settled: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in options.items():
        if key not in known:
            notes.append(f"Option {key!r} is not an option of this add-on: ignored")
        elif value is not None or not known[key].optional:
            settled[key] = value
    codes = _models(settled, languages, notes)
    settled["voices"] = _voices(settled.get("voices", []), codes, notes)
    _default_voice(settled, folder_voices, notes)
    parser = build_parser()
    for key, flag in (("max_models", "max_models"), ("voice_cache_size", "voice_cache_size")):
        if key in settled and settled[key] < 1:
            default = parser.get_default(flag)
            notes.append(f"Option {key!r}: {settled[key]} is below 1; using {default}")
            settled[key] = default
    if "loudness" in settled and not _loudness_ok(settled["loudness"]):
        notes.append(
            f"Option 'loudness': {settled['loudness']!r} is not off or -70 to 0 LUFS; "
            f"using {parser.get_default('loudness'):g}"
        )
        del settled["loudness"]
    runtime = settled.get("runtime")
    if runtime in RUNTIMES and runtime != AUTO and not RuntimeKind(runtime).installed:
        notes.append(f"Option 'runtime': {runtime} is not in this add-on's image; using auto")
        settled["runtime"] = AUTO
    if "quantize" in settled and settled["quantize"] not in _QUANTIZE_VALUES:
        notes.append(
            f"Option 'quantize': {settled['quantize']!r} is not auto, on or off; using auto"
        )
        settled["quantize"] = "auto"
    return settled, notes


def _models(settled: dict[str, Any], languages: Collection[str], notes: list[str]) -> set[str]:
    """Keep one model per language code (the first); returns the codes served."""
    if "language" in settled and settled["language"] not in languages:
        notes.append(
            f"Option 'language': {settled['language']!r} is not a pocket-tts model; "
            f"using {DEFAULT_LANGUAGE}"
        )
        settled["language"] = DEFAULT_LANGUAGE
    first = settled.get("language") or DEFAULT_LANGUAGE
    served = {language_code(first): first}
    kept = []
    for name in settled.get("languages", []):
        code = language_code(name)
        if name == first or name in kept:
            continue
        if name not in languages:
            notes.append(f"Option 'languages': {name!r} is not a pocket-tts model; ignored")
        elif code in served:
            notes.append(
                f"Option 'languages': {name} ignored: {served[code]} already speaks {code} "
                "(one model per language)"
            )
        else:
            served[code] = name
            kept.append(name)
    if "languages" in settled:
        settled["languages"] = kept
    return set(served)


def _voices(voices: list[Mapping[str, Any]], codes: set[str], notes: list[str]) -> list[Any]:
    """The entries of `voices` the server can load; each one dropped is named."""
    kept: list[Mapping[str, Any]] = []
    builtins = builtin_voice_names()
    for number, voice in enumerate(voices, 1):
        name, source = voice["name"].strip(), voice["source"].strip()
        language = (voice.get("language") or "").strip()
        code = language_of(language) if language else None
        why = None
        if not name or _NAME_MARKS & set(name):
            why = "a name must not be empty or contain ':' or '=' (it would be read as a flag)"
        elif any(other["name"].strip() == name for other in kept):
            why = "a voice of that name is listed before"
        elif not source:
            why = "no source"
        elif language and code is None:
            why = f"{language!r} is not a language code or model name"
        elif code is not None and code not in codes:
            why = f"no model speaks {code}; add one to 'languages'"
        elif voice_kind(source) is VoiceKind.FILE and not Path(source).expanduser().is_file():
            why = f"no such file {source}"
        elif voice_kind(source) is VoiceKind.BUILTIN and builtins and source not in builtins:
            why = f"{source!r} is not a file, URL or pocket-tts built-in voice"
        if why is None:
            kept.append(voice)
        else:
            notes.append(f"Option 'voices' entry {number} ({name or '?'}): {why}; ignored")
    return kept


def _default_voice(
    settled: dict[str, Any], folder_voices: Mapping[str, str], notes: list[str]
) -> None:
    """Drop a default `voice` that names none of the voices, so the model's own default speaks."""
    default = (settled.get("voice") or "").strip()
    if not default:
        return
    if _NAME_MARKS & set(default):
        notes.append(
            f"Option 'voice': {default!r} cannot name a voice (no ':' or '='); "
            "using the model's default voice"
        )
        del settled["voice"]
        return
    names = {voice["name"].strip() for voice in settled["voices"]}
    builtins = builtin_voice_names()
    if default in names or default in folder_voices or builtins is None or default in builtins:
        return
    notes.append(
        f"Option 'voice': {default!r} is none of the voices, the voices folder's files or the "
        "built-in voices; using the model's default voice"
    )
    del settled["voice"]


def _loudness_ok(value: str) -> bool:
    if not value.strip():
        return True  # no flag: the server's default
    try:
        loudness_target(value)
    except argparse.ArgumentTypeError:
        return False
    return True
