"""The voice measure (`audio.loudness.integrated_loudness`, numpy alone) against pyloudnorm, the
measure the server used up to 0.9 and whose figures voice states keep.

pyloudnorm (and scipy under it) is a test tool only. The signals are chosen so that each part
of BS.1770 moves the figure: speech-like audio with pauses and quiet passages (both gates),
rumble below the high-pass, hiss above the shelf, lengths that cut the last block short, and
the sample rates voices come in. The server's own output is compared in
tests/server/test_loudness.py.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile

from testkit.model_factory import write_voice_wav
from wyoming_pocket_tts.audio.loudness import integrated_loudness, k_weighted

AGREEMENT = 1e-6
"""LU. Issue 62 bounds every voice's loudness at 0.1 LU from pyloudnorm's; the measure does
pyloudnorm's arithmetic (6.3e-11 LU apart at most here, 2026-12-04), so it is held far tighter,
which also catches slips the bound would let through (BS.1770's -0.691 dB offset as -0.6)."""

RATES = (8000, 16000, 22050, 24000, 44100, 48000)


def reference(samples: np.ndarray, rate: int) -> float:
    return float(pyloudnorm.Meter(rate).integrated_loudness(samples.astype(np.float64)))


def voice(folder: Path, seconds: float, rate: int, seed: int) -> np.ndarray:
    """testkit's synthetic voice prompt (harmonics, syllables, a closing pause), as floats."""
    path = write_voice_wav(
        folder / f"{seed}-{rate}.wav", seconds, sample_rate=rate, seed=seed, subtype="FLOAT"
    )
    return soundfile.read(path, dtype="float32")[0]


def signals(folder: Path, rate: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(rate)
    second = np.arange(rate) / rate
    speech = voice(folder, 3.0, rate, seed=4)
    words = np.concatenate([speech, np.zeros(rate)])
    # A phrase, an aside 14 dB down, a phrase, then four seconds of silence: the relative gate
    # leaves the aside out, and only if it is set from the blocks above the absolute gate.
    aside = np.concatenate([speech[:rate], 0.2 * speech[:rate], speech[rate:], np.zeros(4 * rate)])
    # Words over a noise floor near -77 LUFS, then a stretch of that floor alone; and whispered
    # words (near -65 LUFS) over a floor near -71.5, which only the absolute gate leaves out.
    floored = words + 1e-4 * rng.standard_normal(words.size)
    whisper = 0.003 * words + 1.8e-4 * rng.standard_normal(words.size)
    return {
        "one block": voice(folder, 0.4, rate, seed=1),
        "a cut last block": voice(folder, 0.46, rate, seed=2),
        "a voice": voice(folder, 1.0, rate, seed=3),
        "a longer voice": voice(folder, 7.3, rate, seed=5),
        "an aside": aside,
        "a noise floor": floored,
        "rumble": 0.5 * np.sin(2 * np.pi * 30 * np.tile(second, 2)),
        "hiss": 0.05 * np.diff(rng.standard_normal(2 * rate + 1)),
        "white noise, float32": (0.1 * rng.standard_normal(2 * rate)).astype(np.float32),
        "a whisper": whisper,
    }


@pytest.mark.parametrize("rate", RATES)
def test_the_measure_is_pyloudnorms(rate: int, tmp_path: Path) -> None:
    differences = {}
    for name, samples in signals(tmp_path, rate).items():
        ours, theirs = integrated_loudness(samples, rate), reference(samples, rate)
        assert math.isfinite(theirs), name
        differences[name] = abs(ours - theirs)
    assert max(differences.values()) <= AGREEMENT, differences


@pytest.mark.parametrize("rate", (16000, 24000, 48000))
def test_the_k_weighting_is_pyloudnorms_filters(rate: int) -> None:
    """The FFT filter against the two biquads run sample by sample (scipy's lfilter)."""
    samples = np.random.default_rng(0).standard_normal(2 * rate)
    expected = samples
    for stage in pyloudnorm.Meter(rate)._filters.values():
        expected = stage.apply_filter(expected)
    assert np.abs(k_weighted(samples, rate) - expected).max() < 1e-9


def test_silence_and_too_little_audio_measure_minus_infinity() -> None:
    """pyloudnorm says -inf for silence and for audio under -70 LUFS throughout; it refuses
    audio shorter than one block, which the server measures as -inf (the voice is left as it is)."""
    rate = 24000
    for samples in (np.zeros(rate), 1e-6 * np.ones(rate)):
        assert reference(samples, rate) == -math.inf
        assert integrated_loudness(samples, rate) == -math.inf
    short = 0.1 * np.random.default_rng(1).standard_normal(int(0.4 * rate) - 1)
    with pytest.raises(ValueError):
        reference(short, rate)
    assert integrated_loudness(short, rate) == -math.inf
    assert integrated_loudness(np.zeros(0, np.float32), rate) == -math.inf
