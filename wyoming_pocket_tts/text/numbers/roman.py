"""Roman numerals of rulers, popes and centuries: "Henry VIII", "Karl V.", "XVIIIe siècle".

A numeral is read only where its context says it is one: after a ruler's or pope's name as the
language says regnal numbers ("Pius XII", "Karl V.", "Carlos III"), next to the word for
century, and as a cardinal after a word that counts parts ("World War II", "Teil III") or,
two letters or more, after another capitalised word in mid-sentence ("Apollo XI", "Mark II").
"I" and "V" after any other word stay a word or a letter ("Then I left", "Typ V").
"""

from __future__ import annotations

import re

from .context import Context, Pass, after, before, place
from .spelling import apply_fixes, compile_fixes
from .tables import RomanWords

_VALUES = {"I": 1, "V": 5, "X": 10}
_CANONICAL = re.compile(r"X{0,3}(?:IX|IV|V?I{0,3})")
_WORD_BEFORE = re.compile(r"([^\W\d_]+)\.?[ \u00a0]+$")
_WORD_AFTER = re.compile(r"[ \u00a0]+([^\W\d_]+)")
_CENTURY_LATER = re.compile(r"[ \u00a0]+\w{1,3}[ \u00a0]+[IVX]+(?:ème|e|º)?[ \u00a0]+([^\W\d_]+)")
"""A second numeral before the century word: "XIX e XX secolo", "XVIIe et XVIIIe siècles"."""
_NAME_BEFORE = re.compile(r"(?:^|(\S)\s*)\b([^\W\d_]+)[ \u00a0]+$")

_RULER_NAMES = """
    Henry Henri Heinrich Enrique Enrico Henrique Hendrik Charles Karl Carl Carlos Carlo Karel
    Louis Ludwig Luis Luigi Luís Lodewijk William Willem Wilhelm Guillermo Guglielmo Guilherme
    Guillaume George Georg Jorge Giorgio Edward Eduard Edoardo Eduardo James Jakob Jacques Jaime
    Giacomo Elizabeth Elisabeth Isabel Isabella Elisabetta Mary Maria Marie Victoria Philip
    Philipp Philippe Felipe Filippo Filipe Filips Francis Franz Francisco Francesco François
    Frederick Friedrich Frederik Federico Frederico John Johann Johannes Juan Giovanni João Jan
    Johan Jean Paul Paulus Pablo Paolo Paulo Pius Pio Pie Leo Leone León Léon Leão Benedict
    Benedikt Benedicto Benedetto Bento Benoît Gregory Gregor Gregorio Grégoire Innocent Clement
    Clemens Urban Alexander Alexandre Alessandro Alejandro Peter Pedro Pietro Pierre Pieter
    Napoleon Napoléon Napoleone Alfonso Afonso Manuel Umberto Emanuele Fernando Ferdinand
    Ferdinando Richard Ricardo Riccardo Otto Rainier Albert Alberto Harald Olav Gustav Christian
    Margrethe Sebastião Sancho Constantine Konstantin Nicholas Nikolaus Nicolás Nicola Ivan
"""
_QUEEN_NAMES = """
    Elizabeth Elisabeth Élisabeth Isabel Isabella Elisabetta Mary Maria Marie Victoria Catherine
    Katharina Caterina Catarina Anne Anna Ana Wilhelmina Juliana Beatrix Beatriz Margrethe
    Leonor Amélia Christina Kristina Johanna Juana Giovanna Joana
"""
QUEENS = frozenset(_QUEEN_NAMES.split())
"""Queens' names: the numeral after them is feminine ("Isabel segunda", "Elisabeth die Zweite")."""
RULERS = frozenset(_RULER_NAMES.split()) | QUEENS
"""Names of rulers and popes after which even "I", "V" or "X" is a numeral ("Elizabeth I")."""


