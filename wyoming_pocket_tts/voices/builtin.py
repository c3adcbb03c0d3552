"""pocket-tts's built-in voices without pocket-tts: where each name's saved state and original
audio lie on the hub.

A model loaded from one of pocket-tts's packaged language configs speaks a built-in name with a
state precomputed for that language (`get_predefined_voice`: `<language>.safetensors` of the
name, at a pinned revision); any other model has to encode the name's original audio
(`_ORIGINS_OF_PREDEFINED_VOICES`). Both tables are pocket-tts's, kept in the project
(`pocket`).
"""

from __future__ import annotations

from ..pocket import builtin_state_url, builtin_voice_origins


def check_builtin(name: str) -> None:
    """ValueError naming the built-in voices if `name` is none of them."""
    origins = builtin_voice_origins()
    if name not in origins:
        known = ", ".join(sorted(origins))
        raise ValueError(f"{name!r} is not a pocket-tts built-in voice (built-in: {known})")


def state_url(name: str, language: str) -> str:
    """The hf:// URL of built-in voice `name`'s saved state for the packaged config `language`
    (the config's stem: `english`, `french_24l`, ...), as pocket-tts's `get_predefined_voice`."""
    check_builtin(name)
    return builtin_state_url(name, language)


def builtin_source(name: str, language: str | None) -> str:
    """What a model speaks built-in voice `name` from: its saved state for a packaged language
    config (`language`, the config's stem), its original audio (to encode) for any other model
    (`language` None)."""
    return state_url(name, language) if language is not None else origin_of(name)


def origin_of(name: str) -> str:
    """The hf:// URL of built-in voice `name`'s original audio."""
    check_builtin(name)
    return builtin_voice_origins()[name]
