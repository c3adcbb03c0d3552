# ruff: noqa: RUF001, RUF002, RUF003  (the multiplication sign is the point)
"""Scales, dimensions and multipliers: "2.3M", "3,5 Mio. €", "R$ 3 bi", "4 x 5 m", "5×".

"8K" (a capital K glued to the number, no currency) is a screen resolution, not eight thousand;
a lower-case "x" glued between two numbers ("4x4") is a dimension, not a letter.
"""

from __future__ import annotations

import re

from .context import SPACE, Context, Pass, after, alternation, place, starts_sentence
from .tables import Magnitude
from .words import Number

_THOUSAND = 3
_SCREEN_WORDS = """
    tv video videos screen display monitor resolution camera fernseher auflösung bildschirm
    kamera télé téléviseur vidéo écran résolution caméra televisor pantalla vídeo resolución
    cámara televisore schermo risoluzione fotocamera televisão ecrã tela resolução câmara
    câmera televisie scherm beeldscherm resolutie
"""
SCREENS = frozenset(_SCREEN_WORDS.split())
"""Words after which a glued "4k" is a resolution too, as "4K" always is (lower case)."""


def magnitude(c: Context) -> Pass | None:
    """ "8k", "2.3M", "3,5 Mio.", "4 Mrd. €", "1,8 M€", "120 k€", "$2.3M", "R$ 3 bi", "8K"."""
    lang = c.language
    if "k" not in lang.magnitudes:
        return None
    scales = {**lang.magnitudes, "K": Magnitude(0, lang.magnitudes["k"].noun, glued=True)}
    currencies = alternation(c.currencies)
    firsts = "".join(sorted({re.escape(code[0]) for code in c.currencies}))
    pattern = (
        rf"(?=[{firsts}0-9+\-\u2212])(?:(?<![\w])({currencies}){SPACE})?({c.signed})"
        rf"({SPACE})({alternation(scales)})(?![^\W\d_])"
        rf"(?:{SPACE}({currencies})(?![\w]))?"
    )
    glued_next = re.compile(r"[ \u00a0]?(?:de |d'|d’|di )")

    def read(match: re.Match[str]) -> str:
        before_currency, amount, space, written, after_currency = match.groups()
        scale = scales[written]
        currency_code = before_currency or after_currency
        resolution = written == "k" and not space and _screen_next(match)
        if (written == "K" or resolution) and not currency_code:
            return place(match, f"{c.words.cardinal(int(amount))} K" if amount.isdigit() else "")
        if written == "K":
            scale = lang.magnitudes["k"]
        glued = not space or currency_code or glued_next.match(match.string, match.end())
        if scale.glued and not glued:
            return match.group()
        spoken = _scaled(c, match, scale, amount, currency_code)
        if match.group().endswith(".") and starts_sentence(after(match), lang):
            spoken += "."  # "2 Mio. Die Polizei ermittelt": the stop also ends the sentence
        return place(match, spoken)

    return c.compile(pattern, read)


def _scaled(
    c: Context, match: re.Match[str], scale: Magnitude, amount: str, currency_code: str | None
) -> str:
    """ "3,5 Mio. €" -> "drei Komma fünf Millionen Euro", "8k" -> "eight thousand"."""
    number = c.words.parse(amount)
    currency = c.currencies[currency_code].major if currency_code else None
    if scale.power == _THOUSAND and not number.fraction:
        spoken = c.words.number_words(
            Number(number.sign, number.whole * 1000),
            currency.gender if currency else c.gender(match),
        )
        return f"{spoken} {currency.plural}" if currency else spoken
    noun = scale.noun
    name = noun.singular if c.words.is_singular(number) else noun.plural
    spoken = f"{c.words.number_words(number, noun.gender + c.case(match))} {name}"
    if currency:
        spoken += f" {_of(c.language.magnitude_of, currency.plural)}"
    return spoken


def _screen_next(match: re.Match[str]) -> bool:
    """ "4k video", "8k-Fernseher": a screen word follows."""
    found = re.match(r"[ \u00a0-]?([^\W\d_]+)", after(match))
    return found is not None and found.group(1).lower() in SCREENS


def _of(of: str, noun: str) -> str:
    """ "de euros", "di euro"; nothing where the language joins none ("Millionen Euro")."""
    return f"{of} {noun}" if of else noun


def dimension(c: Context) -> Pass | None:
    """ "4 x 5 m", "2 × 3 × 4 cm", "4x4": sides said with "by" (German "mal", French "sur").

    With a unit after, any "x" or "×" between numbers is a dimension; without, only a lower-case
    "x" glued between two numbers ("4x4", "2x4 lumber"); "5 × 3", "3 x 2 = 6" stay products."""
    lang = c.language
    if not lang.by_word:
        return None
    side = rf"({c.num})"
    sign = r"[ \u00a0]?[x×][ \u00a0]?"
    units = alternation(c.units)
    pattern = (
        rf"(?=[0-9])(?<![\w.,])(?!0x){side}{sign}{side}(?:{sign}{side})?"
        rf"(?:({SPACE})({units})(?![^\W\d_]|[0-9/]))?"
    )

    def read(match: re.Match[str]) -> str:
        first, second, third, _, unit = match.groups()
        written = match.group()
        if not unit and not re.fullmatch(r"[0-9]+x[0-9]+", written):
            return written  # "5 × 3", "3 x 2 = 6": a product
        sides = [side for side in (first, second, third) if side]
        words = c.words
        said = [words.number_words(words.parse(side)) for side in sides[:-1]]
        last = words.parse(sides[-1])
        if unit:
            said.append(words.counted(last, c.units[unit], c.case(match)))
        else:
            said.append(words.number_words(last))
        return place(match, f" {lang.by_word} ".join(said))

    return c.compile(pattern, read)


def multiplier(c: Context) -> Pass | None:
    """ "5×", "3x täglich", "zoom 10x": "five times", "dreimal", "tres veces"."""
    lang = c.language
    noun = lang.multiplier
    if noun is None:
        return None
    pattern = r"(?=[0-9])(?<![\w.,])([0-9]{1,4})[ \u00a0]?[x×](?![\w])"

    def read(match: re.Match[str]) -> str:
        number = Number("", int(match.group(1)))
        name = noun.singular if c.words.is_singular(number) else noun.plural
        count = c.words.number_words(number, noun.gender)
        return place(match, f"{count}{name}" if lang.multiplier_glued else f"{count} {name}")

    return c.compile(pattern, read)


def product_name(c: Context) -> Pass | None:
    """ "Xbox 360" -> "Xbox three sixty": names whose digits are said their own way."""
    names = c.language.product_names
    if not names:
        return None
    firsts = "".join(sorted({re.escape(name[0]) for name in names}))
    pattern = rf"(?=[{firsts}])(?<![\w])({alternation(names)})(?![\w])"
    return c.compile(pattern, lambda match: names[match.group(1)])
