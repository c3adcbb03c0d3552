"""Find numbers, units, times, dates, money and abbreviations in text and say them in words.

`Reader(language).read(text)` runs the passes of `PASSES` in order, most specific first (dates
before times before money before plain numbers), so each pass sees only the digits the earlier
ones left. The last pass reads any digit still there, so none reaches the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import address, amounts, clock, codes, dates, plain, roman, scales
from .context import Context, Pass
from .spelling import apply_fixes, compile_fixes
from .tables import Language

PASSES: tuple[Callable[[Context], Pass | None], ...] = (
    amounts.vulgar_fraction,  # "1½" -> "1 1/2", read by `amounts.fraction`
    scales.magnitude,  # "3,5 Mio. €", "$2.3M", "8K": before money, units and abbreviations
    codes.abbreviation,  # before anything reads the number after "No." or "Nr."
    roman.roman,  # "Henry VIII", "XVIe siècle": after "Pope", "St." are words
    scales.product_name,  # "Xbox 360" before its digits are a number
    dates.weekday,  # "Mo-Fr 9-17 Uhr": after "Fr. Müller" became "Frau Müller"
    codes.number_sign,
    codes.symbol_word,  # "±2 °C" -> "plus or minus 2 °C", "≥ 75 %" -> "at least 75 %"
    codes.comparison,  # "< 5 °C", "~3 h": only before a number are "<", ">" and "~" words
    address.postcode,  # before dates and ranges: "4050-123 Porto" is no range
    address.house_number,  # before units: "Hauptstraße 17 A" is no current
    address.house_pairs,  # "2140 Oak Street": after "St" became "Street"
    address.room,  # "Raum 3.07": no decimal, no date
    plain.unsaid_sign,  # "up +3.5%" -> "up 3.5%"
    plain.unsaid_sign_after,  # "un +3,5 % más" -> "un 3,5 % más"
    dates.iso_date,
    dates.numeric_date,
    dates.day_month_dots,
    dates.day_month,
    dates.month_day,
    plain.plus_between,  # "45+3", before "45′" is read as minutes  # noqa: RUF003
    clock.special_after,  # "a las 12:00" -> "al mediodía", not "a las mediodía"
    clock.twelve_hour_range,  # "11 PM-7 AM" before each end is read alone
    clock.twelve_hour,
    clock.duration,  # "1 h 30 min" before "1 h" is read as one o'clock
    clock.remaining,  # "noch 1:25 h", "demora 3h05": before clock times take them
    clock.minutes,  # "0:45 h", "45′" before `clock` reads a time  # noqa: RUF003
    clock.cycle,
    clock.clock_range,
    clock.colon_range,  # "9:00–10:30" before each end is read alone  # noqa: RUF003
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
    dates.decade_suffix,
    dates.decade_after,
    scales.dimension,  # "4 x 5 m" before `with_unit` reads "5 m" alone
    amounts.per_unit,  # "6,5 l/100 km" before `with_unit` reads "100 km" alone
    amounts.with_unit,
    plain.ordinal,
    plain.ordinal_dot,
    amounts.half_after_noun,  # "2 1/2 tazas" before `fraction` reads "2 1/2"
    amounts.fraction,
    plain.range_dash,
    plain.range_hyphen,
    plain.product,
    scales.multiplier,  # "5×", "3x": after products and dimensions took theirs  # noqa: RUF003
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
