"""Written forms that are not quantities: abbreviations, "#1", phone numbers, versions."""

from __future__ import annotations

import re

from .context import DASHES, SPACE, Context, Pass, after, alternation, before, place
from .roman import QUEENS, RULERS
from .tables import Abbreviation

_NAME_NEXT = re.compile(r"\s+(?=[A-ZÀ-ÖØ-Þ])")
_NAME_WORD = re.compile(r"\s+([^\W\d_]+)")
_WORD_BEFORE = re.compile(r"(?<![^\W\d_])([^\W\d_]+)[ \u00a0]+$")
_NAME_BEFORE = re.compile(r"[\w,][ \u00a0]+[A-ZÀ-ÖØ-Þ][\w'’-]*[ \u00a0]+$")  # noqa: RUF001
"""A capitalised word that does not start the text before it: "42 Elm St", not "Visit St."."""


def abbreviation(c: Context) -> Pass | None:
    """ "z. B.", "Dr. Smith", "No. 5", "Elm St": expanded where the table says they may be."""
    entries: dict[str, list[Abbreviation]] = {}
    for entry in c.language.abbreviations:
        entries.setdefault(entry.written, []).append(entry)
    if not entries:
        return None
    first = "".join(sorted({re.escape(form[0]) for form in entries}))
    endings = [form for form, found in entries.items() if any(e.compound for e in found)]
    ending = rf"|(?<=[^\W\d_])({alternation(endings)})" if endings else r"|(?!)()"
    pattern = rf"(?=[{first}])(?:(?<![^\W\d_.])({alternation(entries)}){ending})(?!\w)"

    days = c.language.weekdays
    joined_day = re.compile(  # "Mo.-Fr. Samstag zu": this "Fr." ends a range of weekdays
        rf"\b(?:{alternation(days)})\.?[ \u00a0]*(?:[{DASHES}/]|"
        rf"{re.escape(c.language.range_word)})[ \u00a0]*$"
        if days
        else r"(?!)"
    )

    def holds(entry: Abbreviation, match: re.Match[str], rest: str) -> bool:
        if entry.before_digit and not re.match(r"[ \u00a0]?[0-9]", rest):
            return False
        weekday = entry.before_name and entry.written.rstrip(".") in days
        if weekday and joined_day.search(before(match)):
            return False
        if entry.before_name and not _NAME_NEXT.match(rest):
            return False
        return not entry.after_name or _NAME_BEFORE.search(before(match)) is not None

    def read(match: re.Match[str]) -> str:
        rest = after(match)
        written = match.group(1) or match.group(2)
        found = [e for e in entries[written] if e.compound or not match.group(2)]
        entry = next((e for e in found if holds(e, match, rest)), None)
        if entry is None:
            return match.group()
        spoken = entry.spoken
        name = _NAME_WORD.match(rest)
        if entry.feminine and name and _feminine(c, name.group(1)):
            spoken = entry.feminine
        if match.group(1) and match.group()[0].isupper():
            spoken = spoken[0].upper() + spoken[1:]
        ends_sentence = not rest.strip() or _NAME_NEXT.match(rest.replace("\n", " ")) is not None
        if entry.can_end and entry.written.endswith(".") and ends_sentence:
            spoken += "."
        return spoken

    return c.compile(pattern, read)


def _feminine(c: Context, name: str) -> bool:
    """A queen's name, or another name the language's endings call feminine ("D. Amélia"); a
    king's name is masculine whatever its ending ("D. Sebastião")."""
    return name in QUEENS or (name not in RULERS and c.agreement.noun_gender(name) == "f")


def number_sign(c: Context) -> Pass:
    """ "#1" -> "number 1"."""
    return c.compile(r"#(?=[0-9])", lambda match: c.language.number_word + " ")


