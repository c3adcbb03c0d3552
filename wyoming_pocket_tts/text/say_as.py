"""SSML `<say-as interpret-as="...">`: a value said the way its author asked, in words.

Each kind goes through the number reader of the text's language, so a `say-as` reads exactly as
the same value would in plain text when the reader recognises it, and is forced into the asked
form when it would not (digits one by one, letters spelt out). Unknown kinds keep the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .numbers import reader
from .numbers.reader import Reader

_DIGITS_RE = re.compile(r"[0-9]+")
_DATE_PARTS_RE = re.compile(r"[0-9]+")


def say_as(text: str, interpret_as: str, language: str, date_format: str = "") -> str:
    """`text` in words as `interpret_as` (characters, spell-out, digits, cardinal, ordinal,
    date, time, telephone); any other kind returns `text` unchanged."""
    handler = _KINDS.get(interpret_as.strip().lower())
    text = " ".join(text.split())
    if handler is None or not text:
        return text
    try:
        return handler(text, reader(language), date_format.strip().lower())
    except (ValueError, ArithmeticError, LookupError):  # e.g. int() of 5000 digits
        return text


def _characters(text: str, numbers: Reader, _: str) -> str:
    """ "ABC12" -> "A B C one two": each letter on its own, digits as digit words."""
    spoken = []
    for char in text:
        if char.isdigit() and char.isascii():
            spoken.append(numbers.words.spell.digits(char))
        elif char.isalnum():
            spoken.append(char.upper())
    return " ".join(spoken)


def _digits(text: str, numbers: Reader, _: str) -> str:
    """ "2045" -> "two zero four five"; anything between digit groups is dropped."""
    return " ".join(numbers.words.spell.digits(group) for group in _DIGITS_RE.findall(text))


def _cardinal(text: str, numbers: Reader, _: str) -> str:
    digits = text.replace(" ", "")
    if digits.lstrip("+-").isdigit():
        number = int(digits)
        spoken = numbers.words.spell.cardinal(abs(number))
        return f"{numbers.words.language.minus} {spoken}" if number < 0 else spoken
    return numbers.read(text)


def _ordinal(text: str, numbers: Reader, _: str) -> str:
    match = _DIGITS_RE.search(text)
    if match is None:
        return numbers.read(text)
    return numbers.words.spell.ordinal(int(match.group()))


def _date(text: str, numbers: Reader, date_format: str) -> str:
    """A full date in any order `format` names (ymd, dmy, mdy) is read as its ISO form."""
    parts = _DATE_PARTS_RE.findall(text)
    if len(parts) != 3:
        return numbers.read(text)
    order = date_format if sorted(date_format) == ["d", "m", "y"] else ""
    if not order:
        english = numbers.words.language.code == "en"
        order = "ymd" if len(parts[0]) == 4 else ("mdy" if english else "dmy")
    values = dict(zip(order, parts, strict=True))
    year, month, day = values["y"], values["m"], values["d"]
    if len(year) == 2:
        year = f"20{year}"
    return numbers.read(f"{int(year):04d}-{int(month):02d}-{int(day):02d}")


def _time(text: str, numbers: Reader, _: str) -> str:
    compact = re.fullmatch(r"([0-9]{1,2})([0-9]{2})", text)
    if compact:
        text = f"{compact.group(1)}:{compact.group(2)}"
    return numbers.read(text)


def _telephone(text: str, numbers: Reader, _: str) -> str:
    """Every group of digits digit by digit, with the language's separator between groups."""
    groups = [numbers.words.spell.digits(group) for group in _DIGITS_RE.findall(text)]
    spoken = numbers.words.language.digits_separator.join(groups)
    return f"{numbers.words.language.plus} {spoken}" if text.startswith("+") else spoken


_KINDS: dict[str, Callable[[str, Reader, str], str]] = {
    "characters": _characters,
    "spell-out": _characters,
    "verbatim": _characters,
    "digits": _digits,
    "cardinal": _cardinal,
    "number": _cardinal,
    "ordinal": _ordinal,
    "date": _date,
    "time": _time,
    "telephone": _telephone,
}
"""Kinds by their SSML name (`verbatim` and `number` are common aliases)."""
