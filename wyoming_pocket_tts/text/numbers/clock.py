"""Clock times: "2:30 pm", "14h30", "14.30 Uhr", "14:30", "14:30:15"."""

from __future__ import annotations

import re

from .context import SPACE, Context, Pass, after, alternation, place


def twelve_hour(c: Context) -> Pass:
    """ "2:30 pm", "9am", "9 a.m.": said on the language's own clock."""
    ampm = r"a\.m\.|p\.m\.|a\. m\.|p\. m\.|AM|PM"
    if c.language.time.twelve_hour:
        ampm += "|am|pm|a\\.m|p\\.m"
    pattern = (
        rf"(?=[0-9])(?<![0-9:.,/])([0-9]{{1,2}})(?::([0-5][0-9]))?(?:{SPACE}({ampm})|(am|pm))"
        r"(?![\w])"
    )

    def read(match: re.Match[str]) -> str:
        written = match.group(3) or match.group(4)
        meridiem = "am" if written.lower().startswith("a") else "pm"
        words = c.words.time(int(match.group(1)), int(match.group(2) or 0), None, meridiem)
        if not words:
            return match.group()
        rest = after(match)
        if written.endswith(".") and (not rest or re.match(r"\s+[A-Z]", rest)):
            words += "."
        return place(match, words)

    return c.compile(pattern, read)


def _hour_and_minute(c: Context, match: re.Match[str]) -> str:
    hour = int(match.group(1))
    if hour > 24:
        return match.group()
    return place(match, c.words.time(hour, int(match.group(2) or 0), None, None))


def hour_letter(c: Context) -> Pass | None:
    """French "14h30", "9 h"."""
    if not c.language.hour_letter:
        return None
    pattern = r"(?=[0-9])(?<![0-9.,:/])([0-9]{1,2}) ?h ?([0-5][0-9])?(?![\w])"
    return c.compile(pattern, lambda match: _hour_and_minute(c, match))


def clock_word(c: Context) -> Pass | None:
    """ "14.30 Uhr", "9 uur": a number before the language's word for o'clock."""
    if not c.language.clock_words:
        return None
    clock = alternation(c.language.clock_words)
    pattern = rf"(?=[0-9])(?<![0-9.,:/])([0-9]{{1,2}})(?:[.:]([0-5][0-9]))?{SPACE}(?:{clock})\b"
    return c.compile(pattern, lambda match: _hour_and_minute(c, match))


def clock(c: Context) -> Pass:
    """ "14:30", "08:05:30"."""
    pattern = (
        r"(?=[0-9])(?<![0-9.,:/])([01]?[0-9]|2[0-4]):([0-5][0-9])(?::([0-5][0-9]))?"
        r"(?![0-9]|[.,:][0-9])"
    )

    def read(match: re.Match[str]) -> str:
        second = match.group(3)
        words = c.words.time(
            int(match.group(1)), int(match.group(2)), int(second) if second else None, None
        )
        return place(match, words)

    return c.compile(pattern, read)
