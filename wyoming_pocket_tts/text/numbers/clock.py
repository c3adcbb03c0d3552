"""Clock times: "2:30 pm", "14h30", "14.30 Uhr", "14:30", "14:30:15"."""

from __future__ import annotations

import re

from .amounts import mixed
from .context import CONTEXT, DASHES, SPACE, Context, Pass, after, alternation, place
from .words import Number


def special_after(c: Context) -> Pass | None:
    """Spanish "a las 12:00" -> "al mediodía", Italian "alle 00:00" -> "a mezzanotte",
    Portuguese "às 12h" -> "ao meio-dia": noon and midnight agree with the words before them."""
    cues = c.language.time.special_after
    if not cues:
        return None
    firsts = "".join(sorted({char for cue in cues for char in (cue[0], cue[0].upper())}))
    pattern = (
        rf"(?=[{firsts}])(?i:\b({alternation(cues)}))[ \u00a0]+"
        r"(0?0|12|24)(?:[:.h]00|h)(?![0-9]|[:.,][0-9]| ?[ap]\.?m\b)"
    )

    def read(match: re.Match[str]) -> str:
        cue, hour = match.group(1), int(match.group(2))
        spoken = cues[cue.lower()].get(f"{hour % 24:02}:00")
        if spoken is None:
            return match.group()
        return place(match, spoken[0].upper() + spoken[1:] if cue[0].isupper() else spoken)

    return c.compile(pattern, read)


_AMPM = r"a\.m\.|p\.m\.|a\. m\.|p\. m\.|AM|PM"


def _ampm(c: Context) -> str:
    return _AMPM + ("|am|pm|a\\.m|p\\.m" if c.language.time.twelve_hour else "")


def _twelve_hour_words(c: Context, hour: str, minute: str | None, written: str) -> str:
    meridiem = "am" if written.lower().startswith("a") else "pm"
    return c.words.time(int(hour), int(minute or 0), None, meridiem)


def _keep_stop(match: re.Match[str], written: str, words: str) -> str:
    """ "1 a.m. Then": the full stop of "a.m." also ended the sentence."""
    rest = after(match)
    if written.endswith(".") and (not rest or re.match(r"\s+[A-Z]", rest)):
        words += "."
    return words


def twelve_hour_range(c: Context) -> Pass:
    """ "11 PM-7 AM" (any dash), "9am-5pm", "9-11 am": both ends on the clock, joined by "to"."""
    time = r"([0-9]{1,2})(?::([0-5][0-9]))?"
    ampm = _ampm(c)
    pattern = (
        rf"(?=[0-9])(?<![0-9:.,/]){time}(?:{SPACE}({ampm}))?{SPACE}[{DASHES}]{SPACE}"
        rf"{time}{SPACE}({ampm})(?![\w])"
    )

    def read(match: re.Match[str]) -> str:
        first_hour, first_minute, first_ampm, hour, minute, last_ampm = match.groups()
        first = _twelve_hour_words(c, first_hour, first_minute, first_ampm or last_ampm)
        last = _twelve_hour_words(c, hour, minute, last_ampm)
        if not first or not last:
            return match.group()
        if not first_ampm and c.language.time.twelve_hour:  # "9-11 am": said once
            first = first.rsplit(" ", 1)[0]
        return place(match, _keep_stop(match, last_ampm, f"{first} {c.language.range_word} {last}"))

    return c.compile(pattern, read)


def twelve_hour(c: Context) -> Pass:
    """ "2:30 pm", "9am", "9 a.m.": said on the language's own clock."""
    pattern = (
        rf"(?=[0-9])(?<![0-9:.,/])([0-9]{{1,2}})(?::([0-5][0-9]))?(?:{SPACE}({_ampm(c)})|(am|pm))"
        r"(?![\w])"
    )

    def read(match: re.Match[str]) -> str:
        written = match.group(3) or match.group(4)
        words = _twelve_hour_words(c, match.group(1), match.group(2), written)
        if not words:
            return match.group()
        return place(match, _keep_stop(match, written, words))

    return c.compile(pattern, read)


def duration(c: Context) -> Pass:
    """ "1 h 30 min", "2h15min", "4h 20m": hours and minutes of a duration, each with its unit
    ("m" is minutes only after hours; alone it is metres). "2h15" too, where it is no time."""
    hours, minutes = c.units.get("h"), c.units.get("min")
    glued = "" if c.language.hour_letter else r"|([0-9])h([0-5][0-9])"  # "2h15", not "14h30"
    pattern = (
        rf"(?=[0-9])(?<![0-9.,:/])(?:([0-9]{{1,3}}) ?h ?([0-5]?[0-9]) ?m(?:in)?{glued})(?![\w])"
        if hours and minutes
        else r"(?!)"
    )

    def read(match: re.Match[str]) -> str:
        hour, minute = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
        return place(match, _hours_minutes(c, int(hour), int(minute), c.case(match)))

    return c.compile(pattern, read)


