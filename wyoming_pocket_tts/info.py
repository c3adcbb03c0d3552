"""The `info` answer to `describe`: one TTS program listing the household's voices."""

from __future__ import annotations

from wyoming.info import Attribution, Info, TtsProgram, TtsVoice

from . import __version__
from .voices.catalog import VoiceCatalog, describe_voice

KYUTAI = Attribution(name="Kyutai", url="https://github.com/kyutai-labs/pocket-tts")


def build_info(catalog: VoiceCatalog, language: str, model_name: str) -> Info:
    """Describe the server: voices speak the model's language; broken ones are not installed."""
    voices = [
        TtsVoice(
            name=spec.name,
            description=describe_voice(spec),
            attribution=KYUTAI,
            installed=catalog.failures.reason(spec) is None,
            version=None,
            languages=[language],
        )
        for spec in catalog.voices
    ]
    program = TtsProgram(
        name="pocket-tts",
        description=f"Kyutai Pocket-TTS ({model_name})",
        attribution=KYUTAI,
        installed=True,
        version=__version__,
        voices=voices,
        supports_synthesize_streaming=True,
    )
    return Info(tts=[program])
