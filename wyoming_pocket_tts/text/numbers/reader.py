"""Find numbers, units, times, dates, money and abbreviations in text and say them in words.

`Reader(language).read(text)` runs the passes of `PASSES` in order, most specific first (dates
before times before money before plain numbers), so each pass sees only the digits the earlier
ones left. The last pass reads any digit still there, so none reaches the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import address, amounts, clock, codes, dates, plain
from .context import Context, Pass
from .spelling import apply_fixes, compile_fixes
from .tables import Language

PASSES: tuple[Callable[[Context], Pass | None], ...] = (
    amounts.vulgar_fraction,  # "1½" -> "1 1/2", read by `amounts.fraction`
    codes.abbreviation,  # before anything reads the number after "No." or "Nr."
    dates.weekday,  # "Mo-Fr 9-17 Uhr": after "Fr. Müller" became "Frau Müller"
    codes.number_sign,
    codes.symbol_word,  # "±2 °C" -> "plus or minus 2 °C", "≥ 75 %" -> "at least 75 %"
    codes.comparison,  # "< 5 °C", "~3 h": only before a number are "<", ">" and "~" words
    address.postcode,  # before dates and ranges: "4050-123 Porto" is no range
    address.house_number,  # before units: "Hauptstraße 17 A" is no current
    address.room,  # "Raum 3.07": no decimal, no date
    plain.unsaid_sign,  # "up +3.5%" -> "up 3.5%"
    plain.unsaid_sign_after,  # "un +3,5 % más" -> "un 3,5 % más"
    dates.iso_date,
    dates.numeric_date,
    dates.day_month_dots,
    dates.day_month,
    dates.month_day,
    clock.special_after,  # "a las 12:00" -> "al mediodía", not "a las mediodía"
    clock.twelve_hour_range,  # "11 PM-7 AM" before each end is read alone
    clock.twelve_hour,
    clock.duration,  # "1 h 30 min" before "1 h" is read as one o'clock
    clock.cycle,
    clock.clock_range,
    clock.hour_letter,
    clock.clock_word,
    clock.clock,
    codes.phone,  # before money and units: "+49 170 1234567" holds no amount
    codes.flight,  # "LH 1234" digit by digit
    amounts.swiss_dash,  # "CHF 12.-" -> "CHF 12"
    amounts.money_before,
    amounts.money_after,
    codes.dotted,  # "2.13.0" before units: "2.13.0 m" is a version, not metres
    dates.decade,
    amounts.per_unit,  # "6,5 l/100 km" before `with_unit` reads "100 km" alone
    amounts.with_unit,
    plain.ordinal,
    plain.ordinal_dot,
    amounts.fraction,
    plain.range_dash,
    plain.range_hyphen,
    plain.product,
    plain.pair,
    plain.cardinal,
    plain.symbol,
    plain.digit,
    amounts.unit_alone,  # "€/kWh", "per kWh": after every number has taken its own unit
)
"""The reading passes, in the order they run; the docstring above says why this order."""


class Reader:
    """Reads numbers aloud in one language; build once, use from any thread."""

    def __init__(self, language: Language) -> None:
        self.context = Context(language)
        self.words = self.context.words
        self._passes = [built for build in PASSES if (built := build(self.context)) is not None]
        self._text_fixes = compile_fixes(language.text_fixes)

    def read(self, text: str) -> str:
        """Return `text` with every number, unit, time, date, amount and abbreviation in words."""
        original = text
        for step in self._passes:
            text = step.pattern.sub(step.handle, text)
        if text != original:
            text = apply_fixes(re.sub(r"(?<=\S) {2,}(?=\S)", " ", text), self._text_fixes)
        return text
