"""The loudness decisions as pure functions: the gain, the limiter's curve, and PCM with and
without a gain (`--loudness off` must never reach the limiter).

The fast tests `script/mutate loudness` and `script/mutate pcm` pair with those modules; the
server-level behaviour is in test_loudness.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from wyoming_pocket_tts.audio.loudness import (
    CEILING,
    KNEE,
    MAX_GAIN_DB,
    apply_gain,
    gain_for,
    integrated_loudness,
    limit_peaks,
)
from wyoming_pocket_tts.audio.pcm import to_pcm16

RATE = 24000


def pcm(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<i2")


def test_without_a_gain_samples_above_the_knee_are_not_limited() -> None:
    loud = torch.tensor([0.9, -0.95, 0.3, 1.5, -2.0])
    assert pcm(to_pcm16(loud)).tolist() == [
        int(0.9 * 32767),
        int(-0.95 * 32767),
        int(0.3 * 32767),
        32767,
        -32767,
    ]


def test_numpy_samples_encode_like_the_same_tensor() -> None:
    """The speaking-rate changer hands numpy arrays to the same encoder."""
    samples = [0.9, -0.95, 0.3, 1.5, -2.0]
    assert to_pcm16(np.array(samples, np.float32)) == to_pcm16(torch.tensor(samples))


def test_with_a_gain_samples_are_scaled_then_limited() -> None:
    samples = torch.tensor([0.1, -0.1, 0.5])
    out = pcm(to_pcm16(samples, 2.0)) / 32767
    assert out[:2] == pytest.approx([0.2, -0.2], abs=1e-4)
    assert KNEE < out[2] < 1.0  # 1.0 bent below it
    assert out[2] == pytest.approx(float(limit_peaks(np.array([1.0], np.float32))[0]), abs=1e-4)


def test_the_limiter_passes_the_knee_and_bends_above_it_keeping_the_sign() -> None:
    samples = np.array([KNEE, -KNEE, 0.7, -0.7, 1.2, 0.0], dtype=np.float32)
    limited = limit_peaks(samples)
    assert limited.dtype == np.float32
    assert limited[0] == np.float32(KNEE) and limited[1] == -np.float32(KNEE)
    room = CEILING - KNEE
    bent = KNEE + room * math.tanh((0.7 - KNEE) / room)
    assert limited[2] == pytest.approx(bent, abs=1e-6) and limited[3] == pytest.approx(
        -bent, abs=1e-6
    )
    assert KNEE < limited[2] < 0.7
    assert 0.9 < limited[4] < CEILING and limited[5] == 0.0
    assert np.array_equal(samples[:2], np.array([KNEE, -KNEE], dtype=np.float32)), "input kept"
    quiet = np.array([0.1, -0.5], dtype=np.float32)
    assert limit_peaks(quiet) is quiet


def test_apply_gain_takes_tensors_and_arrays_alike() -> None:
    samples = np.array([0.01, -0.02, 0.03], dtype=np.float32)
    from_array = apply_gain(samples, 3.0)
    from_tensor = apply_gain(torch.from_numpy(samples.copy()), 3.0)
    assert from_array.dtype == np.float32
    assert np.array_equal(from_array, from_tensor)
    assert from_array == pytest.approx([0.03, -0.06, 0.09])


def test_gain_for_goes_towards_the_target_up_to_the_plausible_limit() -> None:
    assert gain_for(-26.0, -20.0, "quiet") == pytest.approx(10 ** (6 / 20))
    assert gain_for(-14.0, -20.0, "loud") == pytest.approx(10 ** (-6 / 20))
    assert gain_for(-20.0 - MAX_GAIN_DB, -20.0, "edge") == pytest.approx(100.0)
    assert gain_for(-20.0 + MAX_GAIN_DB, -20.0, "edge") == pytest.approx(0.01)
    assert gain_for(-20.0 - MAX_GAIN_DB - 0.1, -20.0, "too quiet") == 1.0
    assert gain_for(math.nan, -20.0, "nan") == 1.0


def test_loudness_needs_one_400_ms_block() -> None:
    tone = 0.1 * np.sin(np.arange(RATE) * 2 * np.pi * 440 / RATE)
    block = int(0.4 * RATE)
    assert integrated_loudness(tone[: block - 1], RATE) == -math.inf
    assert math.isfinite(integrated_loudness(tone[:block], RATE))
    assert integrated_loudness(tone, RATE) == pytest.approx(
        integrated_loudness(tone * 2, RATE) - 20 * math.log10(2), abs=0.1
    )
