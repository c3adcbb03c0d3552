"""The household's voices: what the operator configured, and how a client's voice name maps to one.

A client only ever names a voice. The name is looked up in this table and nowhere else: it is never
joined to a path, opened, or handed to pocket-tts or the hub, so a client cannot reach a file or URL
the operator did not configure.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from urllib.parse import urlsplit

from ..settings import ModelSettings, VoiceSpec
from .folder import VoiceFolder, file_version

_LOGGER = logging.getLogger(__name__)

_URL_PREFIXES = ("hf://", "http://", "https://")

_LANGUAGE_CODES = {
    "english": "en",
    "french": "fr",
    "german": "de",
    "portuguese": "pt",
    "italian": "it",
    "spanish": "es",
    "dutch": "nl",
}
"""Pocket-TTS model names start with the language they speak; Home Assistant wants ISO codes."""


class VoiceKind(str, Enum):
    """Where a voice prompt comes from."""

    BUILTIN = "built-in"
    FILE = "file"
    URL = "url"


def voice_kind(source: str) -> VoiceKind:
    """Classify a configured voice source (a built-in name, a URL, or a local file)."""
    if source.startswith(_URL_PREFIXES):
        return VoiceKind.URL
    path = Path(source)
    if path.suffix or len(path.parts) > 1 or path.exists():
        return VoiceKind.FILE
    return VoiceKind.BUILTIN


def is_audio_prompt(source: str) -> bool:
    """Whether a voice source is audio to clone (file, URL or hf:// audio), not a ready state.

    Built-in names and `.safetensors` files are states; everything else must be encoded by a
    model that has the voice-cloning weights.
    """
    kind = voice_kind(source)
    if kind is VoiceKind.BUILTIN:
        return False
    path = urlsplit(source).path if source.startswith(("http://", "https://")) else source
    return not path.split("@")[0].lower().endswith(".safetensors")


def parse_voice_arg(value: str) -> VoiceSpec:
    """Parse `--voice NAME=SOURCE`; a bare SOURCE names the voice after itself or its file stem."""
    name, sep, source = value.partition("=")
    if not sep:
        source = value
        name = Path(value).stem if voice_kind(value) is VoiceKind.FILE else value
    name, source = name.strip(), source.strip()
    if not name or not source:
        raise ValueError(f"expected NAME=SOURCE or SOURCE, got {value!r}")
    return VoiceSpec(name=name, source=source)


def language_code(model: ModelSettings) -> str:
    """The ISO code of a model's language, from its name or config file name ('en' if unknown)."""
    stem = model.language or Path(model.config.split("@")[0] if model.config else "").stem
    for prefix, code in _LANGUAGE_CODES.items():
        if stem.lower().startswith(prefix):
            return code
    return "en"


def default_voice(model: ModelSettings) -> VoiceSpec:
    """Pocket-TTS's own default voice for the model (a built-in, or its audio for custom models)."""
    from pocket_tts.default_parameters import (  # imports torch: only when needed
        DEFAULT_VOICE_FALLBACK,
        get_default_voice_for_language,
    )

    source = get_default_voice_for_language(model.language, model.config)
    name = source if voice_kind(source) is VoiceKind.BUILTIN else DEFAULT_VOICE_FALLBACK
    return VoiceSpec(name=name, source=source)


def describe_voice(spec: VoiceSpec) -> str:
    """A short description for Home Assistant's voice picker."""
    kind = voice_kind(spec.source)
    if kind is VoiceKind.BUILTIN:
        return f"{spec.name} (Pocket-TTS built-in voice)"
    origin = Path(spec.source.split("@")[0]).name
    if origin.endswith(".safetensors"):
        return f"{spec.name} (voice state {origin})"
    return f"{spec.name} (cloned from {origin})"


class LoadFailures:
    """Voices whose prompt could not be loaded, until their file changes.

    Written by the engine thread and read on the loop; each is a single dict operation, which
    the GIL makes atomic, so no lock is needed. Once the engine reports that the model cannot
    clone voices (`refuse_cloning`), every audio voice fails, also one never tried yet.
    """

    def __init__(self) -> None:
        self._failed: dict[str, tuple[object, str]] = {}
        self._no_cloning: tuple[str, str] | None = None
        self._told: set[str] = set()

    def refuse_cloning(self, reason: str, remedy: str) -> None:
        """The loaded model cannot clone: voices cloned from audio are unavailable."""
        self._no_cloning = (reason, remedy)

    def record(self, spec: VoiceSpec, reason: str) -> None:
        """Remember that `spec` failed to load as its source is now."""
        self._failed[spec.source] = (_source_version(spec), reason)

    def reason(self, spec: VoiceSpec) -> str | None:
        """Why `spec` cannot load, if it failed as it is now."""
        if self._no_cloning is not None and is_audio_prompt(spec.source):
            reason, remedy = self._no_cloning
            if spec.source not in self._told:  # once per voice, whoever asks first
                self._told.add(spec.source)
                _LOGGER.warning("Voice %s is not offered: %s. %s", spec.name, reason, remedy)
            return reason
        failure = self._failed.get(spec.source)
        if failure is None or failure[0] != _source_version(spec):
            return None
        return failure[1]


def _source_version(spec: VoiceSpec) -> object:
    return file_version(Path(spec.source)) if voice_kind(spec.source) is VoiceKind.FILE else None


class VoiceCatalog:
    """The household's voices by name: configured ones first (the first is the default), then
    those in the voices folders, rescanned whenever the list is needed."""

    def __init__(self, voices: list[VoiceSpec], folders: Sequence[Path] = ()) -> None:
        if not voices:
            raise ValueError("at least one voice is required")
        self._configured: dict[str, VoiceSpec] = {}
        for spec in voices:
            if spec.name in self._configured:
                raise ValueError(f"voice {spec.name!r} is configured twice")
            self._configured[spec.name] = spec
        self.default = voices[0]
        self.failures = LoadFailures()
        self._folders = [VoiceFolder(folder) for folder in folders]
        self._found: dict[str, VoiceSpec] = {}
        self._scan()

    @property
    def voices(self) -> list[VoiceSpec]:
        """All voices as they are now, default first."""
        self._scan()
        return [*self._configured.values(), *self._found.values()]

    def resolve(self, name: object) -> VoiceSpec:
        """The voice called `name`, or the default voice (with a warning) when there is none.

        `name` is only ever a key into this table: never a path, a URL or a pocket-tts source.
        """
        if name is None:
            return self.default
        spec = self._lookup(name)
        if spec is None and self._folders:
            self._scan()
            spec = self._lookup(name)
        if spec is None:
            _LOGGER.warning("Unknown voice %.64r requested: using %s", name, self.default.name)
            return self.default
        reason = self.failures.reason(spec)
        if reason is not None and spec is not self.default:
            _LOGGER.warning("Voice %s cannot load (%s): using %s", name, reason, self.default.name)
            return self.default
        return spec

    def _lookup(self, name: object) -> VoiceSpec | None:
        if not isinstance(name, str):
            return None
        return self._configured.get(name) or self._found.get(name)

    def _scan(self) -> None:
        found: dict[str, VoiceSpec] = {}
        for folder in self._folders:
            for spec in folder.scan():
                if spec.name not in self._configured:
                    found.setdefault(spec.name, spec)
        self._found = found
