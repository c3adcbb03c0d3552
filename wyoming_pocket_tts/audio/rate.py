"""Speaking rate: a streaming WSOLA time-scale changer that keeps the pitch.

Pocket-TTS has no rate control, so speed is changed on its audio. WSOLA (waveform-similarity
overlap-add) cuts the input into 20 ms Hann frames taken every `speed * 10 ms` and lays them
every 10 ms; each frame is moved by up to ±7.5 ms to the place whose waveform best continues
the previous one (cross-correlation), so glottal periods line up and no phase is smeared.
It is the method of choice for speech (the phase vocoder sounds "phasy" on voices) and costs a
few ms of CPU per second of audio in numpy (see the README's measurements).

Streaming: `process` takes chunks of any size and returns the output that is final; `flush`
returns the rest. A frame is laid only once all the input it may look at has arrived, so the
output does not depend on how the input was chunked (it equals the whole-signal output), and
frames overlap-add across chunk joins, so joins cannot click. The look-ahead is a frame and the
search range (27.5 ms of input), and below speed 1.0 the hop the frames fall behind (up to
32.5 ms at half speed): of a first 80 ms chunk, all but that much is returned at once. Speed 1.0
passes samples through untouched.
"""

from __future__ import annotations

import numpy as np

from ..settings import MAX_SPEED, MIN_SPEED

FRAME_MS = 20.0
"""Frame length: two periods of a low male voice (100 Hz), short enough to follow syllables."""
DECIMATION = 4
"""The search first compares every 4th sample (6 kHz: where a voice's energy is), then refines."""
TOLERANCE_MS = 7.5
"""How far a frame may move to line up: more than half the longest glottal period (~70 Hz)."""


def check_speed(speed: float) -> float:
    """`speed` as a float, or ValueError naming the allowed range."""
    value = float(speed)
    if not MIN_SPEED <= value <= MAX_SPEED:  # also rejects NaN
        raise ValueError(f"speed must be between {MIN_SPEED} and {MAX_SPEED}, got {speed}")
    return value


class SpeedChanger:
    """Change the speed of a mono float stream by `speed` (2.0: twice as fast), keeping pitch.

    One instance per stretch of audio at one speed (a request, or a sentence with its own rate);
    not thread-safe: call it from the thread that owns the audio (the engine thread).
    """

    def __init__(self, speed: float, sample_rate: int = 24000) -> None:
        self.speed = check_speed(speed)
        self._frame = max(4, round(sample_rate * FRAME_MS / 1000) // 2 * 2)
        self._hop = self._frame // 2
        self._tolerance = round(sample_rate * TOLERANCE_MS / 1000)
        self._window = np.hanning(self._frame + 1)[:-1].astype(np.float32)  # sums to 1 at 50%
        self._first_window = self._window.copy()
        self._first_window[: self._hop] = 1.0  # the very start is not faded in
        self._buffer = np.zeros(0, dtype=np.float32)
        self._buffer_start = 0  # absolute input index of _buffer[0]
        self._received = 0
        self._frames = 0  # frames laid so far
        self._previous = 0  # absolute input position of the last frame laid
        self._pending = np.zeros(self._frame, dtype=np.float32)  # output not yet final
        self._emitted = 0
        self._flushed = False

    @property
    def passthrough(self) -> bool:
        """Speed 1.0: samples are returned as given, with no delay."""
        return self.speed == 1.0

    def process(self, samples: np.ndarray) -> np.ndarray:
        """Add input samples; return the output samples that are now final (maybe none)."""
        if self._flushed:
            raise RuntimeError("SpeedChanger already flushed")
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        self._received += samples.size
        if self.passthrough:
            return samples.copy()
        self._buffer = np.concatenate((self._buffer, samples))
        return self._lay_frames(final=False)

    def flush(self) -> np.ndarray:
        """End of input: return the rest, so the total output is `round(input / speed)` long."""
        if self._flushed:
            return np.zeros(0, dtype=np.float32)
        self._flushed = True
        if self.passthrough:
            return np.zeros(0, dtype=np.float32)
        total = round(self._received / self.speed)
        before = self._emitted
        rest = self._lay_frames(final=True, until=total)
        return rest[: max(0, total - before)]

    def _nominal(self, frame: int) -> int:
        return round(frame * self._hop * self.speed)

    def _lay_frames(self, final: bool, until: int | None = None) -> np.ndarray:
        out: list[np.ndarray] = []
        while until is None or self._emitted < until:
            frame = self._frames
            nominal = self._nominal(frame)
            if frame == 0:
                position, need = 0, self._frame
            else:
                natural = self._previous + self._hop
                low = max(0, nominal - self._tolerance)
                high = nominal + self._tolerance
                need = max(high, natural) + self._frame
                position = -1
            available = self._buffer_start + self._buffer.size
            if need > available:
                if not final:
                    break
                self._buffer = np.concatenate(
                    (self._buffer, np.zeros(need - available, dtype=np.float32))
                )
            if frame > 0:
                if final:  # frames stay within the real input: no cut into the padding
                    last = max(0, self._received - self._frame)
                    high = min(high, last)
                    low = min(low, high)
                    natural = min(natural, last)
                position = low + self._best_lag(
                    self._slice(low, high - low + self._frame), self._slice(natural, self._frame)
                )
            window = self._first_window if frame == 0 else self._window
            self._pending += self._slice(position, self._frame) * window
            out.append(self._pending[: self._hop].copy())
            self._pending = np.concatenate(
                (self._pending[self._hop :], np.zeros(self._hop, dtype=np.float32))
            )
            self._emitted += self._hop
            self._previous = position
            self._frames += 1
            self._drop_used()
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    @staticmethod
    def _best_lag(region: np.ndarray, template: np.ndarray) -> int:
        """Offset in `region` where `template` correlates best: a search on every 4th sample,
        then at full rate around its winner (a tenth of the cost of a full search)."""
        coarse = np.correlate(region[::DECIMATION], template[::DECIMATION], mode="valid")
        centre = DECIMATION * int(np.argmax(coarse))
        start = max(0, centre - DECIMATION + 1)
        stop = min(region.size - template.size, centre + DECIMATION - 1)
        fine = np.correlate(region[start : stop + template.size], template, mode="valid")
        return start + int(np.argmax(fine))

    def _slice(self, start: int, length: int) -> np.ndarray:
        offset = start - self._buffer_start
        return self._buffer[offset : offset + length]

    def _drop_used(self) -> None:
        """Forget input no later frame can look at."""
        keep_from = min(
            self._previous + self._hop,
            self._nominal(self._frames) - self._tolerance,
            self._received - self._frame,  # the last whole frame, where the flush may reach
        )
        drop = keep_from - self._buffer_start
        if drop > 0:
            self._buffer = self._buffer[drop:]
            self._buffer_start += drop


def change_speed(samples: np.ndarray, speed: float, sample_rate: int = 24000) -> np.ndarray:
    """The whole-signal form: `samples` at `speed` (the same output as chunk by chunk)."""
    changer = SpeedChanger(speed, sample_rate)
    return np.concatenate((changer.process(samples), changer.flush()))
