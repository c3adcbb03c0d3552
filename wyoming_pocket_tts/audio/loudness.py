"""Every voice at the same loudness: a gain measured once per voice, and a stateless peak limiter.

Pocket-TTS speaks about as loud as the prompt it cloned, so a household's voices play at
different volumes. Each voice is therefore measured once, when its state is made: a fixed phrase
in the model's language is synthesised and its integrated loudness measured with ITU-R BS.1770
(pyloudnorm). The voice's gain to the target is then known before its first chunk, so streaming
stays instant and the level never moves within an answer. After the gain, a per-sample soft
limiter keeps every sample below full scale; it has no memory, so quiet passages are left alone
(no pumping) and every chunk is processed the same way.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from ..languages import record

if TYPE_CHECKING:
    import torch
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

MAX_GAIN_DB = 40.0
"""A voice needing more gain (or attenuation) than this is measured wrongly, not quiet."""

CALIBRATION_MAX_SECONDS = 3.0
"""Speech measured per voice: enough for BS.1770 (400 ms blocks), and the cost of a first use
of a new voice grows with it. Also bounds weights that never emit end-of-speech."""

KNEE = 0.6
"""Samples below this magnitude (-4.4 dBFS) pass unchanged."""
CEILING = 0.99
"""Samples above the knee bend smoothly towards this magnitude and never reach it."""


def calibration_phrase(language: str) -> str:
    """The phrase a voice of `language` (`fr`, `fr-CA`) speaks to be measured."""
    return record(language).calibration


def integrated_loudness(samples: np.ndarray, sample_rate: int) -> float:
    """BS.1770 integrated loudness in LUFS (-inf for silence or less than one 400 ms block)."""
    import pyloudnorm

    data = np.asarray(samples, dtype=np.float64).reshape(-1)
    if data.size < int(0.4 * sample_rate):
        return -math.inf
    return float(pyloudnorm.Meter(sample_rate).integrated_loudness(data))


def measure_voice(model: TTSModel, state: dict, language: str, name: str) -> float:
    """Speak the calibration phrase with `state` and return its loudness (on the engine thread)."""
    started = time.monotonic()
    stop = threading.Event()
    limit = int(CALIBRATION_MAX_SECONDS * model.sample_rate)
    chunks: list[np.ndarray] = []
    samples = 0
    stream = model.generate_audio_stream(state, calibration_phrase(language), stop=stop)
    try:
        for chunk in stream:
            if samples < limit:
                chunks.append(chunk.detach().cpu().numpy().reshape(-1))
                samples += chunks[-1].size
            if samples >= limit:
                stop.set()
    finally:
        stop.set()
        for _ in stream:  # let pocket-tts's threads finish before the engine moves on
            pass
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


def gain_for(loudness: float, target: float, name: str) -> float:
    """The linear gain from a voice's measured loudness to `target`; 1.0 if it is implausible."""
    if not math.isfinite(loudness):
        _LOGGER.warning("Voice %s measured as silent: its level is left as it is", name)
        return 1.0
    gain_db = target - loudness
    if abs(gain_db) > MAX_GAIN_DB:
        _LOGGER.warning(
            "Voice %s measured at %.1f LUFS, %+.0f dB from the target: its level is left as it is",
            name,
            loudness,
            gain_db,
        )
        return 1.0
    return float(10.0 ** (gain_db / 20.0))


def limit_peaks(samples: np.ndarray) -> np.ndarray:
    """Bend magnitudes above `KNEE` smoothly towards `CEILING`, sample by sample.

    Linear below the knee; above it `knee + (ceiling - knee) * tanh(excess / (ceiling - knee))`,
    which has slope 1 at the knee (no kink) and stays below the ceiling for any input.
    """
    magnitude = np.abs(samples)
    over = magnitude > KNEE
    if not over.any():
        return samples
    room = CEILING - KNEE
    bent = KNEE + room * np.tanh((magnitude[over] - KNEE) / room)
    limited = samples.copy()
    limited[over] = np.copysign(bent, samples[over]).astype(samples.dtype, copy=False)
    return limited


def apply_gain(samples: torch.Tensor | np.ndarray, gain: float) -> np.ndarray:
    """`samples * gain` as float32, peak-limited below full scale."""
    if not isinstance(samples, np.ndarray):
        samples = samples.detach().cpu().numpy()
    scaled = np.asarray(samples, dtype=np.float32) * np.float32(gain)
    return limit_peaks(scaled)
