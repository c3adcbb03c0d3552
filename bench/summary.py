"""Medians and spreads of timed runs, as every bench section reports them."""

from __future__ import annotations

import statistics

from .sides import Run


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(name: str, values: list[float]) -> dict[str, float]:
    """`NAME_median`, `NAME_min` and `NAME_max` of `values`."""
    return {
        f"{name}_median": median(values),
        f"{name}_min": min(values),
        f"{name}_max": max(values),
    }


def summary(runs: list[Run]) -> dict[str, float]:
    """First audio and real-time factor (spreads), total time and audio length of whole runs."""
    return {
        **spread("ttfa", [r.ttfa for r in runs]),
        **spread("rtf", [r.rtf for r in runs]),
        "total_median": median([r.total for r in runs]),
        "audio_seconds": runs[0].audio_seconds,
    }
