"""A voice measured once, when its state is made: a fixed phrase in its language, spoken and
measured (`audio.loudness`), gives the gain that brings it to the household's loudness."""

from __future__ import annotations

import logging
import time

import numpy as np

from ...audio.loudness import integrated_loudness
from ...languages import record
from ..runtime import Runtime, generation, samples

_LOGGER = logging.getLogger(__name__)

CALIBRATION_MAX_SECONDS = 3.0
"""Speech measured per voice: enough for BS.1770 (400 ms blocks), and the cost of a first use
of a new voice grows with it. Also bounds weights that never emit end-of-speech."""


def calibration_phrase(language: str) -> str:
    """The phrase a voice of `language` (`fr`, `fr-CA`) speaks to be measured."""
    return record(language).calibration


def measure_voice(model: Runtime, state: dict, language: str, name: str) -> float:
    """Speak the calibration phrase with `state` and return its loudness (on the engine thread)."""
    started = time.monotonic()
    limit = int(CALIBRATION_MAX_SECONDS * model.sample_rate)
    chunks: list[np.ndarray] = []
    count = 0
    with generation(model, state, calibration_phrase(language)) as stream:
        for chunk in stream:
            chunks.append(samples(chunk))
            count += chunks[-1].size
            if count >= limit:
                break
    audio = np.concatenate(chunks)[:limit] if chunks else np.zeros(0, np.float32)
    loudness = integrated_loudness(audio, model.sample_rate)
    _LOGGER.info(
        "Calibrated voice %s: %.1f LUFS over %.1f s of speech, in %.2f s",
        name,
        loudness,
        audio.size / model.sample_rate,
        time.monotonic() - started,
    )
    return loudness
