"""The shape of one language's reading tables: plain data, filled in by one module per language.

Number words themselves always come from `num2words`; these tables hold what it does not know:
unit and currency names, month names, abbreviations, the words around numbers, and small
regular-expression fixes for its gaps (agreement, a few wrong forms).
"""

from __future__ import annotations

from dataclasses import dataclass, field

Fix = tuple[str, str]
"""A regular expression and its replacement, applied to number words."""


@dataclass(frozen=True)
class Noun:
    """A unit or currency name: singular, plural and grammatical gender ('m', 'f' or 'n')."""

    singular: str
    plural: str
    gender: str = "m"


@dataclass(frozen=True)
class Currency:
    """A currency's main unit and its hundredth."""

    major: Noun
    minor: Noun


@dataclass(frozen=True)
class Abbreviation:
    """An abbreviation and what is said instead.

    `before_digit`: only expanded when a number follows ("No. 5"); `before_name`: only when a
    capitalised word follows ("M. Dupont"); `can_end`: it may close a sentence ("etc."), so a
    following capital keeps its full stop.
    """

    written: str
    spoken: str
    before_digit: bool = False
    before_name: bool = False
    can_end: bool = False


@dataclass(frozen=True)
class TimeWords:
    """How a clock time is said.

    `full` and `on_the_hour` are templates with {hour} (number words agreeing with `hour`),
    {minute} and {hour_unit}; `twelve_hour` says times as 1-12 with `am`/`pm` (English).
    `minute_oh`: the word said before minutes 1-9 ("eight oh five"); `special` names exact
    times ("00:00" -> "midnight").
    """

    full: str
    on_the_hour: str
    hour: Noun
    twelve_hour: bool = False
    am: str = ""
    pm: str = ""
    minute_oh: str = ""
    special: dict[str, str] = field(default_factory=dict)
    seconds_joiner: str = "and"


@dataclass(frozen=True)
class Language:
    """Everything needed to read numbers aloud in one language."""

    code: str
    num2words: str
    """The `lang` argument num2words takes."""
    decimal_separator: str
    """The separator this language writes between integer and fraction ('.' or ',')."""
    decimal_word: str
    decimal_as_digits: bool
    """Read the digits after the decimal word one by one ("point three eight") or as a number."""
    minus: str
    plus: str
    range_word: str
    """Said between the ends of a range, "5-10"."""
    ratio_word: str
    """Said for a score or ratio, "2:1"."""
    times_word: str
    """Said for "5*3" or "5 × 3"."""  # noqa: RUF001
    and_word: str
    dot_word: str
    """Said between the parts of a version number or address, "2.13.0"."""
    number_word: str
    """Said for "No." / "#" before a number."""
    units: dict[str, Noun]
    """By symbol ("kWh", "°C", "%"); see engine.UNIT_ALIASES for the other spellings accepted."""
    currencies: dict[str, Currency]
    """By symbol or ISO code ("€", "EUR")."""
    money_both: str
    """Template for an amount with cents: {major} (words and unit), {minor} (words and unit),
    {cents} (the cents' words alone)."""
    months: tuple[str, ...]
    date: str
    """Template for a date: {day}, {month}, {year}."""
    date_no_year: str
    day_month: str
    """A day written before a month name ("1 December", "1er décembre"): {day}, {month}."""
    day_ordinal: bool
    """Days are ordinals ("December first"); else cardinals, with `first_day` for the 1st."""
    first_day: str | None
    month_first: bool
    """Numeric dates are month/day/year (US English); else day/month/year."""
    time: TimeWords
    ordinal_suffixes: dict[str, str]
    """Written ordinal endings ("st", "er", "º") -> the gender they mark ('m' or 'f')."""
    feminine_ordinal: tuple[Fix, ...] = ()
    first_ordinals: dict[str, str] = field(default_factory=dict)
    """Ordinal suffix -> the word for 1 with it ("er" -> "premier", "re" -> "première")."""
    gender_fixes: dict[str, tuple[Fix, ...]] = field(default_factory=dict)
    """By gender: fixes turning a cardinal into the form said before a noun ("un" -> "une")."""
    cardinal_fixes: tuple[Fix, ...] = ()
    """Fixes for num2words' gaps in plain cardinals."""
    ordinal_fixes: tuple[Fix, ...] = ()
    feminine_nouns: frozenset[str] = frozenset()
    """Common feminine nouns, so "1 heure" is "une heure" (lower case)."""
    nouns_are_capitalised: bool = False
    """German: any capitalised next word is a noun, so "1 Tag" is "ein Tag", not "eins Tag"."""
    year_cues: frozenset[str] = frozenset()
    """Words (lower case) after which a four-digit number is a year; empty: years are cardinals."""
    singular_below_two: bool = False
    """French: "1,5 degré" (singular below two); elsewhere only exactly one is singular."""
    fractions: dict[int, Noun] = field(default_factory=dict)
    """Denominator -> special fraction names ("half"); others come from the ordinal."""
    mixed_one: str = ""
    """Said instead of "one" in a mixed number ("1 1/2" -> "one and a half")."""
    fraction_rule: str = "ordinal"
    """How other denominators are named: 'ordinal', 'ordinal+s', 'tel' (German), 'o>i' (Italian)."""
    abbreviations: tuple[Abbreviation, ...] = ()
    text_fixes: tuple[Fix, ...] = ()
    """Fixes applied to rewritten text (Italian "una ora" -> "un'ora")."""
    space_groups: bool = False
    """A plain space may separate thousands ("2 500")."""
    ordinal_dot_cues: dict[str, str] = field(default_factory=dict)
    """German "am 1." ordinals: word before -> ending added to the ordinal ("am" -> "n")."""
    ordinal_dot_default: str = ""
    clock_words: tuple[str, ...] = ()
    """Words after a number that make it a clock time ("14.30 Uhr")."""
    hour_letter: bool = False
    """French "14h30"."""
    decades: bool = False
    """English "1990s" -> "nineteen nineties"."""
    digits_separator: str = ", "
    pair_phone_groups: bool = False
    """French phone numbers are read in pairs ("zéro six, douze, ...")."""
