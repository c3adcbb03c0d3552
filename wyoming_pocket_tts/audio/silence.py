"""Digital silence the engine inserts: a lead-in before the first chunk, pauses between
sentences and SSML breaks.

Pure functions on PCM: the engine prepends `lead_in` to the first chunk's bytes (so players that
wake late do not clip the first syllable, with no extra event or round trip) and sends
`silence` between sentences or for a `<break>`.
"""

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


def lead_in(first_chunk: bytes, ms: float, sample_rate: int = SAMPLE_RATE) -> bytes:
    """The first chunk with `ms` of silence before it (unchanged when `ms` is 0)."""
    return silence(ms, sample_rate) + first_chunk if ms > 0 else first_chunk


def pause_between(previous_sentences: int, ms: float, sample_rate: int = SAMPLE_RATE) -> bytes:
    """The silence due before a sentence: `ms` after every sentence but none before the first."""
    return silence(ms, sample_rate) if previous_sentences > 0 else b""
