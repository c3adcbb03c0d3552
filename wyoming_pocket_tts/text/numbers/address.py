"""Addresses: postcodes in digit groups, house numbers with a letter ("17 B"), "Raum 3.07"."""

from __future__ import annotations

import re

from .context import SPACE, Context, Pass, after, alternation, before, place

_CAPITAL_NEXT = re.compile(r"[ \u00a0]+[A-ZÀ-ÖØ-Þ]")
_LINE_START = re.compile(r"(?:^|[,;:\n][ \u00a0]*)$")
_US_STATE = re.compile(r",[ \u00a0]*[A-Z]{2}[ \u00a0]$")


def postcode(c: Context) -> Pass | None:
    """ "10115 Berlin", "PLZ 01067", "4050-123 Porto", "1012 AB Amsterdam", "CA 90210".

    A postcode follows its cue word ("PLZ", "zip"), or starts an address line (after a comma or
    a line break) and is followed by the place's name; in English, it follows a state's code."""
    lang = c.language
    if not lang.postcode:
        return None
    cue = re.compile(  # "PLZ 01067", "zip code is 02139", "il CAP è 00185"
        rf"(?i:\b(?:{alternation(lang.postcode_cues)}))\b(?:\W+\w{{1,4}}){{0,2}}\W{{0,3}}$"
    )
    pattern = rf"(?=[0-9])(?<![\w.,/+-])({lang.postcode})(?![\w]|[.,/-][0-9])"

    def read(match: re.Match[str]) -> str:
        previous = before(match)
        line_start = match.start() == 0 or _LINE_START.search(previous) is not None
        if not (
            cue.search(previous)
            or (line_start and _CAPITAL_NEXT.match(after(match)))
            or (lang.code == "en" and _US_STATE.search(previous))
        ):
            return match.group()
        return place(match, _postcode_words(c, match.group()))

    return c.compile(pattern, read)


def _postcode_words(c: Context, written: str) -> str:
    """Digits in the language's groups, else one by one; letters (Dutch "AB") as letters."""
    digits = re.sub(r"[^0-9]", "", written)
    groups: list[str] = []
    for size in c.language.postcode_groups or (1,) * len(digits):
        groups.append(digits[:size])
        digits = digits[size:]
    spoken = [
        c.words.spell.digits(group) if group[0] == "0" else c.words.cardinal(int(group))
        for group in [*groups, *digits]  # English ZIP+4: the four after the five
        if group
    ]
    joined = ", ".join(spoken) if "-" in written else " ".join(spoken)  # "4050-262": a pause
    return " ".join([joined, *re.findall("[A-Z]", written)])


def house_number(c: Context) -> Pass | None:
    """ "Hauptstraße 17 B", "Via Roma 12/A", "apt 4B", "7/C": a number and a letter.

    A letter after a space is the house's only near a street or dwelling word (else "17 A" is
    amperes); after a slash ("7/C") it always is."""
    lang = c.language
    if not lang.address_words:
        return None
    compounds = lang.genders.compounds
    words_near = lang.address_words
    pattern = (
        r"(?=[0-9])(?<![\w.,/])([0-9]{1,4})"
        r"(?:(/)[ \u00a0]?([A-Z])|[ \u00a0]?([A-Za-z]))(?![\w/]|[.,][0-9A-Za-z])"
    )

    def near_address(match: re.Match[str]) -> bool:
        near = re.findall(r"\w+", before(match).lower())[-6:]
        near += re.findall(r"\w+", after(match).lower())[:3]
        return any(_is_one_of(word, words_near, compounds=compounds) for word in near)

    def read(match: re.Match[str]) -> str:
        glued = match.group(4) and match.group().endswith(match.group(4))
        if glued and match.group(4) in lang.ordinal_suffixes:
            return match.group()  # "le 2e étage": an ordinal
        if not match.group(2) and not near_address(match):
            return match.group()
        written = match.group(4) or ""
        if written.islower() and written in c.units:
            return match.group()  # "The drive took 1 h 30 min": hours, not house 1 H
        letter = (match.group(3) or match.group(4)).upper()
        return place(match, f"{c.words.cardinal(int(match.group(1)))} {letter}")

    return c.compile(pattern, read)


def house_pairs(c: Context) -> Pass | None:
    """American "2140 Oak Street" -> "twenty-one forty": a four-digit house number before a
    street's name is said in pairs ("sixteen hundred", "twenty oh five")."""
    lang = c.language
    if not lang.house_pairs:
        return None
    pattern = r"(?=[1-9])(?<![\w.,/])([1-9][0-9])([0-9]{2})(?=[ \u00a0]+[A-Z])"
    street = re.compile(r"(?:[ \u00a0]+[A-Z][\w'’-]*){1,3}\.?")  # noqa: RUF001

    def read(match: re.Match[str]) -> str:
        name = street.match(after(match))
        last_word = re.findall(r"\w+", name.group())[-1].lower() if name else ""
        if name is None or last_word not in lang.address_words:
            return match.group()
        first, last = int(match.group(1)), int(match.group(2))
        spell = c.words.spell
        if last == 0:
            spoken = c.words.year(first * 100)  # "sixteen hundred"
        elif last < 10:
            spoken = f"{spell.cardinal(first)} {lang.time.minute_oh} {spell.cardinal(last)}"
        else:
            spoken = f"{spell.cardinal(first)} {spell.cardinal(last)}"
        return place(match, spoken)

    return c.compile(pattern, read)


def room(c: Context) -> Pass | None:
    """ "Raum 3.07", "lokaal 2.14", "room 4.12": after a room, floor or door word, the dot
    parts a floor from a room, no decimal: "drei null sieben", "twee veertien"."""
    lang = c.language
    if not lang.room_words:
        return None
    pattern = r"(?=[0-9])(?<![\w.,])([0-9]{1,4})\.([0-9]{1,4})(?![0-9]|[.,][0-9])"
    measured = re.compile(  # "Living room 21.5 °C" is a temperature
        rf"{SPACE}(?:{alternation([*c.units, *c.currencies])})(?![^\W\d_])"
    )

    def read(match: re.Match[str]) -> str:
        if measured.match(after(match)):
            return match.group()
        previous = re.search(r"([^\W\d_]+)\.?[ \u00a0]+$", before(match))
        word = previous.group(1).lower() if previous else ""
        if not _is_one_of(word, lang.room_words, compounds=lang.genders.compounds):
            return match.group()
        words, second = c.words, match.group(2)
        last = words.spell.digits(second) if second[0] == "0" else words.cardinal(int(second))
        return place(match, f"{words.cardinal(int(match.group(1)))} {last}")

    return c.compile(pattern, read)


def _is_one_of(word: str, words: frozenset[str], *, compounds: bool) -> bool:
    """`word` is one of `words`, or (German, Dutch) a compound ending in one."""
    return word in words or (compounds and any(word.endswith(end) for end in words))
