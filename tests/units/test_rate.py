"""The speaking-rate changer (audio.rate) and the silence helpers (audio.silence), on real
signals: a speech-like synthetic voice (gliding pitch, syllable envelope, noise bursts)."""

from __future__ import annotations

import numpy as np
import pytest

from wyoming_pocket_tts.audio.pcm import to_pcm16
from wyoming_pocket_tts.audio.rate import SpeedChanger, change_speed, check_speed
from wyoming_pocket_tts.audio.silence import silence, silence_samples

SR = 24000
CHUNK = 1920
"""One Pocket-TTS frame (80 ms): the size of the chunks the engine gets."""
SPEEDS = (0.5, 0.8, 1.25, 1.5, 2.0)


def speech_like(seconds: float = 3.0, seed: int = 0) -> np.ndarray:
    """Voiced syllables at 4 Hz with a pitch gliding 100-180 Hz, and unvoiced noise bursts."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(SR * seconds)) / SR
    f0 = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    voiced = sum(np.sin(k * phase) / k for k in range(1, 10))
    envelope = np.clip(np.sin(2 * np.pi * 4 * t), 0, None) ** 2
    noise = rng.normal(0, 0.05, t.size) * (np.sin(2 * np.pi * 4 * t + 2) > 0.9)
    return (0.25 * voiced * envelope + noise).astype(np.float32)


def tone(freq: float, seconds: float = 2.0) -> np.ndarray:
    """A steady voiced sound: five harmonics, not starting at a zero crossing."""
    t = np.arange(int(SR * seconds)) / SR
    return sum(0.3 / k * np.sin(2 * np.pi * freq * k * t + 0.7 * k) for k in range(1, 6)).astype(
        np.float32
    )


def f0(signal: np.ndarray) -> float:
    """The fundamental's frequency: the strongest spectral peak in 60-400 Hz of the middle
    second (Hann window, zero-padded to 0.1 Hz bins, parabolic refinement). WSOLA lines frames
    up to whole samples, so single periods jitter by up to half a sample; the pitch heard is
    their average, which the spectrum shows."""
    middle = signal[signal.size // 2 - SR // 2 : signal.size // 2 + SR // 2]
    size = SR * 10
    spectrum = np.abs(np.fft.rfft(middle * np.hanning(middle.size), size))
    low, high = 60 * size // SR, 400 * size // SR
    peak = low + int(np.argmax(spectrum[low:high]))
    a, b, c = np.log(spectrum[peak - 1 : peak + 2])
    return (peak + 0.5 * (a - c) / (a - 2 * b + c)) * SR / size


def chunked(signal: np.ndarray, speed: float, sizes: list[int]) -> list[np.ndarray]:
    """The output of each `process` call (chunk sizes cycled), then the flush."""
    changer = SpeedChanger(speed, SR)
    out, start, index = [], 0, 0
    while start < signal.size:
        size = sizes[index % len(sizes)]
        out.append(changer.process(signal[start : start + size]))
        start, index = start + size, index + 1
    out.append(changer.flush())
    return out


@pytest.mark.parametrize("speed", SPEEDS)
def test_duration_follows_the_factor(speed: float) -> None:
    signal = speech_like()
    out = change_speed(signal, speed, SR)
    assert signal.size / out.size == pytest.approx(speed, rel=0.01)


@pytest.mark.parametrize("speed", SPEEDS)
@pytest.mark.parametrize("freq", [95.0, 120.0, 210.0])
def test_pitch_is_kept(speed: float, freq: float) -> None:
    signal = tone(freq)
    assert f0(signal) == pytest.approx(freq, rel=0.001)
    assert f0(change_speed(signal, speed, SR)) == pytest.approx(freq, rel=0.005)


@pytest.mark.parametrize("speed", SPEEDS)
@pytest.mark.parametrize("sizes", [[CHUNK], [1, 7, 333, 4000], [479, 481, 2]])
def test_chunk_by_chunk_equals_whole_signal(speed: float, sizes: list[int]) -> None:
    signal = speech_like(seed=1)
    whole = change_speed(signal, speed, SR)
    pieces = np.concatenate(chunked(signal, speed, sizes))
    assert pieces.shape == whole.shape
    # Derived: the same float32 arithmetic on the same samples, cut elsewhere (numpy, not
    # torch: no int8, no kernel choice): a rounding or two of float32 (3e-8 at this level);
    # 1e-6 is a 30th of one 16-bit step.
    np.testing.assert_allclose(pieces, whole, atol=1e-6)


@pytest.mark.parametrize("speed", SPEEDS)
def test_no_click_at_chunk_joins(speed: float) -> None:
    """The largest sample step anywhere (joins included) stays that of the input."""
    signal = tone(137.0, 3.0)
    out = chunked(signal, speed, [CHUNK])
    joined = np.concatenate(out)
    limit = 1.05 * np.abs(np.diff(signal)).max()
    assert np.abs(np.diff(joined)).max() <= limit
    ends = np.cumsum([piece.size for piece in out])[:-1]
    steps = [abs(joined[end] - joined[end - 1]) for end in ends if 0 < end < joined.size]
    assert steps and max(steps) <= limit


def look_ahead(speed: float) -> int:
    """Input samples the module's docstring lets it hold back: a frame and the search range
    (27.5 ms), and below speed 1.0 the part of a 10 ms hop the frames fall behind."""
    return round((27.5 + max(0.0, 10 * (1 - speed))) / 1000 * SR)


@pytest.mark.parametrize("chunk", [CHUNK, 97])
@pytest.mark.parametrize("speed", SPEEDS)
def test_first_output_waits_for_a_bounded_look_ahead(speed: float, chunk: int) -> None:
    """Of the first chunk, all but the look-ahead comes out at once, and no later chunk holds
    back more (a frame and the search range: 27.5-32.5 ms). In the engine's 80 ms chunks; in
    97-sample ones the held-back audio reaches the bound within a sample or two."""
    lookahead = look_ahead(speed)
    assert lookahead <= round(0.0325 * SR)
    changer = SpeedChanger(speed, SR)
    signal = speech_like()
    received = emitted = 0
    for start in range(0, signal.size, chunk):
        piece = signal[start : start + chunk]
        emitted += changer.process(piece).size
        received += piece.size
        held = received - emitted * speed
        assert held <= lookahead + 1, (start, held)
        if start == 0:
            assert emitted >= (chunk - lookahead) / speed - 1


def test_speed_one_passes_samples_through() -> None:
    signal = speech_like()
    changer = SpeedChanger(1.0, SR)
    first = changer.process(signal[:CHUNK])
    np.testing.assert_array_equal(first, signal[:CHUNK])
    assert changer.flush().size == 0


@pytest.mark.parametrize("speed", [0.49, 2.01, float("nan"), -1.0])
def test_out_of_range_speeds_are_refused(speed: float) -> None:
    with pytest.raises(ValueError, match=r"between 0\.5 and 2\.0"):
        check_speed(speed)
    with pytest.raises(ValueError):
        SpeedChanger(speed)


def test_short_and_empty_inputs() -> None:
    assert change_speed(np.zeros(0, np.float32), 1.5, SR).size == 0
    assert change_speed(np.ones(10, np.float32), 0.5, SR).size == 20
    changer = SpeedChanger(1.25, SR)
    changer.flush()
    assert changer.flush().size == 0
    with pytest.raises(RuntimeError):
        changer.process(np.zeros(4, np.float32))


# Silence


def test_silence_is_zero_pcm_of_the_asked_length() -> None:
    assert silence_samples(250) == 6000
    assert silence(250) == bytes(12000)
    assert silence(0) == b"" and silence(-5) == b"" and silence(float("nan")) == b""
    assert len(silence(60_000)) == 2 * SR * 10  # capped at 10 s


def test_rate_output_encodes_to_pcm_like_a_tensor() -> None:
    """The changer's numpy output goes to PCM as pocket-tts's tensors do, gain or not."""
    import torch

    out = change_speed(speech_like(0.5), 1.25, SR)
    assert to_pcm16(out) == to_pcm16(torch.from_numpy(out))
    assert to_pcm16(out, 2.0) == to_pcm16(torch.from_numpy(out), 2.0)
    assert to_pcm16(np.array([0.5, -2.0], np.float32)) == np.array([16383, -32767], "<i2").tobytes()
