"""Every voice at the same loudness: a gain measured once per voice, and a stateless peak limiter.

Pocket-TTS speaks about as loud as the prompt it cloned, so a household's voices play at
different volumes. Each voice is therefore measured once, when its state is made
(`engine/voice_states/calibration.py` speaks a fixed phrase), its integrated loudness measured
here with ITU-R BS.1770 (pyloudnorm). The voice's gain to the target is then known before its
first chunk, so streaming stays instant and the level never moves within an answer. After the
gain, a per-sample soft limiter keeps every sample below full scale; it has no memory, so quiet
passages are left alone (no pumping) and every chunk is processed the same way.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

_LOGGER = logging.getLogger(__name__)

MAX_GAIN_DB = 40.0
"""A voice needing more gain (or attenuation) than this is measured wrongly, not quiet."""

KNEE = 0.6
"""Samples below this magnitude (-4.4 dBFS) pass unchanged."""
CEILING = 0.99
"""Samples above the knee bend smoothly towards this magnitude and never reach it."""


def integrated_loudness(samples: np.ndarray, sample_rate: int) -> float:
    """BS.1770 integrated loudness in LUFS (-inf for silence or less than one 400 ms block)."""
    import pyloudnorm

    data = np.asarray(samples, dtype=np.float64).reshape(-1)
    if data.size < int(0.4 * sample_rate):
        return -math.inf
    return float(pyloudnorm.Meter(sample_rate).integrated_loudness(data))


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