def _hours_minutes(c: Context, hour: int, minute: int, case: str) -> str:
    """ "eine Stunde und dreißig Minuten": hours and minutes, each with its unit and agreeing."""
    hours, minutes = c.units["h"], c.units["min"]
    words = c.words
    spoken_hours = words.counted(Number("", hour), hours, case)
    spoken_minutes = words.counted(Number("", minute), minutes, case)
    return f"{spoken_hours} {c.language.and_word} {spoken_minutes}"


_CIRCA = "circa"
"""What "ca." becomes in German, English, Italian and Dutch, before the remaining-time pass."""


def remaining(c: Context) -> Pass | None:
    """ "noch 1:25 h", "termina en 1:20 h", "demora 3h05", "dans 2h30": after a word that says
    a duration follows, and maybe the language's "about", a time-like number is hours and
    minutes ("2h30" -> "duas horas e meia"). Without such a word "20:30 h" stays a clock time,
    as timetables write it."""
    lang = c.language
    hours = c.units.get("h")
    if not lang.duration_cues or hours is None or "min" not in c.units:
        return None
    firsts = "".join(
        sorted({char for cue in lang.duration_cues for char in (cue[0], cue[0].upper())})
    )
    hour_words = alternation({"h", hours.singular, hours.plural})
    minutes, seconds = c.units["min"], c.units.get("s", c.units["min"])
    smaller = alternation(  # "noch 1:25 min" is a minute and 25 seconds: left alone
        {"m", "min", "s", "sec", minutes.singular, minutes.plural, seconds.singular, seconds.plural}
    )
    clock_words = alternation(lang.clock_words) if lang.clock_words else "(?!)"
    about = alternation(  # "noch etwa 1:25 h", "demora cerca de 2h30", "in ca. 1:25 h"
        {lang.symbol_words.get("~", _CIRCA), lang.symbol_words.get("≈", _CIRCA), _CIRCA}
    )
    pattern = (
        rf"(?=[{firsts}])(?i:\b({alternation(lang.duration_cues)}))"
        rf"(:?[ \u00a0]+(?:(?i:{about})[ \u00a0]+)?)"
        r"(?:([0-9]{1,2}):([0-5][0-9])(?![0-9]|[.,:][0-9])"
        rf"(?:{SPACE}(?:{hour_words})(?![^\W\d_]))?(?!{SPACE}(?:{clock_words}|{smaller}|[ap]\.?m)\b)"
        rf"|([0-9]{{1,2}}){SPACE}h(?:{SPACE}([0-5][0-9]))?(?![\w/]))"
    )

    def read(match: re.Match[str]) -> str:
        cue, space, hour, minute, glued_hour, glued_minute = match.groups()
        said_before = match.string[max(0, match.start() - CONTEXT) : match.start()] + cue
        spoken = _duration(
            c, int(hour or glued_hour), int(minute or glued_minute or 0), said_before
        )
        return f"{cue}{space}{spoken}"

    return c.compile(pattern, read)


def _duration(c: Context, hour: int, minute: int, said_before: str) -> str:
    """ "1:30" after "noch": "eineinhalb Stunden", "una hora y media", "two and a half hours"."""
    case = c.agreement.case(said_before)
    if not hour:
        return c.words.counted(Number("", minute), c.units["min"], case)
    hours = c.words.counted(Number("", hour), c.units["h"], case)
    if not minute:
        return hours
    if c.language.time.remaining:
        return c.language.time.remaining.format(hours=hours, minute=c.words.cardinal(minute))
    if minute == 30:
        return mixed(c, hour, 1, 2, c.units["h"])
    return _hours_minutes(c, hour, minute, case)


def minutes(c: Context) -> Pass | None:
    """ "0:45 h" (no hour: a duration), "45′" (the prime sign): minutes."""  # noqa: RUF002
    noun = c.units.get("min")
    if noun is None:
        return None
    pattern = r"(?=[0-9])(?<![0-9.,:/])(?:0?0:([0-5][0-9]) ?h(?![\w])|([0-9]{1,3})′)"  # noqa: RUF001

    def read(match: re.Match[str]) -> str:
        number = c.words.parse(match.group(1) or match.group(2))
        return place(match, c.words.counted(number, noun, c.case(match)))

    return c.compile(pattern, read)


