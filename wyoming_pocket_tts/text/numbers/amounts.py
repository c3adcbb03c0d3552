"""Amounts: money, numbers with units, fractions ("€0.38", "21.5 °C", "5-10 °C", "1 1/2")."""

from __future__ import annotations

import re

from .context import DASHES, SPACE, Context, Pass, after, alternation, before, place
from .spelling import apply_fixes, compile_fixes
from .tables import Currency, Noun
from .words import Number

_ELIDED_OF = ("d'", "d\u2019")
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


def swiss_dash(c: Context) -> Pass:
    """Swiss "CHF 12.-" (any dash), "5.- Fr.": no centimes; the money passes read the rest."""
    pattern = rf"(?=[.,])(?<=[0-9])[.,][{DASHES}]{{1,2}}(?![{DASHES}\w]|[ \u00a0]?[0-9])"
    return c.compile(pattern, lambda _: "")


def _money(c: Context, match: re.Match[str], currency: Currency, amount: str) -> str:
    words, case = c.words, c.case(match)
    number = words.parse(amount)
    major, minor = currency.major, currency.minor
    if number.fraction and len(number.fraction) > 2:
        if number.whole == 0:  # "0,2534 €": "vingt-cinq virgule trente-quatre centimes"
            in_minor = Number(number.sign, int(number.fraction[:2]), number.fraction[2:])
            return place(match, words.counted(in_minor, minor, case))
        return place(match, words.counted(number, major, case))
    cents = int(number.fraction.ljust(2, "0")) if number.fraction else 0
    whole = Number(number.sign, number.whole)
    if number.whole == 0 and cents:
        return place(match, words.counted(Number(number.sign, cents), minor, case))
    major_words = words.counted(whole, major, case)
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


def per_unit(c: Context) -> Pass:
    """ "15 kWh/100 km", "6,5 l/100 km", "45 kWh/m²", "18 km/l", "30 kWh/Monat": "/" is "per".

    A pair that is one unit of the tables ("km/h", "m³/h") is left to `with_unit`."""
    lang, words = c.language, c.words
    units = alternation(c.units)
    count_fixes = compile_fixes(lang.per_count_fixes)
    pattern = (
        rf"({c.signed}){SPACE}({units})/{SPACE}(?:({c.num}){SPACE})?"
        rf"({units}|[^\W\d_]{{2,}})(?![^\W\d_]|[0-9²³/])"
    )

    def read(match: re.Match[str]) -> str:
        first, count, second = match.group(2), match.group(3), match.group(4)
        if not count and f"{first}/{second}" in c.units:
            return match.group()
        spoken = words.counted(words.parse(match.group(1)), c.units[first], c.case(match))
        noun = c.units.get(second) or Noun(second, second)
        if count:
            counted = apply_fixes(words.counted(words.parse(count), noun), count_fixes)
            return place(match, f"{spoken} {lang.per_count_word or lang.per_word} {counted}")
        return place(match, f"{spoken} {lang.per_word} {noun.singular}")

    return c.compile(pattern, read)


def with_unit(c: Context) -> Pass:
    """ "21.5 °C", "1 kWh", "5-10 °C": the unit agrees with the number (and the range's end)."""
    pattern = (
        rf"({c.signed})(?:{SPACE}[{DASHES}]{SPACE}({c.signed}))?{SPACE}({alternation(c.units)})"
        r"(?![^\W\d_]|[0-9/²³])"
    )

    feminine = compile_fixes(c.language.feminine_ordinal)

    def read(match: re.Match[str]) -> str:
        noun = c.units[match.group(3)]
        words = c.words
        if match.group(3) == "°" and not match.group(2) and _is_ordinal_sign(c, match):
            ordinal = words.spell.ordinal(int(match.group(1)))
            if c.gender(match) == "f":
                ordinal = apply_fixes(ordinal, feminine)
            return place(match, ordinal)
        spoken = words.counted(words.parse(match.group(2) or match.group(1)), noun, c.case(match))
        if match.group(2):
            first = words.number_words(words.parse(match.group(1)), noun.gender)
            spoken = f"{first} {c.language.range_word} {spoken}"
        return place(match, spoken)

    return c.compile(pattern, read)


