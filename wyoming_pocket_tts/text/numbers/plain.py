"""Plain numbers and what is left: ordinals, ranges, products, pairs, cardinals, symbols."""

from __future__ import annotations

import re

from .amounts import VULGAR_FRACTIONS
from .context import (
    CONTEXT,
    SPACE,
    Context,
    Pass,
    after,
    alternation,
    before,
    place,
    starts_sentence,
)
from .spelling import apply_fixes, compile_fixes

SYMBOLS = "%‰€$£¥°℃℉−½¼¾⅓⅔⅛"  # noqa: RUF001
"""Characters that are read even without a digit next to them."""


def ordinal(c: Context) -> Pass | None:
    """ "1st", "2e", "1er", "3ª", "21º", French "2d", "2nde"."""
    lang = c.language
    if not lang.ordinal_suffixes:
        return None
    feminine = compile_fixes(lang.feminine_ordinal)
    apocope = compile_fixes(lang.ordinal_apocope)
    suffixes = alternation([*lang.ordinal_suffixes, *lang.second_ordinals])
    pattern = rf"(?=[0-9])(?<![0-9.,])([0-9]+)({suffixes})(?![\w])"

    def read(match: re.Match[str]) -> str:
        number, suffix = int(match.group(1)), match.group(2)
        if suffix in lang.second_ordinals and suffix not in lang.ordinal_suffixes:
            return place(match, lang.second_ordinals[suffix]) if number == 2 else match.group()
        if number == 1 and suffix in lang.first_ordinals:
            words = lang.first_ordinals[suffix]
        else:
            words = c.words.spell.ordinal(number)
            if lang.ordinal_suffixes.get(suffix) == "f":
                words = apply_fixes(words, feminine)
            elif apocope and (c.gender(match) or "").startswith("m") and not _letter_next(match):
                words = apply_fixes(words, apocope)  # "el 1.º piso" -> "el primer piso"
        return place(match, words)

    return c.compile(pattern, read)


def _letter_next(match: re.Match[str]) -> bool:
    """Spanish "3.º B": a door letter is no noun, so the ordinal keeps its full form."""
    return re.match(r"[ \u00a0]+[A-Z](?![\w])", after(match)) is not None


def ordinal_dot(c: Context) -> Pass | None:
    """German "am 1. Mai", "der 3. Platz", "ihren 40. Geburtstag", "Montag, den 3.", "Mittwoch
    1. Advent", "Samstag, den 14., um", "den 14.!": an ordinal after a cue word or a weekday."""
    lang = c.language
    if not lang.ordinal_dot_cues:
        return None
    cues = alternation([*lang.ordinal_dot_cues, *lang.weekdays.values()])  # "Mittwoch 1. Advent"
    pattern = rf"(?i:\b({cues}))(,?\s)([0-9]{{1,3}})\.(?:(?=\s+[^\W\d_]|\s*[,;:!?)\-–—])|(\s*$))"  # noqa: RUF001

    def read(match: re.Match[str]) -> str:
        cue, space, number, end = match.groups()
        said_before = match.string[max(0, match.start(3) - CONTEXT) : match.start(3)]
        spoken = f"{cue}{space}{c.words.inflected_ordinal(int(number), said_before)}"
        if end is None and starts_sentence(after(match), lang):
            end = ""  # "am 14. Dann": the stop also ends the sentence
        return spoken if end is None else f"{spoken}.{end}"  # "Montag, den 3.": ends too

    return c.compile(pattern, read)


def unsaid_sign(c: Context) -> Pass | None:
    """ "up +3.5%": the word says the direction, so the sign is not read ("up 3.5%")."""
    cues = c.language.sign_cues
    if not cues:
        return None
    pattern = rf"(?i:\b({alternation(cues)}))([ \u00a0]+)([-+\u2212])(?=[0-9])"

    def read(match: re.Match[str]) -> str:
        signs = cues[match.group(1).lower()]
        sign = "-" if match.group(3) == "\u2212" else match.group(3)
        return match.group(1) + match.group(2) + ("" if sign in signs else match.group(3))

    return c.compile(pattern, read)


def unsaid_sign_after(c: Context) -> Pass | None:
    """Spanish "un +3,5 % más", "5 °C more": the word after says the direction, not the sign."""
    cues = c.language.sign_cues_after
    if not cues:
        return None
    measure = alternation([*c.units, *c.currencies])
    pattern = (
        rf"(?=[-+\u2212])(?<![\w.,:/+\-\u2212])([-+\u2212])(?={c.num}(?:{SPACE}(?:{measure}))?"
        rf"[ \u00a0]+(?i:({alternation(cues)}))\b)"
    )

    def read(match: re.Match[str]) -> str:
        sign = "-" if match.group(1) == "\u2212" else match.group(1)
        return "" if sign in cues[match.group(2).lower()] else match.group(1)

    return c.compile(pattern, read)


