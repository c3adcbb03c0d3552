"""Numbers, units, times, dates, money and abbreviations said as words, in seven languages.

`speak_numbers(text, language)` rewrites text so that no digit and no unit or currency symbol
reaches the model; Pocket-TTS is too small to read them itself. The passes are listed in `reader`,
each language's tables in its own module (`en`, `fr`, `de`, `it`, `pt`, `es`, `nl`), their shape
in `tables`. The passes' modules: `address`, `amounts`, `clock`, `codes`, `dates`, `plain`,
`roman`, `scales`; what they share: `context` (one language's tables and patterns), `words`
(number words in context), `agreement` (the gender and case a number takes), `spelling`
(num2words, corrected and cached).
"""

from __future__ import annotations

from functools import cache

from ...languages import base_code
from . import de, en, es, fr, it, nl, pt
from .reader import Reader
from .tables import Language

LANGUAGES: dict[str, Language] = {
    module.LANGUAGE.code: module.LANGUAGE for module in (en, fr, de, it, pt, es, nl)
}
"""The languages read, by ISO 639-1 code."""


def base_language(language: str) -> str:
    """'en-GB', 'pt_BR', 'FR' -> the code of a language we read. Every model's code is a
    known one (checked at start); English only for an SSML `xml:lang` no record knows."""
    code = base_code(language)
    return code if code in LANGUAGES else "en"


def reader(language: str) -> Reader:
    """The reader for a language code, built once per language."""
    return _reader(base_language(language))


@cache
def _reader(code: str) -> Reader:
    return Reader(LANGUAGES[code])


def speak_numbers(text: str, language: str) -> str:
    """Return `text` with numbers, units, times, dates, money and abbreviations in words."""
    return reader(language).read(text)


__all__ = ["LANGUAGES", "base_language", "reader", "speak_numbers"]
