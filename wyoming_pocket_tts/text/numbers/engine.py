"""Find numbers, units, times, dates, money and abbreviations in text and say them in words.

`Reader(language).read(text)` runs a fixed series of regular-expression passes, most specific
first (dates before times before money before plain numbers), so each pass sees only digits the
earlier ones left. A last pass reads any digit still there, so none reaches the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .spelling import apply_fixes, compile_fixes
from .tables import Currency, Language
from .words import Number, Words, parse_number

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
_VULGAR_FRACTIONS = {"½": "1/2", "¼": "1/4", "¾": "3/4", "⅓": "1/3", "⅔": "2/3", "⅛": "1/8"}
SYMBOLS = "%€$£°℃℉−½¼¾⅓⅔⅛"  # noqa: RUF001
"""Characters that are read even without a digit next to them."""
_CONTEXT = 40
"""Characters of context a handler looks at around its match (bounded: no quadratic time)."""
_NAME_NEXT = re.compile(r"\s+(?=[A-ZÀ-ÖØ-Þ])")
_DASHES = "-–—"  # noqa: RUF001

Handler = Callable[[re.Match[str]], str]
__all__ = ["Number", "Reader", "parse_number"]


def _before(match: re.Match[str]) -> str:
    """The few characters before a match: enough to see the word before it."""
    return match.string[max(0, match.start() - _CONTEXT) : match.start()]


def _after(match: re.Match[str]) -> str:
    return match.string[match.end() : match.end() + _CONTEXT]


def _alternation(options: object) -> str:
    return "|".join(re.escape(option) for option in sorted(options, key=len, reverse=True))  # type: ignore[call-overload]


class Reader(Words):
    """Reads numbers aloud in one language; build once, use from any thread."""

    def __init__(self, language: Language) -> None:
        super().__init__(language)
        self._feminine_ordinal = compile_fixes(language.feminine_ordinal)
        self._text_fixes = compile_fixes(language.text_fixes)
        self._abbreviations = {entry.written: entry for entry in language.abbreviations}
        self._months = {month.lower(): index for index, month in enumerate(language.months, 1)}
        self._units = {
            **{
                alias: language.units[unit]
                for alias, unit in UNIT_ALIASES.items()
                if unit in language.units
            },
            **language.units,
        }
        self._currencies = {
            **{
                alias: language.currencies[code]
                for alias, code in CURRENCY_ALIASES.items()
                if code in language.currencies
            },
            **language.currencies,
        }
        self._passes = self._compile()

    # Public.

    def read(self, text: str) -> str:
        """Return `text` with every number, unit, time, date, amount and abbreviation in words."""
        original = text
        for pattern, handler in self._passes:
            text = pattern.sub(handler, text)
        if text != original:
            text = apply_fixes(re.sub(r"(?<=\S) {2,}(?=\S)", " ", text), self._text_fixes)
        return text

    # Building the passes.

    def _compile(self) -> list[tuple[re.Pattern[str], Handler]]:
        lang = self.language
        group_sep = "[,.'’\u00a0\u202f" + (" " if lang.space_groups else "") + "]"  # noqa: RUF001
        num = (
            r"(?<![0-9])(?<![0-9][.,/])"
            rf"(?:[0-9]{{1,3}}(?:{group_sep}[0-9]{{3}})+(?:[.,][0-9]+)?|[0-9]+(?:[.,][0-9]+)?)"
            r"(?![0-9]|[.,][0-9])"
        )
        sign = r"(?:(?<![\w.,:/+\-\u2212])[-+]|\u2212)?"
        # Every pattern starts with a look-ahead for its first character: Python's regex engine
        # then skips other positions fast (a leading look-behind or optional group makes each
        # pass about four times slower).
        lead = r"(?=[-+\u22120-9])"
        signed = rf"{lead}{sign}{num}"
        fractions = "".join(_VULGAR_FRACTIONS)
        month_letters = "".join(
            sorted({month[0].lower() + month[0].upper() for month in lang.months})
        )
        currency_firsts = "".join(sorted({re.escape(code[0]) for code in self._currencies}))
        space = "[ \u00a0\u202f]?"
        months = _alternation(lang.months)
        units = _alternation(self._units)
        currencies = _alternation(self._currencies)
        suffixes = _alternation(lang.ordinal_suffixes)
        dashes = f"[{_DASHES}]"
        passes: list[tuple[str, Handler]] = [
            (f"(?=[0-9{fractions}])([0-9]?)([{fractions}])", self._vulgar_fraction),
        ]
        if self._abbreviations:
            written = _alternation(self._abbreviations)
            first = "".join(sorted({re.escape(form[0]) for form in self._abbreviations}))
            passes.append((rf"(?=[{first}])(?<![^\W\d_.])({written})(?!\w)", self._abbreviation))
        passes += [
            (r"#(?=[0-9])", lambda m: lang.number_word + " "),
            (
                r"(?=[12])(?<![0-9\-.])([12][0-9]{3})-(0?[1-9]|1[0-2])-(0?[1-9]|[12][0-9]|3[01])"
                r"(T(?=[0-9]))?(?![0-9])",
                self._iso_date,
            ),
            (
                r"(?=[0-9])(?<![0-9.,/\-])([0-9]{1,2})([./\-])([0-9]{1,2})\2([0-9]{4}|[0-9]{2})"
                r"(?![0-9]|[.,/\-][0-9])",
                self._numeric_date,
            ),
        ]
        if lang.ordinal_dot_cues:
            passes.append(
                (
                    r"(?=[0-9])(?<![0-9.,])([0-9]{1,2})\.([0-9]{1,2})\.(?![0-9])",
                    self._day_month_dots,
                )
            )
        day_suffix = f"(?:{suffixes}|\\.|º|°)?" if suffixes else r"(?:\.|º|°)?"
        passes.append(
            (
                rf"(?=[0-9])(?<![0-9.,])([0-9]{{1,2}})({day_suffix})[ \u00a0]((?:de |of )?)"
                rf"(?i:({months}))\b",
                self._day_month,
            )
        )
        if lang.month_first:
            passes.append(
                (
                    rf"(?=[{month_letters}])\b(?i:({months}))[ \u00a0]([0-9]{{1,2}})"
                    rf"(?:{suffixes})?(?:,? ([0-9]{{4}}))?"
                    r"(?![0-9]|[.,][0-9])",
                    self._month_day,
                )
            )
        ampm = r"a\.m\.|p\.m\.|a\. m\.|p\. m\.|AM|PM"
        if lang.time.twelve_hour:
            ampm += "|am|pm|a\\.m|p\\.m"
        passes.append(
            (
                rf"(?=[0-9])(?<![0-9:.,/])([0-9]{{1,2}})(?::([0-5][0-9]))?(?:{space}({ampm})|(am|pm))"
                r"(?![\w])",
                self._twelve_hour,
            )
        )
        if lang.hour_letter:
            passes.append(
                (
                    r"(?=[0-9])(?<![0-9.,:/])([0-9]{1,2}) ?h ?([0-5][0-9])?(?![\w])",
                    self._hour_letter,
                )
            )
        if lang.clock_words:
            clock = _alternation(lang.clock_words)
            passes.append(
                (
                    rf"(?=[0-9])(?<![0-9.,:/])([0-9]{{1,2}})(?:[.:]([0-5][0-9]))?{space}(?:{clock})\b",
                    self._clock_word,
                )
            )
        passes += [
            (
                r"(?=[0-9])(?<![0-9.,:/])([01]?[0-9]|2[0-4]):([0-5][0-9])(?::([0-5][0-9]))?"
                r"(?![0-9]|[.,:][0-9])",
                self._clock,
            ),
            (
                r"(?=[+(0-9])(?:(?<![\w+])\+[0-9]{1,3}(?:[ \-./]?\(?[0-9]{1,5}\)?){2,6}(?![0-9])"
                r"|(?<![\w])(?<![0-9] )\(?0[0-9]{1,4}\)?[ \-/][0-9]{2,}(?:[ \-][0-9]{2,})*(?![0-9])"
                r"|(?<![\w(])\(?[0-9]{3}\)?[ .\-][0-9]{3}[ .\-][0-9]{4}(?![0-9]))",
                self._phone,
            ),
            (
                rf"(?=[{currency_firsts}])(?<![\w])({currencies}){space}({signed})",
                self._money_before,
            ),
            (rf"{lead}({signed}){space}({currencies})(?![\w])", self._money_after),
            (r"(?=[0-9])(?<![0-9.,])[0-9]+(?:\.[0-9]+){2,}(?![0-9]|\.[0-9])", self._dotted),
        ]
        if lang.decades:
            passes.append((r"(?=['0-9])(?<![0-9\w])'?((?:1[0-9]|20)?[0-9]0)s\b", self._decade))
        passes += [
            (
                rf"{lead}({signed})(?:{space}{dashes}{space}({signed}))?{space}({units})"
                r"(?![^\W\d_]|[0-9/²³])",
                self._with_unit,
            ),
        ]
        if suffixes:
            passes.append(
                (rf"(?=[0-9])(?<![0-9.,])([0-9]+)({suffixes})(?![\w])", self._ordinal),
            )
        if lang.ordinal_dot_cues:
            cues = _alternation(lang.ordinal_dot_cues)
            passes.append((rf"(?i:\b({cues}))\s([0-9]{{1,3}})\.(?=\s+[^\W\d_])", self._ordinal_dot))
        passes += [
            (
                r"(?=[0-9])(?<![0-9.,/])(?:([0-9]+) )?([1-9])/([2-9]|10)(?![0-9/]|[.,][0-9])",
                self._fraction,
            ),
            (rf"{lead}({signed}){space}[–—]{space}({signed})", self._range),  # noqa: RUF001
            (rf"{lead}({signed}) ?- ?({num})", self._range),
            (rf"{lead}({signed}) ?[*\u00d7] ?({signed})", self._times),
            (r"(?=[0-9])([0-9]+)([:/])([0-9]+)", self._pair),
            (signed, self._plain),
            (f"[{SYMBOLS}]", self._symbol),
            (r"[0-9]", lambda m: self._place(m, self.spell.cardinal(int(m.group())))),
        ]
        return [(re.compile(pattern), handler) for pattern, handler in passes]

    # Words.

    def _ordinal(self, match: re.Match[str]) -> str:
        number, suffix = int(match.group(1)), match.group(2)
        lang = self.language
        if number == 1 and suffix in lang.first_ordinals:
            words = lang.first_ordinals[suffix]
        else:
            words = self.spell.ordinal(number)
            if lang.ordinal_suffixes.get(suffix) == "f":
                words = apply_fixes(words, self._feminine_ordinal)
        return self._place(match, words)

    def _date(self, match: re.Match[str], day: int, month: int, year: int | None) -> str:
        lang = self.language
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return match.group()
        before = _before(match)
        template = lang.date if year is not None else lang.date_no_year
        words = template.format(
            day=self._day(day, before),
            month=lang.months[month - 1],
            year=self._year(year) if year is not None else "",
        )
        return self._place(match, words)

    # Pass handlers.

    @staticmethod
    def _place(match: re.Match[str], words: str) -> str:
        """Put words where the match was, spaced from letters or digits it touched."""
        text, start, end = match.string, match.start(), match.end()
        if start > 0 and text[start - 1].isalnum():
            words = " " + words
        if end < len(text) and text[end].isalnum():
            words += " "
        return words

    def _vulgar_fraction(self, match: re.Match[str]) -> str:
        whole = match.group(1)
        fraction = _VULGAR_FRACTIONS[match.group(2)]
        return f"{whole} {fraction}" if whole else fraction

    def _abbreviation(self, match: re.Match[str]) -> str:
        entry = self._abbreviations[match.group(1)]
        rest = _after(match)
        if entry.before_digit and not re.match(r"[ \u00a0]?[0-9]", rest):
            return match.group()
        if entry.before_name and not _NAME_NEXT.match(rest):
            return match.group()
        spoken = entry.spoken
        if match.group()[0].isupper():
            spoken = spoken[0].upper() + spoken[1:]
        ends_sentence = not rest.strip() or _NAME_NEXT.match(rest.replace("\n", " ")) is not None
        if entry.can_end and entry.written.endswith(".") and ends_sentence:
            spoken += "."
        return spoken

    def _iso_date(self, match: re.Match[str]) -> str:
        year, month, day = (int(match.group(index)) for index in (1, 2, 3))
        words = self._date(match, day, month, year)
        if match.group(4) and words != match.group():
            words += " "
        return words

    def _numeric_date(self, match: re.Match[str]) -> str:
        first, second, year_text = int(match.group(1)), int(match.group(3)), match.group(4)
        year = int(year_text) + (2000 if len(year_text) == 2 else 0)
        if self.language.month_first and first <= 12:
            first, second = second, first
        return self._date(match, first, second, year)

    def _day_month_dots(self, match: re.Match[str]) -> str:
        before = _before(match)
        previous = re.search(r"(\w+)\W*$", before)
        if not previous or previous.group(1).lower() not in self.language.ordinal_dot_cues:
            return match.group()
        return self._date(match, int(match.group(1)), int(match.group(2)), None)

    def _day_month(self, match: re.Match[str]) -> str:
        lang = self.language
        day = int(match.group(1))
        if not 1 <= day <= 31:
            return match.group()
        month = lang.months[self._months[match.group(4).lower()] - 1]
        day_words = self._day(day, _before(match))
        if match.group(3):  # "1 de diciembre", "21st of May": keep the source's wording
            words = f"{day_words} {match.group(3)}{month}"
        else:
            words = lang.day_month.format(day=day_words, month=month)
        return self._place(match, words)

    def _month_day(self, match: re.Match[str]) -> str:
        day = int(match.group(2))
        if not 1 <= day <= 31:
            return match.group()
        lang = self.language
        month = lang.months[self._months[match.group(1).lower()] - 1]
        year = match.group(3)
        template = lang.date if year else lang.date_no_year
        words = template.format(
            month=month, day=self._day(day, ""), year=self._year(int(year)) if year else ""
        )
        return self._place(match, words)

    def _twelve_hour(self, match: re.Match[str]) -> str:
        written = match.group(3) or match.group(4)
        meridiem = "am" if written.lower().startswith("a") else "pm"
        words = self._time(int(match.group(1)), int(match.group(2) or 0), None, meridiem)
        if not words:
            return match.group()
        rest = _after(match)
        if written.endswith(".") and (not rest or re.match(r"\s+[A-Z]", rest)):
            words += "."
        return self._place(match, words)

    def _hour_letter(self, match: re.Match[str]) -> str:
        hour = int(match.group(1))
        if hour > 24:
            return match.group()
        return self._place(match, self._time(hour, int(match.group(2) or 0), None, None))

    def _clock_word(self, match: re.Match[str]) -> str:
        hour = int(match.group(1))
        if hour > 24:
            return match.group()
        return self._place(match, self._time(hour, int(match.group(2) or 0), None, None))

    def _clock(self, match: re.Match[str]) -> str:
        second = match.group(3)
        words = self._time(
            int(match.group(1)), int(match.group(2)), int(second) if second else None, None
        )
        return self._place(match, words)

    def _phone(self, match: re.Match[str]) -> str:
        text = match.group()
        lang = self.language
        groups = []
        for group in re.findall(r"[0-9]+", text):
            if lang.pair_phone_groups and len(group) == 2 and group[0] != "0":
                groups.append(self._cardinal(int(group)))
            else:
                groups.append(self.spell.digits(group))
        words = lang.digits_separator.join(groups)
        if text.startswith("+"):
            words = f"{lang.plus} {words}"
        return self._place(match, words)

    def _money(self, match: re.Match[str], currency: Currency, amount: str) -> str:
        lang = self.language
        number = self._parse(amount)
        major, minor = currency.major, currency.minor
        if number.fraction and len(number.fraction) > 2:
            return self._place(match, self._counted(number, major))
        cents = int(number.fraction.ljust(2, "0")) if number.fraction else 0
        whole = Number(number.sign, number.whole)
        cents_number = Number(number.sign, cents)
        if number.whole == 0 and cents:
            return self._place(match, self._counted(cents_number, minor))
        major_words = self._counted(whole, major)
        if not cents:
            return self._place(match, major_words)
        words = lang.money_both.format(
            major=major_words,
            minor=self._counted(Number("", cents), minor),
            cents=self._cardinal(cents),
        )
        return self._place(match, words)

    def _money_before(self, match: re.Match[str]) -> str:
        return self._money(match, self._currencies[match.group(1)], match.group(2))

    def _money_after(self, match: re.Match[str]) -> str:
        return self._money(match, self._currencies[match.group(2)], match.group(1))

    def _dotted(self, match: re.Match[str]) -> str:
        parts = match.group().split(".")
        if len(parts[0]) <= 3 and all(len(part) == 3 for part in parts[1:]):
            return match.group()  # "1.234.567": thousands, read by the plain-number pass
        words = [
            self.spell.digits(part)
            if len(part) > 1 and part[0] == "0"
            else self._cardinal(int(part))
            for part in parts
        ]
        return self._place(match, f" {self.language.dot_word} ".join(words))

    def _decade(self, match: re.Match[str]) -> str:
        digits = match.group(1)
        number = int(digits)
        if len(digits) == 3 or (len(digits) == 4 and number < 1000):
            return match.group()
        words = self._year(number) if len(digits) == 4 else self._cardinal(number)
        words = words[:-1] + "ies" if words.endswith("y") else words + "s"
        return self._place(match, words)

    def _with_unit(self, match: re.Match[str]) -> str:
        noun = self._units[match.group(3)]
        last = self._parse(match.group(2) or match.group(1))
        words = self._counted(last, noun)
        if match.group(2):
            first = self.number_words(self._parse(match.group(1)), noun.gender)
            words = f"{first} {self.language.range_word} {words}"
        return self._place(match, words)

    def _ordinal_dot(self, match: re.Match[str]) -> str:
        cue = match.group(1)
        return f"{cue} {self._inflected_ordinal(int(match.group(2)), cue)}"

    def _fraction(self, match: re.Match[str]) -> str:
        whole, numerator, denominator = match.group(1), int(match.group(2)), int(match.group(3))
        if numerator >= denominator:
            return match.group()
        lang = self.language
        noun = lang.fractions.get(denominator) or self._fraction_noun(denominator)
        words = self._counted(Number("", numerator), noun)
        if whole and numerator == 1 and lang.mixed_one:
            words = f"{lang.mixed_one} {noun.singular}"
        if whole:
            words = f"{self._cardinal(int(whole))} {lang.and_word} {words}"
        return self._place(match, words)

    def _range(self, match: re.Match[str]) -> str:
        first = self.number_words(self._parse(match.group(1)))
        last = self.number_words(self._parse(match.group(2)))
        return self._place(match, f"{first} {self.language.range_word} {last}")

    def _times(self, match: re.Match[str]) -> str:
        first = self.number_words(self._parse(match.group(1)))
        last = self.number_words(self._parse(match.group(2)))
        return self._place(match, f"{first} {self.language.times_word} {last}")

    def _pair(self, match: re.Match[str]) -> str:
        first = self._cardinal(int(match.group(1)))
        last = self._cardinal(int(match.group(3)))
        joiner = f" {self.language.ratio_word} " if match.group(2) == ":" else " "
        return self._place(match, first + joiner + last)

    def _plain(self, match: re.Match[str]) -> str:
        text = match.group()
        lang = self.language
        if text.isdigit() and ((len(text) > 1 and text[0] == "0") or len(text) >= 10):
            return self._place(match, self.spell.digits(text))
        number = self._parse(text)
        before = _before(match)
        if (
            lang.year_cues
            and text.isdigit()
            and len(text) == 4
            and 1000 <= number.whole < 2100
            and (previous := re.search(r"(\w+)\W{0,2}$", before))
            and previous.group(1).lower() in lang.year_cues
        ):
            return self._place(match, self._year(number.whole))
        return self._place(match, self.number_words(number, self._next_gender(match)))

    def _next_gender(self, match: re.Match[str]) -> str | None:
        """The gender of the noun right after a number, if the tables know it."""
        lang = self.language
        following = re.match(r" ([^\W\d_]+)", _after(match))
        if following is None:
            return None
        word = following.group(1)
        if word.lower() in lang.feminine_nouns:
            return "f"
        if lang.nouns_are_capitalised and word[0].isupper():
            return "m"
        return None

    def _symbol(self, match: re.Match[str]) -> str:
        symbol = match.group()
        lang = self.language
        if symbol == "\u2212":
            return self._place(match, lang.minus)
        if symbol in self._currencies:
            return self._place(match, self._currencies[symbol].major.plural)
        if symbol in _VULGAR_FRACTIONS:
            return symbol
        noun = self._units.get(symbol)
        return self._place(match, noun.plural if noun else "")
