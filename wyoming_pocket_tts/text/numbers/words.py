"""Number words in context: agreement, plurals, decimals, times, days and fractions.

`Words` turns parsed values into what is said, using num2words (through `Speller`) and the
language's tables; `reader.Reader` finds the values in text and calls it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .spelling import Speller, apply_fixes, compile_fixes
from .tables import Language, Noun

_SPACES = " \u00a0\u202f"
_MAX_CARDINAL = 10**15
"""Larger integers are read digit by digit (num2words has no words for them)."""


@dataclass(frozen=True)
class Number:
    """A parsed written number: sign, whole part and the digits after the decimal separator."""

    sign: str
    whole: int
    fraction: str = ""


def parse_number(text: str, language: Language) -> Number:
    """Parse "-1,250.5", "1.250", "2 500" or "21,5" the way the language writes numbers.

    A lone separator is the decimal separator unless it is followed by exactly three digits and
    is not the language's own decimal separator ("1,250" is 1250 in English, 1.25 in German).
    """
    sign = ""
    if text[:1] in "-+\u2212":
        sign, text = ("+" if text[0] == "+" else "-"), text[1:]
    marks = [char for char in text if not "0" <= char <= "9"]
    if not marks:
        return Number(sign, int(text))
    last = marks[-1]
    head, _, tail = text.rpartition(last)
    digits_of = "".join(char for char in head if "0" <= char <= "9")
    if len(set(marks)) > 1:
        return Number(sign, int(digits_of), tail)
    if len(marks) > 1 or last in "'’" + _SPACES:  # noqa: RUF001
        return Number(sign, int(digits_of + tail))
    if len(tail) == 3 and head != "0" and len(head) <= 3 and last != language.decimal_separator:
        return Number(sign, int(head + tail))
    return Number(sign, int(head), tail)


class Words:
    """What is said for numbers, times, days and fractions in one language."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self.spell = Speller(language)
        self._weekdays = frozenset(day.lower() for day in language.weekdays.values())
        self._gender_fixes = {
            gender: compile_fixes(fixes) for gender, fixes in language.gender_fixes.items()
        }

    def _agree(self, words: str, gender: str | None) -> str:
        if gender is None:
            return words
        fixes = self._gender_fixes.get(gender) or self._gender_fixes.get(gender.split(".")[0], ())
        return apply_fixes(words, fixes)

    def cardinal(self, number: int, gender: str | None = None) -> str:
        if number >= _MAX_CARDINAL:
            return self.spell.digits(str(number))
        return self._agree(self.spell.cardinal(number), gender)

    def number_words(self, number: Number, gender: str | None = None) -> str:
        """Words for a parsed number; `gender` makes integers agree with the noun they count.

        `gender` is 'm', 'f' or 'n', with the case after a dot in German ("m.acc")."""
        lang = self.language
        words = self.cardinal(number.whole, None if number.fraction else gender)
        if number.fraction:
            words += f" {lang.decimal_word} {self._fraction_digits(number.fraction)}"
        if number.sign == "-":
            words = f"{lang.minus} {words}"
        elif number.sign == "+":
            words = f"{lang.plus} {words}"
        return words

    def _fraction_digits(self, digits: str) -> str:
        if self.language.decimal_as_digits or len(digits) > 3:
            return self.spell.digits(digits)
        rest = digits.lstrip("0")
        zeros = self.spell.digits(digits[: len(digits) - len(rest)])
        return " ".join(
            part for part in (zeros, self.spell.cardinal(int(rest)) if rest else "") if part
        )

    def is_singular(self, number: Number) -> bool:
        if self.language.singular_below_two:
            return number.whole < 2
        return number.whole == 1 and not number.fraction

    def counted(self, number: Number, noun: Noun, case: str = "") -> str:
        """ "21 kWh" -> number and noun, agreeing; `case` is German's ".acc" or ".dat"."""
        name = noun.singular if self.is_singular(number) else noun.plural
        return f"{self.number_words(number, noun.gender + case)} {name}"

    def parse(self, text: str) -> Number:
        return parse_number(text, self.language)

    def year(self, year: int) -> str:
        return self.spell.year(year)

    def day(self, day: int, before: str) -> str:
        lang = self.language
        if lang.ordinal_dot_cues:
            return self.inflected_ordinal(day, before)
        if lang.day_ordinal:
            return self.spell.ordinal(day)
        if day == 1 and lang.first_day:
            return lang.first_day
        return self.cardinal(day)

    def inflected_ordinal(self, number: int, before: str) -> str:
        """German: "am ersten", "der erste", "erster Dezember", "am Montag, ersten Mai"."""
        lang = self.language
        previous = re.search(r"(\w+)\W*$", before)
        word = previous.group(1).lower() if previous else ""
        if previous and word in self._weekdays:  # "am Montag, 3. Mai": as after "am"
            return self.inflected_ordinal(number, before[: previous.start()])
        ending = lang.ordinal_dot_cues.get(word, lang.ordinal_dot_default)
        return self.spell.ordinal(number) + ending

    def time(
        self,
        hour: int,
        minute: int,
        second: int | None,
        meridiem: str | None,
        *,
        unsure: bool = False,
    ) -> str:
        """A clock time; `unsure`: written "7:52", which a 12-hour clock says without AM/PM."""
        lang, clock = self.language, self.language.time
        if meridiem is not None:
            if not 1 <= hour <= 12:
                return ""
            if not clock.twelve_hour:
                hour = hour % 12 + (12 if meridiem == "pm" else 0)
        else:
            special = clock.special.get(f"{hour % 24:02}:{minute:02}")
            if special and not second:
                return special
            if clock.twelve_hour:
                hour %= 24
                meridiem = "am" if hour < 12 else "pm"
                hour = hour % 12 or 12
        hour_noun = clock.hour
        hour_words = self.cardinal(hour, hour_noun.gender)
        unit = hour_noun.singular if self.is_singular(Number("", hour)) else hour_noun.plural
        if minute == 0:
            words = clock.on_the_hour.format(hour=hour_words, hour_unit=unit)
        else:
            minute_words = self.cardinal(minute)
            if minute < 10 and clock.minute_oh:
                minute_words = f"{clock.minute_oh} {minute_words}"
            words = clock.full.format(hour=hour_words, hour_unit=unit, minute=minute_words)
        if second:
            seconds = lang.units["s"]
            words += f" {clock.seconds_joiner} {self.counted(Number('', second), seconds)}"
        if clock.twelve_hour and meridiem is not None and not unsure:
            words += " " + (clock.am if meridiem == "am" else clock.pm)
        return words

    def fraction_noun(self, denominator: int) -> Noun:
        ordinal = self.spell.ordinal(denominator)
        rule = self.language.fraction_rule
        if rule == "ordinal+s":
            return Noun(ordinal, ordinal + "s")
        if rule == "o>i":
            return Noun(ordinal, ordinal[:-1] + "i")
        if rule == "tel":
            name = ordinal[:-1].capitalize() + "el"
            return Noun(name, name, "n")
        return Noun(ordinal, ordinal)
