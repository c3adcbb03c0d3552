"""Number words from num2words, corrected by the language's fixes and cached.

num2words takes 3-80 µs per call (French, German and Dutch are the slow ones); announcements
repeat the same few numbers, so every answer is cached per language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from num2words import CONVERTER_CLASSES

from .tables import Fix, Language

_CACHE_LIMIT = 4096


def compile_fixes(fixes: Iterable[Fix]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """Compile (pattern, replacement) pairs once."""
    return tuple((re.compile(pattern), replacement) for pattern, replacement in fixes)


def apply_fixes(words: str, fixes: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    """Apply compiled fixes in order."""
    for pattern, replacement in fixes:
        words = pattern.sub(replacement, words)
    return words


class Speller:
    """Cardinal, ordinal and year words for one language."""

    def __init__(self, language: Language) -> None:
        self._converter = CONVERTER_CLASSES[language.num2words]
        self._cardinal_fixes = compile_fixes(language.cardinal_fixes)
        self._ordinal_fixes = compile_fixes(language.ordinal_fixes)
        self._cache: dict[tuple[str, int], str] = {}

    def cardinal(self, number: int) -> str:
        """ "21" -> "twenty-one"."""
        return self._cached("c", number, self._converter.to_cardinal, self._cardinal_fixes)

    def ordinal(self, number: int) -> str:
        """ "21" -> "twenty-first"."""
        return self._cached("o", number, self._converter.to_ordinal, self._ordinal_fixes)

    def year(self, number: int) -> str:
        """ "1999" -> "nineteen ninety-nine" where the language says years differently."""
        return self._cached("y", number, self._converter.to_year, self._cardinal_fixes)

    def digits(self, digits: str) -> str:
        """ "042" -> "zero four two"."""
        return " ".join(self.cardinal(int(digit)) for digit in digits)

    def _cached(
        self,
        kind: str,
        number: int,
        convert: Callable[[int], str],
        fixes: tuple[tuple[re.Pattern[str], str], ...],
    ) -> str:
        key = (kind, number)
        words = self._cache.get(key)
        if words is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            try:
                words = apply_fixes(str(convert(number)), fixes)
            except (ArithmeticError, LookupError, ValueError, TypeError):
                # num2words has limits (ordinals past its largest scale word, years <0):
                # read such a number digit by digit rather than fail.
                words = self.digits(str(number)) if number >= 0 else self.cardinal(number)
            self._cache[key] = words
        return words
