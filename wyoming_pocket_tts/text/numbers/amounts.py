"""Amounts: money, numbers with units, fractions ("€0.38", "21.5 °C", "5-10 °C", "1 1/2")."""

from __future__ import annotations

import re

from .context import DASHES, SPACE, Context, Pass, alternation, place
from .tables import Currency
from .words import Number

VULGAR_FRACTIONS = {"½": "1/2", "¼": "1/4", "¾": "3/4", "⅓": "1/3", "⅔": "2/3", "⅛": "1/8"}


def vulgar_fraction(c: Context) -> Pass:
    """ "1½" -> "1 1/2": the fraction pass reads it later."""
    fractions = "".join(VULGAR_FRACTIONS)
    pattern = f"(?=[0-9{fractions}])([0-9]?)([{fractions}])"

    def read(match: re.Match[str]) -> str:
        whole = match.group(1)
        fraction = VULGAR_FRACTIONS[match.group(2)]
        return f"{whole} {fraction}" if whole else fraction

    return c.compile(pattern, read)


def _money(c: Context, match: re.Match[str], currency: Currency, amount: str) -> str:
    words = c.words
    number = words.parse(amount)
    major, minor = currency.major, currency.minor
    if number.fraction and len(number.fraction) > 2:
        return place(match, words.counted(number, major))
    cents = int(number.fraction.ljust(2, "0")) if number.fraction else 0
    whole = Number(number.sign, number.whole)
    if number.whole == 0 and cents:
        return place(match, words.counted(Number(number.sign, cents), minor))
    major_words = words.counted(whole, major)
    if not cents:
        return place(match, major_words)
    spoken = c.language.money_both.format(
        major=major_words,
        minor=words.counted(Number("", cents), minor),
        cents=words.cardinal(cents),
    )
    return place(match, spoken)


def money_before(c: Context) -> Pass:
    """ "€0.38", "$12.50", "EUR 5"."""
    firsts = "".join(sorted({re.escape(code[0]) for code in c.currencies}))
    pattern = rf"(?=[{firsts}])(?<![\w])({alternation(c.currencies)}){SPACE}({c.signed})"
    return c.compile(
        pattern, lambda match: _money(c, match, c.currencies[match.group(1)], match.group(2))
    )


def money_after(c: Context) -> Pass:
    """ "12,50 €", "5 EUR"."""
    pattern = rf"({c.signed}){SPACE}({alternation(c.currencies)})(?![\w])"
    return c.compile(
        pattern, lambda match: _money(c, match, c.currencies[match.group(2)], match.group(1))
    )


def with_unit(c: Context) -> Pass:
    """ "21.5 °C", "1 kWh", "5-10 °C": the unit agrees with the number (and the range's end)."""
    pattern = (
        rf"({c.signed})(?:{SPACE}[{DASHES}]{SPACE}({c.signed}))?{SPACE}({alternation(c.units)})"
        r"(?![^\W\d_]|[0-9/²³])"
    )

    def read(match: re.Match[str]) -> str:
        noun = c.units[match.group(3)]
        words = c.words
        spoken = words.counted(words.parse(match.group(2) or match.group(1)), noun)
        if match.group(2):
            first = words.number_words(words.parse(match.group(1)), noun.gender)
            spoken = f"{first} {c.language.range_word} {spoken}"
        return place(match, spoken)

    return c.compile(pattern, read)


def fraction(c: Context) -> Pass:
    """ "1/2", "3/4", "1 1/2 cups"."""
    pattern = r"(?=[0-9])(?<![0-9.,/])(?:([0-9]+) )?([1-9])/([2-9]|10)(?![0-9/]|[.,][0-9])"

    def read(match: re.Match[str]) -> str:
        whole, numerator, denominator = match.group(1), int(match.group(2)), int(match.group(3))
        if numerator >= denominator:
            return match.group()
        lang, words = c.language, c.words
        noun = lang.fractions.get(denominator) or words.fraction_noun(denominator)
        spoken = words.counted(Number("", numerator), noun)
        if whole and numerator == 1 and lang.mixed_one:
            spoken = f"{lang.mixed_one} {noun.singular}"
        if whole:
            spoken = f"{words.cardinal(int(whole))} {lang.and_word} {spoken}"
        return place(match, spoken)

    return c.compile(pattern, read)
