"""Is a recording a good voice prompt? Decode it, measure it, suggest where to trim it.

A good prompt is 10 to 20 s of one clean speaker: loud enough, not clipped, little background
noise. The figures are what the voice studio shows before a voice is saved; a sample that is not
audio, too long or nearly silent is refused.
"""

from __future__ import annotations

import io
import logging
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..errors import NO_AUDIO, NOT_AUDIO, TOO_LARGE, TOO_LONG

_LOGGER = logging.getLogger(__name__)

MAX_BYTES = 16 * 1024 * 1024
"""Largest upload accepted (a 60 s stereo 48 kHz WAV is 11 MB)."""
MAX_SECONDS = 60.0
"""Longest sample accepted; a prompt only needs 10 to 20 s."""
MIN_SECONDS = 2.0
"""Shortest sample (after trimming) saved as a voice."""
MAX_PROMPT_SECONDS = 30.0
"""The most of a prompt a voice uses (the server cuts prompts there): a longer one is trimmed."""
GOOD_SECONDS = (10.0, 20.0)
_FRAME_SECONDS = 0.05
_CLIP_LEVEL = 0.999
_SPEECH_MARGIN_DB = 12.0
"""A frame louder than the noise floor by this much counts as speech (for trimming)."""


class SampleRefused(ValueError):
    """The upload is not a usable sample; the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Check:
    """One figure with its verdict (`good`, `warn` or `bad`) and what to do about it."""

    name: str
    value: float
    unit: str
    verdict: str
    advice: str


@dataclass
class SampleReport:
    """What the studio shows about a sample."""

    seconds: float
    sample_rate: int
    channels: int
    trim_start: float
    """Suggested start (s): the first speech, less a little lead-in."""
    trim_end: float
    checks: list[Check] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return all(check.verdict != "bad" for check in self.checks)

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "usable": self.usable}


def decode(data: bytes) -> tuple[np.ndarray, int, int]:
    """Mono float32 samples, sample rate and channel count of an audio file's bytes."""
    import soundfile

    if len(data) > MAX_BYTES:
        raise SampleRefused(TOO_LARGE, f"The file is over {MAX_BYTES // 2**20} MB")
    try:
        with soundfile.SoundFile(io.BytesIO(data)) as file:
            if file.frames > MAX_SECONDS * file.samplerate:
                raise SampleRefused(
                    TOO_LONG,
                    f"The sample is {file.frames / file.samplerate:.0f} s long; "
                    f"the limit is {MAX_SECONDS:.0f} s: trim it first",
                )
            audio = file.read(dtype="float32", always_2d=True)
            rate, channels = file.samplerate, file.channels
    except SampleRefused:
        raise
    except Exception as error:  # whatever libsndfile cannot read is not audio to us
        # libsndfile's text names a Python object: the page gets the plain reason.
        _LOGGER.debug("Sample refused: %s", error)
        raise SampleRefused(
            NOT_AUDIO, "Not an audio file this server can read (wav, mp3, flac, ogg)"
        ) from None
    if audio.shape[0] == 0:
        raise SampleRefused(NO_AUDIO, "The file holds no audio")
    return audio.mean(axis=1), rate, channels


def trim(audio: np.ndarray, rate: int, start: float, end: float) -> np.ndarray:
    """The part of `audio` between `start` and `end` seconds (clamped to the sample)."""
    first = max(0, round(start * rate))
    last = min(audio.shape[0], round(end * rate)) if end > 0 else audio.shape[0]
    return audio[first:last]


def check(audio: np.ndarray, rate: int, channels: int = 1) -> SampleReport:
    """Length, level, clipping and background noise of a mono sample, with a trim suggestion."""
    seconds = audio.shape[0] / rate
    frame = max(1, int(rate * _FRAME_SECONDS))
    count = max(1, audio.shape[0] // frame)
    frames = audio[: count * frame].reshape(count, -1) if audio.shape[0] >= frame else audio[None]
    rms = np.sqrt(np.mean(np.square(frames, dtype=np.float64), axis=1))
    levels = 20 * np.log10(np.maximum(rms, 1e-6))
    speech = float(np.percentile(levels, 90))
    noise = float(np.percentile(levels, 10))
    clipped = float(np.mean(np.abs(audio) >= _CLIP_LEVEL)) * 100 if audio.size else 0.0
    loud = np.nonzero(levels > noise + _SPEECH_MARGIN_DB)[0]
    if loud.size:
        trim_start = max(0.0, loud[0] * _FRAME_SECONDS - 0.2)
        trim_end = min(seconds, (loud[-1] + 1) * _FRAME_SECONDS + 0.3)
    else:
        trim_start, trim_end = 0.0, seconds
    report = SampleReport(
        round(seconds, 2), rate, channels, round(trim_start, 2), round(trim_end, 2)
    )
    report.checks = [
        _length(seconds),
        _level(speech),
        _clipping(clipped),
        _noise(noise, speech),
    ]
    return report


def _length(seconds: float) -> Check:
    low, high = GOOD_SECONDS
    if seconds < MIN_SECONDS:
        return Check("length", seconds, "s", "bad", f"Too short: record {low:.0f} to {high:.0f} s")
    if seconds < low:
        return Check("length", seconds, "s", "warn", f"Short: {low:.0f} to {high:.0f} s is best")
    if seconds > MAX_PROMPT_SECONDS:
        return Check("length", seconds, "s", "bad", "Too long: a voice uses 30 s at most: trim it")
    if seconds > high:
        return Check("length", seconds, "s", "warn", "Long: trim it to the best 10 to 20 s")
    return Check("length", seconds, "s", "good", "A good length")


def _level(speech_db: float) -> Check:
    value = round(speech_db, 1)
    if speech_db < -50:
        return Check("level", value, "dBFS", "bad", "Nearly silent: check the microphone")
    if speech_db < -35:
        return Check("level", value, "dBFS", "warn", "Quiet: speak closer to the microphone")
    return Check("level", value, "dBFS", "good", "A good level")


def _clipping(percent: float) -> Check:
    value = round(percent, 3)
    if percent > 1.0:
        return Check("clipping", value, "%", "bad", "Heavily clipped: record with less gain")
    if percent > 0.01:
        return Check("clipping", value, "%", "warn", "Some clipping: record with less gain")
    return Check("clipping", value, "%", "good", "No clipping")


def _noise(noise_db: float, speech_db: float) -> Check:
    margin = speech_db - noise_db
    value = round(noise_db, 1)
    if margin < 10:
        return Check("noise", value, "dBFS", "warn", "Noisy or no pauses: record somewhere quiet")
    if margin < 20:
        return Check("noise", value, "dBFS", "warn", "Some background noise")
    return Check("noise", value, "dBFS", "good", "Quiet background")