def _value(numeral: str) -> int:
    """ "XIV" -> 14; 0 for a string that is no canonical numeral ("IIII", "VX")."""
    if not numeral or not _CANONICAL.fullmatch(numeral):
        return 0
    total = 0
    for char, following in zip(numeral, [*numeral[1:], ""], strict=True):
        value = _VALUES[char]
        total += -value if following and _VALUES[following] > value else value
    return total


def roman(c: Context) -> Pass | None:
    """Rulers ("Carlos III", "Pio XII", "Karl V."), centuries ("XVe siècle", "século XIX")."""
    words = c.language.roman
    if words is None:
        return None
    suffixes = "ème|ᵉʳ|ʳᵉ|ᵉ|er|re|e|º|°" if c.language.code in ("fr", "it", "es", "pt") else "(?!)"
    pattern = rf"(?=[IVX])(?<![\w.'’-])([IVX]{{1,7}})(?:({suffixes})|(\.))?(?![\w'’-])"  # noqa: RUF001

    def read(match: re.Match[str]) -> str:
        numeral, suffix, dot = match.groups()
        value = _value(numeral)
        if not value:
            return match.group()
        previous = _WORD_BEFORE.search(before(match))
        word = previous.group(1) if previous else ""
        following = _WORD_AFTER.match(after(match))
        next_word = following.group(1).lower() if following else ""
        later = _CENTURY_LATER.match(after(match))
        century = words.century_words
        if (
            word.lower() in century
            or next_word in century
            or (later is not None and later.group(1).lower() in century)
        ):
            spoken = _number(c, value, words.century_ordinal_up_to)
            return place(match, spoken) + _kept_dot(dot, match)
        cardinal = word.lower() in words.cardinal_cues or (
            word not in RULERS and not suffix and _is_name(match, word, numeral)
        )
        if cardinal:  # "World War II", "Apollo XI", "Rocky II"
            return place(match, c.words.cardinal(value)) + _kept_dot(dot, match)
        first = value == 1 and suffix in c.language.first_ordinals  # "François Ier"
        if word not in RULERS or (suffix and not first):
            return match.group()
        if first:
            return place(match, c.language.first_ordinals[suffix])
        return place(match, _regnal(c, words, value, match)) + _kept_dot(dot, match)

    return c.compile(pattern, read)


def _is_name(match: re.Match[str], word: str, numeral: str) -> bool:
    """A numeral of two or more letters after a capitalised word in mid-sentence."""
    found = _NAME_BEFORE.search(before(match))
    mid_sentence = found is not None and found.group(1) not in (None, ".", "!", "?")
    return len(numeral) > 1 and word[:1].isupper() and mid_sentence


def _number(c: Context, value: int, ordinal_up_to: int) -> str:
    return c.words.spell.ordinal(value) if value <= ordinal_up_to else c.words.cardinal(value)


def _regnal(c: Context, words: RomanWords, value: int, match: re.Match[str]) -> str:
    number = _number(c, value, words.ordinal_up_to)
    previous = _WORD_BEFORE.search(before(match))
    queen = previous is not None and previous.group(1) in QUEENS
    if queen and value <= words.ordinal_up_to:
        number = apply_fixes(number, compile_fixes(c.language.feminine_ordinal))
    if words.capital:
        number = number[0].upper() + number[1:]
    name_start = _NAME_BEFORE.search(before(match))
    before_name = before(match)[: name_start.start(2)] if name_start else ""
    case = c.agreement.case(before_name).lstrip(".")
    if queen:
        return (words.regnal_feminine or words.regnal).format(number=number)
    return words.regnal_cases.get(case, words.regnal).format(number=number)


def _kept_dot(dot: str | None, match: re.Match[str]) -> str:
    """German "Karl V. regierte": the dot marks the ordinal; before a capital it may also end
    the sentence, so it stays."""
    if not dot:
        return ""
    rest = after(match)
    return "." if not rest.strip() or re.match(r"\s+[A-ZÀ-ÖØ-Þ]", rest) else ""
