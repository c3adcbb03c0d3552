"""OpenAI's voice and model names, as OpenAI clients send them, on the household's voices.

OpenAI clients default to `voice: "alloy"` and `model: "tts-1"`. A voice of the household
keeps its own name; OpenAI's names (`OPENAI_VOICES`) speak with the default voice of the
language asked for, unless `--voice-alias NAME=VOICE` maps them (or any other name) to a voice.
A name is only ever a key into these tables and into the voice catalog: never a path.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

OPENAI_VOICES = (
    "alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse",
)  # fmt: skip
"""The voice names of OpenAI's speech API (2025), which clients offer and send."""
OPENAI_MODELS = ("tts-1", "tts-1-hd", "gpt-4o-mini-tts")
"""OpenAI's speech models: accepted as `model`, they speak the default language."""


@dataclass(frozen=True)
class Alias:
    """A name that stands for a voice."""

    name: str
    target: str | None
    """The voice it speaks with (a catalog name); None: the default voice of the language."""


class VoiceAliases:
    """OpenAI's voice names plus the household's `--voice-alias` mappings (which win)."""

    def __init__(self, mapped: Mapping[str, str] | tuple[tuple[str, str], ...] = ()) -> None:
        self._mapped = dict(mapped)

    def get(self, name: object) -> Alias | None:
        """The alias called `name`, if it is one."""
        if not isinstance(name, str):
            return None
        if name in self._mapped:
            return Alias(name, self._mapped[name])
        return Alias(name, None) if name in OPENAI_VOICES else None

    def __iter__(self) -> Iterator[Alias]:
        """Every alias: OpenAI's names in their order, then the other mapped names."""
        for name in (*OPENAI_VOICES, *(n for n in self._mapped if n not in OPENAI_VOICES)):
            alias = self.get(name)
            assert alias is not None
            yield alias
