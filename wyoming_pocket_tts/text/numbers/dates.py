"""Dates and decades: "2026-12-01", "01.12.2026", "am 1.12.", "1 December", "1990s", "Mo-Fr"."""

from __future__ import annotations

import re

from .context import DASHES, SPACE, Context, Pass, after, alternation, before, place


def _date(c: Context, match: re.Match[str], day: int, month: int, year: int | None) -> str:
    lang = c.language
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return match.group()
    template = lang.date if year is not None else lang.date_no_year
    words = template.format(
        day=c.words.day(day, before(match)),
        month=lang.months[month - 1],
        year=c.words.year(year) if year is not None else "",
    )
    return place(match, words)


def weekday(c: Context) -> Pass | None:
    """German "Mo-Fr", "Mo. bis Fr.", "Sa/So", "Di., 3. März", "Do 14:00": weekdays in full.

    Alone, an abbreviation is a weekday only before a number ("Fr." before a name is "Frau")."""
    days = c.language.weekdays
    if not days:
        return None
    names = alternation(days)
    joiners = re.escape(c.language.range_word)  # "Mo. bis Fr."; "Mo und Fr. Meier" is a name
    firsts = "".join(sorted({day[0] for day in days}))
    pattern = (
        rf"(?=[{firsts}])\b({names})\.?(?![^\W\d_])"
        rf"(?:(?:{SPACE}([{DASHES}/]){SPACE}|[ \u00a0]({joiners})[ \u00a0])({names})\.?"
        rf"(?![^\W\d_])|(?=,?{SPACE}[0-9]))"
    )

    amount = re.compile(
        rf"[ \u00a0]?[0-9]+(?:[.,](?:[0-9]{{2}}|[{DASHES}]{{1,2}}))?(?![0-9.:]| ?Uhr\b)"
    )

    def read(match: re.Match[str]) -> str:
        written = match.group()
        first, sign, word, last = match.groups()
        if written in c.currencies and not last and amount.match(after(match)):
            return written  # Swiss "Fr. 7.50" is money
        spoken = days[first]
        if last:
            joiner = word or (c.language.and_word if sign == "/" else c.language.range_word)
            spoken += f" {joiner} {days[last]}"
        if written.endswith(".") and match.end() == len(match.string):
            spoken += "."  # "kommt Mo. bis Fr.": the full stop also ends the sentence
        return place(match, spoken)

    return c.compile(pattern, read)


def iso_date(c: Context) -> Pass:
    """ "2026-12-01", also glued to a time ("2026-12-01T08:00")."""
    pattern = (
        r"(?=[12])(?<![0-9\-.])([12][0-9]{3})-(0?[1-9]|1[0-2])-(0?[1-9]|[12][0-9]|3[01])"
        r"(T(?=[0-9]))?(?![0-9])"
    )

    def read(match: re.Match[str]) -> str:
        year, month, day = (int(match.group(index)) for index in (1, 2, 3))
        words = _date(c, match, day, month, year)
        if match.group(4) and words != match.group():
            words += " "
        return words

    return c.compile(pattern, read)


def numeric_date(c: Context) -> Pass:
    """ "01/12/2026", "1.12.26", "12-01-2026" (month first in US English)."""
    pattern = (
        r"(?=[0-9])(?<![0-9.,/\-])([0-9]{1,2})([./\-])([0-9]{1,2})\2([0-9]{4}|[0-9]{2})"
        r"(?![0-9]|[.,/\-][0-9])"
    )

    def read(match: re.Match[str]) -> str:
        first, second, year_text = int(match.group(1)), int(match.group(3)), match.group(4)
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        if c.language.month_first and first <= 12:
            first, second = second, first
        return _date(c, match, first, second, year)

    return c.compile(pattern, read)


def day_month_dots(c: Context) -> Pass | None:
    """German "am 1.12.", "Mo. 12.05.": a day and month without a year, after a cue word or a
    weekday."""
    if not c.language.ordinal_dot_cues:
        return None
    pattern = r"(?=[0-9])(?<![0-9.,])([0-9]{1,2})\.([0-9]{1,2})\.(?![0-9])"

    cues = {*c.language.ordinal_dot_cues, *(day.lower() for day in c.language.weekdays.values())}

    def read(match: re.Match[str]) -> str:
        previous = re.search(r"(\w+)\W*$", before(match))
        if not previous or previous.group(1).lower() not in cues:
            return match.group()
        return _date(c, match, int(match.group(1)), int(match.group(2)), None)

    return c.compile(pattern, read)


