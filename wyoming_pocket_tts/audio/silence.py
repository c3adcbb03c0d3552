"""Digital silence as PCM: the reply shaper (`audio.shaping`) puts it before a reply's first
audio (the lead-in), between sentences and for SSML breaks."""

from __future__ import annotations

from ..settings import CHANNELS, MAX_SILENCE_MS, SAMPLE_RATE, SAMPLE_WIDTH


def silence_samples(ms: float, sample_rate: int = SAMPLE_RATE) -> int:
    """Samples in `ms` milliseconds (rounded; negative or NaN gives 0; capped)."""
    if not ms > 0:
        return 0
    return round(min(ms, MAX_SILENCE_MS) * sample_rate / 1000)


def silence(
    ms: float,
    sample_rate: int = SAMPLE_RATE,
    sample_width: int = SAMPLE_WIDTH,
    channels: int = CHANNELS,
) -> bytes:
    """`ms` of digital silence as signed PCM (all zero bytes)."""
    return bytes(silence_samples(ms, sample_rate) * sample_width * channels)
