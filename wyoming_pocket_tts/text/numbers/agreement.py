"""The gender (and German case) of the noun a number counts, read from the words around it.

"Tienes 1 alarma" needs "una", "1 neue Nachricht" needs "eine", "1/2 Liter" after "trink"
needs "einen halben". The noun is the first word after the number that is not an adjective;
its gender comes from the language's exceptions, else from its ending (`tables.Genders`).
German nouns are found by their capital and their compounds by their last part.
"""

from __future__ import annotations

import re

from .tables import Genders

_NEXT_WORD = re.compile(r"[ \u00a0\u202f]+([^\W\d_]+(?:['’\-][^\W\d_]+)*)")  # noqa: RUF001
_LAST_WORD = re.compile(r"(\w+)\W*$")
_WORD_BEFORE = re.compile(r"(?:^|([^\s])\s*)\b([^\W\d_]+)[ \u00a0]+$")
_WORDS_LOOKED_AT = 4
_GERMAN_ADJECTIVE = re.compile(r"\w+(?:e|er|es|en|em)$")


class Agreement:
    """Tells the gender of a counted noun for one language."""

    def __init__(self, genders: Genders) -> None:
        self._genders = genders

    def noun_gender(self, word: str) -> str | None:
        """The gender of a noun as written ("alarmas", "Küchenfenster", "mensagens")."""
        genders = self._genders
        lower = word.lower()
        forms = [lower]
        forms += [
            lower[: len(lower) - len(plural)] + singular
            for plural, singular in genders.singular
            if lower.endswith(plural) and len(lower) > len(plural) + 1
        ]
        for form in forms:
            if form in genders.nouns:
                return genders.nouns[form]
        if genders.compounds:
            for start in range(1, len(lower) - 2):
                if lower[start:] in genders.nouns:
                    return genders.nouns[lower[start:]]
        for form in forms:
            for ending, gender in genders.endings:
                if form.endswith(ending):
                    return gender
        return genders.default

    def counted_gender(self, after: str) -> str | None:
        """The gender of the noun that `after` (the text after a number) starts with, if any."""
        genders = self._genders
        position = 0
        for _ in range(_WORDS_LOOKED_AT):
            found = _NEXT_WORD.match(after, position)
            if found is None:
                return None
            word = found.group(1)
            lower = word.lower()
            if lower in genders.not_nouns:
                return None
            if genders.capitalised_nouns:
                if word[0].isupper():
                    return self.noun_gender(word)
                if not _GERMAN_ADJECTIVE.fullmatch(lower) and lower not in genders.before_noun:
                    return None
            elif lower not in genders.before_noun:
                return self.noun_gender(word)
            position = found.end()
        return None

    def case(self, before: str) -> str:
        """ ".acc" or ".dat" when the word before a number calls for that case (German)."""
        if not self._genders.cases:
            return ""
        previous = _LAST_WORD.search(before)
        case = self._genders.cases.get(previous.group(1).lower(), "") if previous else ""
        return f".{case}" if case else ""

    def names(self, before: str) -> bool:
        """Whether the number after `before` names a thing ("Zona 1", "el Sensor 1")."""
        found = _WORD_BEFORE.search(before)
        if found is None:
            return False
        punctuation, word = found.groups()
        if word.lower() in self._genders.labels:
            return True
        mid_sentence = punctuation is not None and punctuation not in ".!?:;"
        return not self._genders.capitalised_nouns and word[0].isupper() and mid_sentence

    def of(self, before: str, after: str) -> str | None:
        """Gender and case of the noun a number counts: "f", "m.acc", or None (no noun)."""
        if self.names(before):
            return None
        gender = self.counted_gender(after)
        return None if gender is None else gender + self.case(before)
