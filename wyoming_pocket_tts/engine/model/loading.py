"""pocket-tts's model as the server runs it: loaded (fp32, or int8 with Mimi's decoder too) and
given the faster equivalents of the same audio.

Used by `tuning` (which decides how to load), the build child (`graph_build/child.py`) and the
voice encoder's (`children/voice.py`).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from ...settings import ModelSettings
from .int8 import quantize_mimi_decoder, quiet_quantization

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)


def load_model(settings: ModelSettings, quantize: bool) -> TTSModel:
    """The model equipped (`equip`), its load logged with what it was given."""
    started = time.monotonic()
    model = plain_model(settings, quantize)
    given = equip(model)
    _LOGGER.info(
        "Loaded model %s in %.1f s (%s)",
        settings.label,
        time.monotonic() - started,
        ", ".join(given) or "no faster equivalents",
    )
    return model


def plain_model(settings: ModelSettings, quantize: bool) -> TTSModel:
    """pocket-tts's model as it loads it (int8: Mimi's decoder too), nothing given yet."""
    from pocket_tts import TTSModel  # takes seconds (torch)

    with quiet_quantization():
        if settings.config is not None:
            model = TTSModel.load_model(config=settings.config, quantize=quantize)
        else:
            model = TTSModel.load_model(language=settings.model, quantize=quantize)
        if quantize:
            quantize_mimi_decoder(model)
    return model


def equip(model: TTSModel) -> list[str]:
    """Give a loaded model the faster equivalents (the same audio); what was given, in words."""
    from .equivalents import use_equivalents  # imports torch
    from .mimi_cache import skip_mimi_cache_fill

    given = use_equivalents(model)
    if skip_mimi_cache_fill(model):
        given.append("Mimi's caches unfilled")
    return given