def plus_between(c: Context) -> Pass:
    """ "45+3" (stoppage time), "45′+2", French "45e+3": a plus between numbers is said."""  # noqa: RUF002
    pattern = r"(?=\+)(?:(?<=[0-9])|(?<=[0-9]['′e]))\+(?=[0-9])"  # noqa: RUF001
    return c.compile(pattern, lambda _: f" {c.language.plus} ")


def _is_score(c: Context, match: re.Match[str]) -> bool:
    """A score word before the numbers, or just after them ("een 3-1 overwinning")."""
    cues = c.language.score_cues
    near = re.findall(r"\w+", before(match).lower()) + re.findall(r"\w+", after(match).lower())[:2]
    return bool(cues) and any(word in cues for word in near)


def _joined(c: Context, match: re.Match[str], word: str) -> str:
    words = c.words
    first = words.number_words(words.parse(match.group(1)))
    last = words.number_words(words.parse(match.group(2)))
    if word == c.language.range_word and _is_score(c, match):  # "won 3-1", "stand 2-1"
        return place(
            match, c.language.score.format(first=first, ratio=c.language.ratio_word, last=last)
        )
    return place(match, f"{first} {word} {last}")


def range_dash(c: Context) -> Pass:
    """ "5–10", "5 — 10": an en or em dash between numbers."""  # noqa: RUF002
    pattern = rf"({c.signed}){SPACE}[–—]{SPACE}({c.signed})"  # noqa: RUF001
    return c.compile(pattern, lambda match: _joined(c, match, c.language.range_word))


def range_hyphen(c: Context) -> Pass:
    """ "5-10", "5 - 10"."""
    pattern = rf"({c.signed}) ?- ?({c.num})"
    return c.compile(pattern, lambda match: _joined(c, match, c.language.range_word))


def product(c: Context) -> Pass:
    """ "5*3", "5 × 3"."""  # noqa: RUF002
    pattern = rf"({c.signed}) ?[*\u00d7] ?({c.signed})"
    return c.compile(pattern, lambda match: _joined(c, match, c.language.times_word))


def pair(c: Context) -> Pass:
    """ "2:1" (a score or ratio), "24/7"."""
    pattern = r"(?=[0-9])([0-9]+)([:/])([0-9]+)"

    def read(match: re.Match[str]) -> str:
        words = c.words
        first = words.cardinal(int(match.group(1)))
        last = words.cardinal(int(match.group(3)))
        joiner = f" {c.language.ratio_word} " if match.group(2) == ":" else " "
        return place(match, first + joiner + last)

    return c.compile(pattern, read)


def cardinal(c: Context) -> Pass:
    """Any other number: a year after a cue word, digits when it starts with 0 or is long."""
    lang = c.language

    def read(match: re.Match[str]) -> str:
        text = match.group()
        words = c.words
        if text.isdigit() and ((len(text) > 1 and text[0] == "0") or len(text) >= 10):
            return place(match, words.spell.digits(text))
        number = words.parse(text)
        if (
            lang.year_cues
            and text.isdigit()
            and len(text) == 4
            and 1000 <= number.whole < 2100
            and (previous := re.search(r"(\w+)\W{0,2}$", before(match)))
            and previous.group(1).lower() in lang.year_cues
        ):
            return place(match, words.year(number.whole))
        return place(match, words.number_words(number, c.gender(match)))

    return c.compile(c.signed, read)


def symbol(c: Context) -> Pass:
    """A unit or currency sign with no number: "°", "€", "%"; the minus sign."""

    def read(match: re.Match[str]) -> str:
        sign = match.group()
        if sign == "\u2212":
            return place(match, c.language.minus)
        if sign in c.currencies:
            return place(match, c.currencies[sign].major.plural)
        if sign in VULGAR_FRACTIONS:
            return sign
        noun = c.units.get(sign)
        return place(match, noun.plural if noun else "")

    return c.compile(f"[{SYMBOLS}]", read)


def digit(c: Context) -> Pass:
    """A digit every other pass left: said alone, so none reaches the model."""
    return c.compile(
        r"[0-9]", lambda match: place(match, c.words.spell.cardinal(int(match.group())))
    )