def unit_alone(c: Context) -> Pass:
    """ "€/kWh", "per kWh", "le kWh", "in km/h": a unit with no number before it, in full."""
    lang = c.language
    spelled = [unit for unit in c.units if _is_symbol(unit)]
    worded = alternation(
        unit for unit in c.units if not _is_symbol(unit)
    )  # "/min", not before a word
    compound = [unit for unit in c.units if re.search(r"[/²³°µ]", unit) and len(unit) > 1]
    cues = alternation(lang.unit_cues) if lang.unit_cues else "(?!)"
    firsts = "".join(sorted({re.escape(cue[0] + cue[0].upper()) for cue in lang.unit_cues}))
    units = "".join(sorted({re.escape(unit[0]) for unit in compound}))
    pattern = (
        rf"(?=[/{firsts}{units}])"
        rf"(?:(?<![\w/])({alternation(compound)})"
        rf"|/[ \u00a0\u202f]*({alternation(spelled)}|(?:{worded})(?![ \u00a0][^\W\d_]))"
        rf"|(?i:\b({cues}))[ \u00a0]+({alternation(spelled)}))"
        r"(?![^\W\d_]|[²³])"
    )

    def read(match: re.Match[str]) -> str:
        if match.group(1):
            return place(match, c.units[match.group(1)].plural)  # "in km/h"
        if match.group(2):
            return place(match, f" {lang.per_word} {c.units[match.group(2)].singular}")
        return place(match, f"{match.group(3)} {c.units[match.group(4)].singular}")

    return c.compile(pattern, read)


def _is_symbol(unit: str) -> bool:
    """A unit no one would take for a word: "kWh", "°C", "km/h" (not "bar", "min", "km").

    Lower-case letters alone stay as written after "per" or "le": text of plain words without
    digits or signs is never changed."""
    return len(unit) > 1 and not (unit.isalpha() and unit.islower())


def _is_ordinal_sign(c: Context, match: re.Match[str]) -> bool:
    """Italian "al 2° piano": "°" between a determiner and a noun marks an ordinal."""
    cues = c.language.ordinal_sign_cues
    previous = re.search(r"(\w+)\W?$", before(match))
    return (
        bool(cues)
        and match.group(1).isdigit()
        and previous is not None
        and previous.group(1).lower() in cues
        and c.gender(match) is not None
    )


def fraction(c: Context) -> Pass:
    """ "1/2", "3/4", "1 1/2 cups", "1/2 kg" ("medio kilogramo"), "1/2 Liter" ("ein halber")."""
    pattern = (
        r"(?=[0-9])(?<![0-9.,/])(?:([0-9]+) )?([1-9])/([2-9]|10)(?![0-9/]|[.,][0-9])"
        rf"(?:{SPACE}({alternation(c.units)})(?![^\W\d_]|[0-9/²³]))?"
    )
    lang, words = c.language, c.words

    def read(match: re.Match[str]) -> str:
        whole, numerator, denominator = match.group(1), int(match.group(2)), int(match.group(3))
        if numerator >= denominator:
            return match.group()
        unit = c.units[match.group(4)] if match.group(4) else None
        gender = unit.gender + c.case(match) if unit else c.gender(match)
        if whole:
            return place(match, mixed(c, int(whole), numerator, denominator, unit))
        if numerator == 1 and denominator == 2 and gender is not None and lang.half:
            half = lang.half.get(gender) or lang.half.get(gender.split(".")[0], "")
            if half.endswith(" a") and _vowel_next(unit.singular if unit else after(match)):
                half += "n"
            return place(match, f"{half} {unit.singular}" if unit else half)
        noun = lang.fractions.get(denominator) or words.fraction_noun(denominator)
        if numerator == 1 and denominator == 2 and lang.half.get(""):
            spoken = lang.half[""]
        elif numerator == 1 and lang.fraction_one:
            spoken = f"{lang.fraction_one} {noun.singular}"
        else:
            spoken = words.counted(Number("", numerator), noun)
        if gender is not None and lang.fraction_of and _needs_of(lang.fraction_of, after(match)):
            spoken += f" {lang.fraction_of}"
        return place(match, f"{spoken} {unit.singular}" if unit else spoken)

    return c.compile(pattern, read)


