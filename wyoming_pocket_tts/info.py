"""The `info` answer to `describe`: one TTS program listing the household's voices."""

from __future__ import annotations

from wyoming.info import Attribution, Info, TtsProgram, TtsVoice

from . import __version__
from .engine.serving.engine import Engine
from .readiness import READY, readiness
from .voices.catalog import VoiceCatalog, describe_voice

KYUTAI = Attribution(name="Kyutai", url="https://github.com/kyutai-labs/pocket-tts")


def build_info(catalog: VoiceCatalog, engine: Engine) -> Info:
    """Describe the server: each voice with its model's language; broken ones are not installed
    (nor the voices of a model that failed to load). Until the server speaks, the program's
    description ends with what the start is doing (`readiness`)."""
    voices = [
        TtsVoice(
            name=spec.name,
            description=describe_voice(spec),
            attribution=KYUTAI,
            installed=catalog.failures.check(spec) is None
            and engine.models.failure(spec.code) is None,
            version=None,
            languages=[spec.code],
        )
        for spec in catalog.voices
    ]
    models = ", ".join(model.label for model in engine.settings.models)
    now = readiness(engine)
    description = f"Kyutai Pocket-TTS ({models})"
    if now.state != READY:
        description += f"; {now.words()}"
    program = TtsProgram(
        name="pocket-tts",
        description=description,
        attribution=KYUTAI,
        installed=True,
        version=__version__,
        voices=voices,
        supports_synthesize_streaming=True,
    )
    return Info(tts=[program])
