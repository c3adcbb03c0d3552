"""Compare time-scale methods for the speaking rate (issue 25); not part of `script/bench`.

Run in a scratch venv that has the candidates (they are not dependencies):
`pip install numpy scipy audiotsm pytsmod librosa pylibrb` then
`python bench/rate_methods.py SPEECH.wav...` (e.g. espeak-ng output). Printed per method and speed:
duration ratio, log-spectral distance (dB) between the output's spectrogram and the input's
spectrogram warped in time by the factor (0 = a perfect stretch), f0 drift on a voiced synthetic
signal, the largest sample step relative to the input's, and CPU ms per second of input audio
(process time, methods interleaved, median of rounds).
"""

from __future__ import annotations

import statistics
import sys
import time
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly, stft

SR = 24000
SPEEDS = (0.5, 0.75, 1.25, 1.5, 2.0)


def _ours() -> Callable[[np.ndarray, float], np.ndarray]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from wyoming_pocket_tts.audio.rate import change_speed

    return lambda x, speed: change_speed(x, speed, SR)


def _audiotsm(kind: str) -> Callable[[np.ndarray, float], np.ndarray]:
    import audiotsm
    from audiotsm.io.array import ArrayReader, ArrayWriter

    def run(x: np.ndarray, speed: float) -> np.ndarray:
        tsm = getattr(audiotsm, kind)(1, speed=speed)
        writer = ArrayWriter(1)
        tsm.run(ArrayReader(x[None, :].astype(np.float64)), writer)
        return writer.data[0].astype(np.float32)

    return run


def _pytsmod(kind: str) -> Callable[[np.ndarray, float], np.ndarray]:
    import pytsmod

    return lambda x, speed: np.asarray(getattr(pytsmod, kind)(x.astype(np.float64), 1 / speed))


def _librosa(x: np.ndarray, speed: float) -> np.ndarray:
    import librosa

    return librosa.effects.time_stretch(x, rate=speed)


def _rubberband(x: np.ndarray, speed: float) -> np.ndarray:
    from pylibrb import Option, RubberBandStretcher

    stretcher = RubberBandStretcher(
        sample_rate=SR,
        channels=1,
        options=Option.PROCESS_OFFLINE | Option.ENGINE_FINER,
        initial_time_ratio=1 / speed,
    )
    audio = x[None, :].astype(np.float32)
    stretcher.set_expected_input_duration(audio.shape[1])
    stretcher.study(audio, final=True)
    stretcher.process(audio, final=True)
    return stretcher.retrieve_available()[0]


def _spectrogram_db(x: np.ndarray) -> np.ndarray:
    _, _, z = stft(x, SR, nperseg=512, noverlap=384)
    return 20 * np.log10(np.abs(z) + 1e-5)


def log_spectral_distance(x: np.ndarray, y: np.ndarray, speed: float) -> float:
    """RMS dB distance over speech frames between y's spectrogram and x's warped by `speed`."""
    sx, sy = _spectrogram_db(x), _spectrogram_db(y)
    frames = min(sy.shape[1], int((sx.shape[1] - 1) / speed))
    positions = np.arange(frames) * speed
    low = np.floor(positions).astype(int)
    high = np.minimum(low + 1, sx.shape[1] - 1)
    weight = positions - low
    warped = sx[:, low] * (1 - weight) + sx[:, high] * weight
    loud = warped.max(axis=0) > warped.max() - 40
    diff = np.maximum(warped[:, loud], -60) - np.maximum(sy[:, :frames][:, loud], -60)
    return float(np.sqrt((diff**2).mean(axis=0)).mean())


def f0(x: np.ndarray) -> float:
    """Autocorrelation pitch of a steady voiced signal (60-400 Hz)."""
    x = x[len(x) // 4 : 3 * len(x) // 4]
    ac = np.correlate(x[:4800], x[:9600], mode="valid")[: SR // 60]
    lag = SR // 400 + int(np.argmax(ac[SR // 400 :]))
    return SR / lag


def voiced(seconds: float = 2.0, freq: float = 120.0) -> np.ndarray:
    t = np.arange(int(SR * seconds)) / SR
    waves = (0.3 / k * np.sin(2 * np.pi * freq * k * t) for k in range(1, 8))
    return sum(waves, np.zeros_like(t)).astype(np.float32)


def load(path: str) -> np.ndarray:
    with wave.open(path) as w:
        data = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
        rate = w.getframerate()
    return resample_poly(data, SR, rate).astype(np.float32) if rate != SR else data


def main(paths: list[str]) -> None:
    speech = [load(path) for path in paths]
    methods: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {"ours (numpy WSOLA)": _ours()}
    for name, factory in (
        ("audiotsm wsola", lambda: _audiotsm("wsola")),
        ("audiotsm phasevocoder", lambda: _audiotsm("phasevocoder")),
        ("pytsmod wsola", lambda: _pytsmod("wsola")),
        ("pytsmod hptsm", lambda: _pytsmod("hptsm")),
        ("librosa phase vocoder", lambda: _librosa),
        ("rubberband (pylibrb)", lambda: _rubberband),
    ):
        try:
            method = factory()
            method(voiced(0.5), 1.25)
            methods[name] = method
        except Exception as error:  # a candidate that cannot run here is reported, not fatal
            print(f"{name}: skipped ({error!r})")
    seconds = sum(len(x) for x in speech) / SR
    cpu: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(3):  # interleaved rounds
        for name, method in methods.items():
            start = time.process_time()
            for x in speech:
                method(x, 1.25)
            cpu[name].append((time.process_time() - start) / seconds * 1000)
    tone = voiced()
    print(f"speech: {seconds:.1f} s in {len(speech)} files; f0 of the tone {f0(tone):.1f} Hz")
    print("method | speed | duration ratio | LSD dB | f0 Hz | max step ratio")
    for name, method in methods.items():
        for speed in SPEEDS:
            outs = [method(x, speed) for x in speech]
            ratio = sum(len(x) for x in speech) / sum(len(y) for y in outs)
            lsd = statistics.mean(
                log_spectral_distance(x, y, speed) for x, y in zip(speech, outs, strict=True)
            )
            step = max(
                np.abs(np.diff(y)).max() / np.abs(np.diff(x)).max()
                for x, y in zip(speech, outs, strict=True)
            )
            print(
                f"{name} | {speed} | {ratio:.3f} | {lsd:.2f} | {f0(method(tone, speed)):.1f} "
                f"| {step:.2f}"
            )
    for name, values in cpu.items():
        print(f"{name}: CPU {statistics.median(values):.1f} ms per second of audio at 1.25")


if __name__ == "__main__":
    main(sys.argv[1:])