def cycle(c: Context) -> Pass | None:
    """French "24h/24", "7j/7": "vingt-quatre heures sur vingt-quatre"."""
    cycles = c.language.cycles
    if not cycles:
        return None
    letters = "".join(cycles)
    pattern = rf"(?=[0-9])(?<![0-9.,:/])([0-9]{{1,2}}) ?([{letters}]) ?/ ?([0-9]{{1,2}})(?![0-9])"

    def read(match: re.Match[str]) -> str:
        words = c.words
        first = words.cardinal(int(match.group(1)))
        last = words.cardinal(int(match.group(3)))
        unit = cycles[match.group(2)]
        return place(match, f"{first} {unit} {c.language.cycle_word} {last}")

    return c.compile(pattern, read)


def _time_words(c: Context, hour: str, minute: str | None) -> str:
    return c.words.time(int(hour), int(minute or 0), None, None)


def clock_range(c: Context) -> Pass | None:
    """ "9-17 Uhr", "9-17 uur", "9h-17h", any dash: "neun bis siebzehn Uhr"."""
    lang = c.language
    ends = [*lang.clock_words, *(["h"] if lang.hour_letter else [])]
    if not ends:
        return None
    end = alternation(ends)
    time = r"([01]?[0-9]|2[0-4])(?:[.:h]([0-5][0-9]))?"
    pattern = (
        rf"(?=[0-9])(?<![0-9.,:/]){time}(?: ?h)?{SPACE}[{DASHES}]{SPACE}{time}{SPACE}(?:{end})"
        r"(?![\w])"
    )

    def read(match: re.Match[str]) -> str:
        start_hour, start_minute, last_hour, last_minute = match.groups()
        last = _time_words(c, last_hour, last_minute)
        if lang.clock_words and not start_minute:
            first = c.words.cardinal(int(start_hour))  # "neun bis siebzehn Uhr"
        else:
            first = _time_words(c, start_hour, start_minute)
        return place(match, f"{first} {lang.range_word} {last}")

    return c.compile(pattern, read)


def colon_range(c: Context) -> Pass:
    """ "9:00–10:30", "9:00-17:00 h": two clock times joined by the language's "to"."""  # noqa: RUF002
    time = r"([01]?[0-9]|2[0-4]):([0-5][0-9])"
    pattern = (
        rf"(?=[0-9])(?<![0-9.,:/]){time}{SPACE}[{DASHES}]{SPACE}{time}"
        r"(?![0-9]|[.,:][0-9])(?: ?h(?![\w]))?"
    )

    def said(hour: str, minute: str) -> str:
        unsure = len(hour) == 1 or hour in ("10", "11", "12")
        return c.words.time(int(hour), int(minute), None, None, unsure=unsure)

    def read(match: re.Match[str]) -> str:
        first = said(match.group(1), match.group(2))
        last = said(match.group(3), match.group(4))
        return place(match, f"{first} {c.language.range_word} {last}")

    return c.compile(pattern, read)


def _hour_and_minute(c: Context, match: re.Match[str]) -> str:
    hour = int(match.group(1))
    if hour > 24 or (hour == 24 and not match.group(2)):
        return match.group()  # "open 24h": hours, read with their unit
    return place(match, _time_words(c, match.group(1), match.group(2)))


def hour_letter(c: Context) -> Pass | None:
    """ "14h30", "14h"; French also "9 h", "14 h 30"."""
    kind = c.language.hour_letter
    if not kind:
        return None
    space = " ?" if kind == "spaced" else ""
    pattern = rf"(?=[0-9])(?<![0-9.,:/])([0-9]{{1,2}}){space}h{space}([0-5][0-9])?(?![\w/])"
    return c.compile(pattern, lambda match: _hour_and_minute(c, match))


def clock_word(c: Context) -> Pass | None:
    """ "14.30 Uhr", "9 uur": a number before the language's word for o'clock."""
    if not c.language.clock_words:
        return None
    clock = alternation(c.language.clock_words)
    pattern = rf"(?=[0-9])(?<![0-9.,:/])([0-9]{{1,2}})(?:[.:]([0-5][0-9]))?{SPACE}(?:{clock})\b"
    return c.compile(pattern, lambda match: _hour_and_minute(c, match))


def clock(c: Context) -> Pass:
    """ "14:30", "08:05:30", "20:30 h"; a 12-hour clock says AM/PM only where it is known."""
    pattern = (
        r"(?=[0-9])(?<![0-9.,:/])([01]?[0-9]|2[0-4]):([0-5][0-9])(?::([0-5][0-9]))?"
        r"(?![0-9]|[.,:][0-9])(?: ?h(?![\w]))?"
    )

    def read(match: re.Match[str]) -> str:
        second = match.group(3)
        hour = match.group(1)
        words = c.words.time(
            int(hour),
            int(match.group(2)),
            int(second) if second else None,
            None,
            unsure=len(hour) == 1 or hour in ("10", "11", "12"),
        )
        return place(match, words)

    return c.compile(pattern, read)
