"""pocket-tts's built-in voices without pocket-tts: where each name's saved state and original
audio lie on the hub.

A model loaded from one of pocket-tts's packaged language configs speaks a built-in name with a
state precomputed for that language (`get_predefined_voice`: `<language>.safetensors` of the
name, at a pinned revision); any other model has to encode the name's original audio
(`_ORIGINS_OF_PREDEFINED_VOICES`). Both tables are kept here, as in pocket-tts 4.0.1
(`utils/utils.py`); a test holds them equal to the installed pocket-tts's.
"""

from __future__ import annotations

ORIGINS = {
    "cosette": "hf://kyutai/tts-voices/expresso/ex04-ex02_confused_001_channel1_499s.wav",
    "marius": "hf://kyutai/tts-voices/voice-donations/Selfie.wav",
    "javert": "hf://kyutai/tts-voices/voice-donations/Butter.wav",
    "alba": "hf://kyutai/tts-voices/alba-mackenna/casual.wav",
    "jean": "hf://kyutai/tts-voices/ears/p010/freeform_speech_01_enhanced.wav",
    "anna": "hf://kyutai/tts-voices/vctk/p228_023_enhanced.wav",
    "vera": "hf://kyutai/tts-voices/vctk/p229_023_enhanced.wav",
    "fantine": "hf://kyutai/tts-voices/vctk/p244_023_enhanced.wav",
    "charles": "hf://kyutai/tts-voices/vctk/p254_023_enhanced.wav",
    "paul": "hf://kyutai/tts-voices/vctk/p259_023_enhanced.wav",
    "eponine": "hf://kyutai/tts-voices/vctk/p262_023_enhanced.wav",
    "azelma": "hf://kyutai/tts-voices/vctk/p303_023_enhanced.wav",
    "george": "hf://kyutai/tts-voices/vctk/p315_023_enhanced.wav",
    "mary": "hf://kyutai/tts-voices/vctk/p333_023_enhanced.wav",
    "jane": "hf://kyutai/tts-voices/vctk/p339_023_enhanced.wav",
    "michael": "hf://kyutai/tts-voices/vctk/p360_023_enhanced.wav",
    "eve": "hf://kyutai/tts-voices/vctk/p361_023_enhanced.wav",
    "bill_boerst": "hf://kyutai/tts-voices/voice-zero/bill_boerst.wav",
    "peter_yearsley": "hf://kyutai/tts-voices/voice-zero/peter_yearsley.wav",
    "stuart_bell": "hf://kyutai/tts-voices/voice-zero/stuart_bell.wav",
    "caro_davy": "hf://kyutai/tts-voices/voice-zero/caro_davy.wav",
    "giovanni": "hf://kyutai/pocket-tts/common_voice_it_36520747-enhanced-v2.mp3"
    "@64ab7d24c479d736a83b8cc666c4a776fca30fda",
    "lola": "hf://kyutai/pocket-tts/common_voice_es_19762977-enhanced-v2.mp3"
    "@64ab7d24c479d736a83b8cc666c4a776fca30fda",
    "juergen": "hf://kyutai/pocket-tts/de-DE-juergen.mp3@64ab7d24c479d736a83b8cc666c4a776fca30fda",
    "rafael": "hf://kyutai/pocket-tts/g-Vi8PgmSY0-enhanced-v2.wav"
    "@64ab7d24c479d736a83b8cc666c4a776fca30fda",
    "daan": "hf://kyutai/pocket-tts/cml_tts_nl_11290_9412_000030_0001.flac"
    "@2dd944b099d06bb9edbd221fef138685711d9bf0",
    "estelle": "hf://kyutai/tts-voices/unmute-prod-website/developpeuse-3.wav"
    "@1fc7395b7e012e2bbebfca14b942a4ef62ccc899",
}
"""Each built-in name's original audio (pocket-tts's `_ORIGINS_OF_PREDEFINED_VOICES`)."""

STATES = "hf://kyutai/pocket-tts-without-voice-cloning/languages/{language}/embeddings/{name}"
STATES_REVISION = "a7056f505a4a8ca72d8b5fb1440071d6f1a35739"
"""The hub folder and revision of the saved states (pocket-tts's `get_predefined_voice`)."""


def check_builtin(name: str) -> None:
    """ValueError naming the built-in voices if `name` is none of them."""
    if name not in ORIGINS:
        known = ", ".join(sorted(ORIGINS))
        raise ValueError(f"{name!r} is not a pocket-tts built-in voice (built-in: {known})")


def state_url(name: str, language: str) -> str:
    """The hf:// URL of built-in voice `name`'s saved state for the packaged config `language`
    (the config's stem: `english`, `french_24l`, ...), as pocket-tts's `get_predefined_voice`."""
    check_builtin(name)
    return f"{STATES.format(language=language, name=name)}.safetensors@{STATES_REVISION}"


def builtin_source(name: str, language: str | None) -> str:
    """What a model speaks built-in voice `name` from: its saved state for a packaged language
    config (`language`, the config's stem), its original audio (to encode) for any other model
    (`language` None)."""
    return state_url(name, language) if language is not None else origin_of(name)


def origin_of(name: str) -> str:
    """The hf:// URL of built-in voice `name`'s original audio."""
    check_builtin(name)
    return ORIGINS[name]