def phone(c: Context) -> Pass:
    """ "+49 170 1234567", "(555) 123-4567", "06 12 34 56 78": digit by digit, by group."""
    pattern = (
        r"(?=[+(0-9])(?:(?<![\w+])\+[0-9]{1,3}(?:[ \-./]?\(?[0-9]{1,5}\)?){2,6}(?![0-9])"
        r"|(?<![\w])(?<![0-9] )\(?0[0-9]{1,4}\)?[ \-/][0-9]{2,}(?:[ \-][0-9]{2,})*(?![0-9])"
        r"|(?<![\w(])\(?[0-9]{3}\)?[ .\-][0-9]{3}[ .\-][0-9]{4}(?![0-9])"
        + "".join(
            rf"|(?<![\w.,])(?:{national})(?![0-9]|[.,][0-9]|{SPACE}[%€$£])"
            for national in c.language.phone_patterns
        )
        + ")"
    )

    def read(match: re.Match[str]) -> str:
        text = match.group()
        lang, words = c.language, c.words
        groups = []
        for group in re.findall(r"[0-9]+", text):
            if lang.pair_phone_groups and len(group) == 2 and group[0] != "0":
                groups.append(words.cardinal(int(group)))
            else:
                groups.append(words.spell.digits(group))
        spoken = lang.digits_separator.join(groups)
        if text.startswith("+"):
            spoken = f"{lang.plus} {spoken}"
        return place(match, spoken)

    return c.compile(pattern, read)


def flight(c: Context) -> Pass:
    """ "LH 1234", "KL1002": a two-letter code and 3-4 digits, read digit by digit. After an
    article the letters name a party or club ("el PP 137 escaños"): the number is counted."""
    units = alternation([*c.units, *c.currencies])
    pattern = (
        rf"(?=[A-Z])(?<![\w.])([A-Z]{{2}}) ?([0-9]{{3,4}})"
        rf"(?![0-9]|[.,][0-9]|{SPACE}(?:{units})(?![^\W\d_]))"
    )
    articles = c.language.name_articles

    def read(match: re.Match[str]) -> str:
        previous = _WORD_BEFORE.search(before(match))
        if previous and previous.group(1).lower() in articles:
            return match.group()
        return place(match, f"{match.group(1)} {c.words.spell.digits(match.group(2))}")

    return c.compile(pattern, read)


NUMBER_SIGNS = "<>~"
"""Signs that are words only before a number ("< 5 °C", "~3 h"); elsewhere they are text."""
ASCII_SIGNS = {"<=": "≤", ">=": "≥", "!=": "≠", "=<": "≤", "=>": "≥"}


def symbol_word(c: Context) -> Pass | None:
    """ "±", "§", "≈", "≥", "≤", "≠": signs said as words wherever they stand."""
    words = c.language.symbol_words
    signs = {sign: word for sign, word in words.items() if sign not in NUMBER_SIGNS}
    if not signs:
        return None
    return c.compile(f"[{''.join(signs)}]", lambda match: place(match, signs[match.group()]))


def comparison(c: Context) -> Pass | None:
    """ "< 5 °C", "> 30 km/h", "~3 h", ">= 75 %": a comparison sign is a word before a number."""
    signs = c.language.symbol_words
    if not all(sign in signs for sign in NUMBER_SIGNS):
        return None
    written = alternation([*ASCII_SIGNS, *NUMBER_SIGNS])
    pattern = rf"(?=[{NUMBER_SIGNS}!=])(?<![<>=!~])({written})(?={SPACE}[-+\u2212]?[0-9])"

    def read(match: re.Match[str]) -> str:
        sign = match.group(1)
        return place(match, signs[ASCII_SIGNS.get(sign, sign)])

    return c.compile(pattern, read)


def dotted(c: Context) -> Pass:
    """ "2.13.0", "192.168.1.10": number by number ("1.234.567" is left to plain numbers)."""
    pattern = r"(?=[0-9])(?<![0-9.,])[0-9]+(?:\.[0-9]+){2,}(?![0-9]|\.[0-9])"

    def read(match: re.Match[str]) -> str:
        parts = match.group().split(".")
        if len(parts[0]) <= 3 and all(len(part) == 3 for part in parts[1:]):
            return match.group()
        words = c.words
        if len(parts[0]) == 4 and 1900 <= int(parts[0]) < 2100:  # "2026.11.3": a year first
            rest = " ".join(f"{c.language.dot_word} {words.cardinal(int(p))}" for p in parts[1:])
            return place(match, f"{words.year(int(parts[0]))} {rest}")
        spoken = [
            words.spell.digits(part)
            if len(part) > 1 and part[0] == "0"
            else words.cardinal(int(part))
            for part in parts
        ]
        return place(match, f" {c.language.dot_word} ".join(spoken))

    return c.compile(pattern, read)