def half_after_noun(c: Context) -> Pass | None:
    """ "2 ½ tazas" -> "dos tazas y media": where the half follows the noun it counts (French,
    Spanish, Italian, Portuguese); a unit ("2 1/2 h") is left to `fraction`."""
    lang = c.language
    if not lang.half_after:
        return None
    pattern = (  # not "2 ½ c. à s.": a dot before a lower-case word marks an abbreviation
        r"(?=[0-9])(?<![0-9.,/])([0-9]+) 1/2[ \u00a0]([^\W\d_]+)"
        r"(?!\w|\.[ \u00a0]?[^\W\d_A-ZÀ-ÖØ-Þ])"
    )

    def read(match: re.Match[str]) -> str:
        whole, noun = match.groups()
        if noun in c.units or noun in c.currencies:
            return match.group()
        gender = c.agreement.noun_gender(noun) or "m"
        half = lang.half_after.get(gender, lang.half_after["m"])
        counted = c.words.cardinal(int(whole), gender)
        if int(whole) == 1:  # "1 ½ tazas": "una taza y media"
            noun = next(
                (
                    noun[: -len(plural)] + one
                    for plural, one in lang.genders.singular
                    if noun.endswith(plural) and len(noun) > len(plural) + 1
                ),
                noun,
            )
        return place(match, f"{counted} {noun} {lang.and_word} {half}")

    return c.compile(pattern, read)


def _needs_of(of: str, rest: str) -> bool:
    """ "tres cuartos de hora", not "de de hora" nor "de d'heure" (elided: left as written)."""
    word = rest.strip().lower()
    elided = word.startswith(_ELIDED_OF) or (of == "de" and word[:1] in "aeiouhéè")
    return not word.startswith(of + " ") and not elided


def _vowel_next(text: str) -> bool:
    """English "half an hour", "half an inch" but "half a euro", "half a unit"."""
    word = text.strip().lower()
    return word.startswith(("a", "e", "i", "o", "hour")) and not word.startswith(("eu", "one"))


def _join_half(c: Context, word: str) -> str:
    """Dutch "twee" + "enhalf" -> "tweeënhalf"."""
    return re.sub(r"(?<=[ei])eenhalf$", "eënhalf", word) if c.language.code == "nl" else word


def mixed(c: Context, whole: int, numerator: int, denominator: int, unit: Noun | None) -> str:
    """ "1 1/2": "one and a half"; with a unit "una hora y media", "one and a half hours"."""
    lang, words = c.language, c.words
    if unit and numerator == 1 and denominator == 2 and lang.half_after:
        half = lang.half_after.get(unit.gender, lang.half_after["m"])
        return f"{words.counted(Number('', whole), unit)} {lang.and_word} {half}"
    one, more = lang.mixed_half
    if numerator == 1 and denominator == 2 and one:  # "eineinhalb Stunden", "tweeënhalf uur"
        spoken = one if whole == 1 else _join_half(c, more.format(whole=words.cardinal(whole)))
        return f"{spoken} {unit.plural}" if unit else spoken
    noun = lang.fractions.get(denominator) or words.fraction_noun(denominator)
    if numerator == 1 and lang.mixed_one:
        part = f"{lang.mixed_one} {noun.singular}"
    elif numerator == 1 and lang.fraction_one:
        part = f"{lang.fraction_one} {noun.singular}"
    else:
        part = words.counted(Number("", numerator), noun)
    spoken = f"{words.cardinal(whole)} {lang.and_word} {part}"
    return f"{spoken} {unit.plural}" if unit else spoken