def _suffixes(c: Context) -> str:
    return alternation(c.language.ordinal_suffixes)


def day_month(c: Context) -> Pass:
    """ "1 December", "1er décembre", "1. Dezember", "1 de diciembre", "21st of May"."""
    lang = c.language
    suffixes = _suffixes(c)
    day_suffix = f"(?:{suffixes}|\\.|º|°)?" if suffixes else r"(?:\.|º|°)?"
    pattern = (
        rf"(?=[0-9])(?<![0-9.,])([0-9]{{1,2}})({day_suffix})[ \u00a0]((?:de |of )?)"
        rf"(?i:({alternation(lang.months)}))\b"
    )

    def read(match: re.Match[str]) -> str:
        day = int(match.group(1))
        if not 1 <= day <= 31:
            return match.group()
        month = lang.months[c.months[match.group(4).lower()] - 1]
        day_words = c.words.day(day, before(match))
        if match.group(3):  # "1 de diciembre", "21st of May": keep the source's wording
            words = f"{day_words} {match.group(3)}{month}"
        else:
            words = lang.day_month.format(day=day_words, month=month)
        return place(match, words)

    return c.compile(pattern, read)


def month_day(c: Context) -> Pass | None:
    """English "December 1, 2026"."""
    lang = c.language
    if not lang.month_first:
        return None
    month_letters = "".join(sorted({month[0].lower() + month[0].upper() for month in lang.months}))
    pattern = (
        rf"(?=[{month_letters}])\b(?i:({alternation(lang.months)}))[ \u00a0]([0-9]{{1,2}})"
        rf"(?:{_suffixes(c)})?(?:,? ([0-9]{{4}}))?"
        r"(?![0-9]|[.,][0-9])"
    )

    def read(match: re.Match[str]) -> str:
        day = int(match.group(2))
        if not 1 <= day <= 31:
            return match.group()
        month = lang.months[c.months[match.group(1).lower()] - 1]
        year = match.group(3)
        template = lang.date if year else lang.date_no_year
        words = template.format(
            month=month, day=c.words.day(day, ""), year=c.words.year(int(year)) if year else ""
        )
        return place(match, words)

    return c.compile(pattern, read)


def decade(c: Context) -> Pass | None:
    """English "the 1990s", "the '80s"; German "die 70er", "in den 60ern", "80er-Jahre"."""
    if not c.language.decades:
        return None
    pattern = r"(?=['0-9])(?<![0-9\w])'?((?:1[0-9]|20)?[0-9]0)s\b"

    def read(match: re.Match[str]) -> str:
        digits = match.group(1)
        number = int(digits)
        if len(digits) == 3 or (len(digits) == 4 and number < 1000):
            return match.group()
        words = c.words.year(number) if len(digits) == 4 else c.words.cardinal(number)
        words = words[:-1] + "ies" if words.endswith("y") else words + "s"
        return place(match, words)

    return c.compile(pattern, read)


def decade_suffix(c: Context) -> Pass | None:
    """German "70er", "60ern", "1980er", "80er-Jahre": the cardinal with its ending."""
    suffix = c.language.decade_suffix
    if not suffix:
        return None
    pattern = rf"(?=[0-9'])(?<![0-9\w])'?((?:1[0-9]|20)?[1-9]0){suffix}(n?)(?:-?(Jahren?))?\b"

    def read(match: re.Match[str]) -> str:
        digits, ending, years = match.groups()
        number = int(digits)
        said = c.words.year(number) if len(digits) == 4 else c.words.cardinal(number)
        said = said[0].upper() + said[1:] + suffix
        if years:
            return place(match, f"{said}{years.lower()}")  # "Achtzigerjahre"
        return place(match, said + ending)

    return c.compile(pattern, read)


def decade_after(c: Context) -> Pass | None:
    """ "anni '60", "jaren '70", "los 70", "années 80": a decade after the word for years."""
    cues = c.language.decade_cues
    if not cues:
        return None
    firsts = "".join(sorted({char for cue in cues for char in (cue[0], cue[0].upper())}))
    pattern = (
        rf"(?=[{firsts}])(?i:\b({alternation(cues)}))([ \u00a0]+)['’]?([1-9]0)(?:'?s)?"  # noqa: RUF001
        r"(?![0-9\w]|[.,][0-9])"
    )

    def read(match: re.Match[str]) -> str:
        cue, space, digits = match.groups()
        return f"{cue}{space}{c.words.cardinal(int(digits))}"

    return c.compile(pattern, read)
