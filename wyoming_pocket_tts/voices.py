"""The household's voices: what the operator configured, and how a client's voice name maps to one.

A client only ever names a voice. The name is looked up in this table and nowhere else: it is never
joined to a path, opened, or handed to pocket-tts or the hub, so a client cannot reach a file or URL
the operator did not configure.
"""

from __future__ import annotations

import logging
from enum import Enum
from pathlib import Path

from .settings import ModelSettings, VoiceSpec

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


class VoiceCatalog:
    """Configured voices by name; the first one is the default."""

    def __init__(self, voices: list[VoiceSpec]) -> None:
        if not voices:
            raise ValueError("at least one voice is required")
        self._voices: dict[str, VoiceSpec] = {}
        for spec in voices:
            if spec.name in self._voices:
                raise ValueError(f"voice {spec.name!r} is configured twice")
            self._voices[spec.name] = spec
        self.default = voices[0]

    @property
    def voices(self) -> list[VoiceSpec]:
        """All configured voices, default first."""
        return list(self._voices.values())

    def resolve(self, name: str | None) -> VoiceSpec:
        """The voice called `name`, or the default voice (with a warning) when there is none."""
        if name is None:
            return self.default
        spec = self._voices.get(name) if isinstance(name, str) else None
        if spec is None:
            _LOGGER.warning(
                "Unknown voice %.64r requested: using default voice %s", name, self.default.name
            )
            return self.default
        return spec
