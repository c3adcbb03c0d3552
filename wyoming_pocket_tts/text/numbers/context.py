"""What every reading pass shares: one language's words, lookup tables and pattern pieces.

A pass is a compiled pattern and the handler that replaces its matches. Topic modules (`dates`,
`clock`, `amounts`, `scales`, `codes`, `address`, `roman`, `plain`) build passes from a
`Context`; `reader` runs them in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .agreement import Agreement
from .tables import Currency, Language, Noun
from .words import Words

Handler = Callable[[re.Match[str]], str]

UNIT_ALIASES = {
    "℃": "°C",
    "℉": "°F",
    "ºC": "°C",
    "ºF": "°F",
    "° C": "°C",
    "° F": "°F",
    "L": "l",
    "mL": "ml",
    "μg/m³": "µg/m³",
    "μg/m3": "µg/m³",
    "µg/m3": "µg/m³",
    "ug/m³": "µg/m³",
    "ug/m3": "µg/m³",
    "m3": "m³",
    "m2": "m²",
    "qm": "m²",
    "μg": "µg",
    "mcg": "µg",
    "m3/h": "m³/h",
    "W/m2": "W/m²",
    "kwh": "kWh",
    "KWh": "kWh",
    "kph": "km/h",
    "km/u": "km/h",
    "lux": "lx",
    "sec": "s",
    "L/min": "l/min",
    "Mbps": "Mbit/s",
    "Gbps": "Gbit/s",
}
"""Other spellings of the units the tables name."""
CURRENCY_ALIASES = {"EUR": "€", "USD": "$", "US$": "$", "GBP": "£", "Fr.": "CHF"}
CONTEXT = 40
"""Characters of context a handler looks at around its match (bounded: no quadratic time)."""
SPACE = "[ \u00a0\u202f]?"
DASHES = "-–—"  # noqa: RUF001
LEAD = r"(?=[-+\u22120-9])"
"""Every pattern starts with a look-ahead for its first character: Python's regex engine then
skips other positions fast (a leading look-behind or optional group makes a pass ~4x slower)."""


@dataclass(frozen=True)
class Pass:
    """One pattern and what replaces each of its matches."""

    pattern: re.Pattern[str]
    handle: Handler


def alternation(options: Iterable[str]) -> str:
    """A regex alternative of literal strings, longest first."""
    return "|".join(re.escape(option) for option in sorted(options, key=len, reverse=True))


def before(match: re.Match[str]) -> str:
    """The few characters before a match: enough to see the word before it."""
    return match.string[max(0, match.start() - CONTEXT) : match.start()]


def after(match: re.Match[str]) -> str:
    """The few characters after a match."""
    return match.string[match.end() : match.end() + CONTEXT]


_NEXT_WORD = re.compile(r"\s*(\S*)")


def starts_sentence(rest: str, language: Language) -> bool:
    """Whether the text after a full stop ("2 Mio.", "am 14.") begins a new sentence: nothing
    follows, or a capitalised word that is no currency code; in German, whose nouns are
    capitalised, only one of its `openers` ("Die", "Danach"), not "Besucher"."""
    word = _NEXT_WORD.match(rest)
    following = word.group(1).rstrip(".,;:!?") if word else ""
    if not following:
        return not rest.strip()
    if not following[0].isupper() or following in {*language.currencies, *CURRENCY_ALIASES}:
        return False
    return following in language.openers if language.openers else True


def place(match: re.Match[str], words: str) -> str:
    """Put words where the match was, spaced from letters or digits it touched."""
    text, start, end = match.string, match.start(), match.end()
    if start > 0 and text[start - 1].isalnum():
        words = " " + words
    if end < len(text) and text[end].isalnum():
        words += " "
    return words


class Context:
    """One language's words, units and currencies (with aliases) and the number patterns."""

    def __init__(self, language: Language) -> None:
        self.language = language
        self.words = Words(language)
        self.agreement = Agreement(language.genders)
        self.months = {month.lower(): index for index, month in enumerate(language.months, 1)}
        self.units: dict[str, Noun] = {
            **{
                alias: language.units[unit]
                for alias, unit in UNIT_ALIASES.items()
                if unit in language.units
            },
            **language.units,
        }
        self.currencies: dict[str, Currency] = {
            **{
                alias: language.currencies[code]
                for alias, code in CURRENCY_ALIASES.items()
                if code in language.currencies
            },
            **language.currencies,
        }
        group_sep = "[,.'’\u00a0\u202f" + (" " if language.space_groups else "") + "]"  # noqa: RUF001
        self.num = (
            r"(?<![0-9])(?<![0-9][.,/])"
            rf"(?:[0-9]{{1,3}}(?:{group_sep}[0-9]{{3}})+(?:[.,][0-9]+)?|[0-9]+(?:[.,][0-9]+)?)"
            r"(?![0-9]|[.,][0-9])"
        )
        """A written number: "1,250.5", "21,5", "2 500" (where spaces group thousands)."""
        sign = r"(?:(?<![\w.,:/+\-\u2212])[-+]|\u2212)?"
        self.signed = rf"{LEAD}{sign}{self.num}"
        """A number with its sign, when the sign is not a hyphen after a word."""

    def gender(self, match: re.Match[str]) -> str | None:
        """Gender (and German case) of the noun counted by the number `match` found."""
        return self.agreement.of(before(match), after(match))

    def case(self, match: re.Match[str]) -> str:
        """ ".acc", ".dat" or "": the German case the word before `match` calls for."""
        return self.agreement.case(before(match))

    def compile(self, pattern: str, handle: Handler) -> Pass:
        """A pass from its pattern and handler."""
        return Pass(re.compile(pattern), handle)
