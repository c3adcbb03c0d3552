"""Every voice at the same loudness: a gain measured once per voice, and a stateless peak limiter.

Pocket-TTS speaks about as loud as the prompt it cloned, so a household's voices play at
different volumes. Each voice is therefore measured once, when its state is made
(`engine/voice_states/calibration.py` speaks a fixed phrase), its integrated loudness measured
here with ITU-R BS.1770-4, in numpy alone. The voice's gain to the target is then known before
its first chunk, so streaming stays instant and the level never moves within an answer. After the
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

BLOCK_SECONDS = 0.4
"""BS.1770's gating block; blocks start every `BLOCK_SECONDS * BLOCK_STEP` (75% overlap)."""
BLOCK_STEP = 0.25
ABSOLUTE_GATE_LUFS = -70.0
"""Blocks quieter than this are silence, left out of the measure."""
RELATIVE_GATE_LU = -10.0
"""Then blocks this far below the loudness of the blocks left are left out too (pauses)."""
SHELF_HZ, SHELF_GAIN_DB, SHELF_Q = 1500.0, 4.0, 1 / math.sqrt(2)
"""K-weighting's first stage, the head's acoustic effect: a high shelf."""
HIGH_PASS_HZ, HIGH_PASS_Q = 38.0, 0.5
"""K-weighting's second stage, the RLB curve: a high-pass."""


def integrated_loudness(samples: np.ndarray, sample_rate: int) -> float:
    """BS.1770-4 integrated loudness in LUFS (-inf for silence or less than one 400 ms block).

    The same measure as pyloudnorm 0.2's `Meter(rate).integrated_loudness`, the server's up to
    0.9 (voices measured then keep their stored figures): its K-weighting biquads, its 400 ms
    blocks every 100 ms (the last may be cut short by the end), the -70 LUFS absolute and -10 LU
    relative gates. Mono: the samples are read as one channel.
    """
    data = np.asarray(samples, dtype=np.float64).reshape(-1)
    block = BLOCK_SECONDS * sample_rate
    if data.size < int(block):
        return -math.inf
    weighted = k_weighted(data, sample_rate)
    hop = BLOCK_SECONDS * BLOCK_STEP
    count = int(np.round((data.size / sample_rate - BLOCK_SECONDS) / hop)) + 1
    starts = np.arange(count) * BLOCK_STEP
    lower = (BLOCK_SECONDS * starts * sample_rate).astype(np.int64)
    upper = (BLOCK_SECONDS * (starts + 1) * sample_rate).astype(np.int64)
    squares = [np.sum(np.square(weighted[lo:up])) for lo, up in zip(lower, upper, strict=True)]
    power = np.array(squares) / block
    with np.errstate(divide="ignore"):
        levels = _lufs(power)
    audible = power[levels >= ABSOLUTE_GATE_LUFS]
    if audible.size == 0:
        return -math.inf
    relative_gate = _lufs(audible.mean()) + RELATIVE_GATE_LU
    gated = power[(levels > relative_gate) & (levels > ABSOLUTE_GATE_LUFS)]
    return float(_lufs(gated.mean())) if gated.size else -math.inf


def k_weighted(data: np.ndarray, sample_rate: int) -> np.ndarray:
    """`data` through BS.1770's K-weighting: a +4 dB high shelf at 1500 Hz, then a 38 Hz
    high-pass (RBJ cookbook biquads, as pyloudnorm designs them).

    Applied in the frequency domain, without a Python loop over samples: both biquads'
    response at every bin of an FFT padded with at least a second of silence. The slowest pole
    (the high-pass's) falls by e^-238 in a second at any rate, so the filters' tails have died
    out before they wrap round onto the signal: the output is `scipy.signal.lfilter`'s, run
    sample by sample, to rounding (1e-13 on 3 s of noise at 8 to 48 kHz).
    """
    size = 1 << (data.size + sample_rate - 1).bit_length()
    spectrum = np.fft.rfft(data, size)
    z_inv = np.exp(-2j * np.pi * np.arange(spectrum.size) / size)
    for b, a in _k_weighting_biquads(sample_rate):
        spectrum *= np.polyval(b[::-1], z_inv) / np.polyval(a[::-1], z_inv)
    return np.fft.irfft(spectrum, size)[: data.size]


def _k_weighting_biquads(sample_rate: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (b, a) coefficients of the high shelf and the high-pass, in that order."""
    shelf_gain = 10.0 ** (SHELF_GAIN_DB / 40.0)
    root = math.sqrt(shelf_gain)
    w0 = 2.0 * math.pi * SHELF_HZ / sample_rate
    cos, alpha = math.cos(w0), math.sin(w0) / (2.0 * SHELF_Q)
    shelf_b = shelf_gain * np.array(
        [
            (shelf_gain + 1) + (shelf_gain - 1) * cos + 2 * root * alpha,
            -2 * ((shelf_gain - 1) + (shelf_gain + 1) * cos),
            (shelf_gain + 1) + (shelf_gain - 1) * cos - 2 * root * alpha,
        ]
    )
    shelf_a = np.array(
        [
            (shelf_gain + 1) - (shelf_gain - 1) * cos + 2 * root * alpha,
            2 * ((shelf_gain - 1) - (shelf_gain + 1) * cos),
            (shelf_gain + 1) - (shelf_gain - 1) * cos - 2 * root * alpha,
        ]
    )
    w0 = 2.0 * math.pi * HIGH_PASS_HZ / sample_rate
    cos, alpha = math.cos(w0), math.sin(w0) / (2.0 * HIGH_PASS_Q)
    pass_b = np.array([(1 + cos) / 2, -(1 + cos), (1 + cos) / 2])
    pass_a = np.array([1 + alpha, -2 * cos, 1 - alpha])
    return [(shelf_b, shelf_a), (pass_b, pass_a)]


def _lufs(power: np.ndarray | float) -> np.ndarray:
    """Loudness of a K-weighted mean square (BS.1770's equation 2, one channel)."""
    return -0.691 + 10.0 * np.log10(power)


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
