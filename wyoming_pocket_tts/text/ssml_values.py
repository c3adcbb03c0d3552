"""What SSML's attribute values mean: `<break>` times and strengths, `<prosody rate>`.

A value this does not understand keeps what the enclosing element meant; nothing here raises.
A break is at most `MAX_SILENCE_MS` (the limit the big cloud voices use too), a rate within
the speeds the rate changer keeps natural.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..settings import MAX_SILENCE_MS, MAX_SPEED, MIN_SPEED

BREAK_STRENGTH_MS: Mapping[str, int] = {
    "none": 0,
    "x-weak": 100,
    "weak": 250,
    "medium": 400,
    "strong": 700,
    "x-strong": 1000,
}
"""`<break strength>`; a bare `<break/>` is medium."""
SENTENCE_PAUSE_MS = BREAK_STRENGTH_MS["weak"]
"""After `</s>`."""
PARAGRAPH_PAUSE_MS = BREAK_STRENGTH_MS["strong"]
"""After `</p>`."""
RATE_NAMES: Mapping[str, float] = {
    "x-slow": 0.6,
    "slow": 0.8,
    "medium": 1.0,
    "default": 1.0,
    "fast": 1.25,
    "x-fast": 1.5,
}
"""`<prosody rate>` names, as factors of the voice's own speed."""

_TIME_RE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\s*", re.IGNORECASE)
_PERCENT_RE = re.compile(r"\s*([+-]?)([0-9]+(?:\.[0-9]+)?)\s*%\s*")


def break_ms(attrib: Mapping[str, str]) -> int:
    """`time="2s"`/`"500ms"` wins over `strength`; bare: medium."""
    match = _TIME_RE.fullmatch(attrib.get("time", ""))
    if match:
        value = float(match.group(1)) * (1 if match.group(2).lower() == "ms" else 1000)
        return min(MAX_SILENCE_MS, round(value))
    strength = attrib.get("strength", "medium").strip().lower()
    return BREAK_STRENGTH_MS.get(strength, BREAK_STRENGTH_MS["medium"])


def prosody_rate(value: str | None, current: float) -> float:
    """`<prosody rate>`: a name, `150%` (of the voice's speed), `+20%` (of the enclosing rate)
    or a bare factor; anything else keeps the enclosing rate."""
    if value is None:
        return current
    value = value.strip().lower()
    if value in RATE_NAMES:
        rate = RATE_NAMES[value]
    elif match := _PERCENT_RE.fullmatch(value):
        sign, number = match.group(1), float(match.group(2)) / 100
        rate = current * (1 + number if sign == "+" else 1 - number) if sign else number
    else:
        try:
            rate = float(value)
        except ValueError:
            return current
    if not rate > 0:  # also NaN
        return current
    return round(min(MAX_SPEED, max(MIN_SPEED, rate)), 3)
