"""Turn streamed LLM replies into clean, speakable sentences.

`SentenceSplitter` feeds raw pieces to `sentence_stream.SentenceBoundaryDetector` and prepares
each detected sentence for speech (clean-up, then numbers in words), so markup or a number
split across pieces is still handled. Full stops that do not end a sentence ("z. B.", "e.g.",
"am 1. Dezember", "No. 5") are hidden from the detector: it would cut there.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from functools import cache

from sentence_stream import SentenceBoundaryDetector

from .cleanup import FENCE, FENCE_RE
from .numbers import LANGUAGES, base_language
from .numbers.context import starts_sentence
from .numbers.tables import Language
from .speech import prepare_for_speech

_ASTERISK_STANDIN = "\ufdd0"
_DOT_STANDIN = "\ufdd1"
_TOKEN_RE = re.compile(r"\S+")
_GENERIC_DOTTED = ("a.m.", "p.m.", "a. m.", "p. m.")
_DIGIT_DOT_RE = re.compile(r"[0-9]{1,3}\.")
_UNIT_WORD_RE = re.compile(r"(?:[0-9][0-9.,]*)?°?[A-Z][a-z]{0,2}\.?")
_UNIT_LETTER_RE = re.compile(r"(?<=[0-9])( ?°?)([A-Z])(?=[a-z]{0,2}\.)")
_LETTER_STANDINS = {
    letter: chr(0xE000 + index) for index, letter in enumerate(string.ascii_uppercase)
}
"""sentence_stream takes "°C." or "5 W." for an abbreviation and waits for one more sentence:
the unit's capital is hidden behind a private-use character until the sentence is out."""
_RESTORE = str.maketrans(
    {_ASTERISK_STANDIN: "*", _DOT_STANDIN: ".", **{v: k for k, v in _LETTER_STANDINS.items()}}
)
_CONTEXT_CHARS = 32
"""How much already-fed text the protecting patterns see (a cue word before "1.")."""


class SentenceSplitter:
    """Incremental splitter: feed text pieces, get complete sentences as soon as they are known.

    `sentence_stream` only ends a sentence once the next one is visible (whitespace and a
    capital or uncased letter (CJK, Arabic...) or a numbered list item after the stop), or at
    `finish`; CJK full stops end a sentence when any further character arrives. The last two
    words are held back until the next arrives, so a full stop is judged knowing what follows.
    """

    def __init__(
        self,
        clean: bool = True,
        language: str = "en",
        numbers: bool = True,
        pronounce: Callable[[str], str] | None = None,
    ) -> None:
        self._clean = clean
        self._pronounce = pronounce
        self._language = language
        self._numbers = numbers
        self._detector = SentenceBoundaryDetector()
        self._in_code = False
        self._pending = ""
        self._fed_tail = ""

    def add(self, piece: str) -> list[str]:
        """Add a piece of the stream; return the sentences it completed."""
        protected = self._protect(self._pending + piece)
        context = self._fed_tail  # a word may have begun in what was already fed
        cut = max(0, _ready_end(context + protected, self._language) - len(context))
        return self._feed(protected[:cut], protected[cut:])

    def finish(self) -> list[str]:
        """End the stream; return what is left as a last sentence (if anything speakable)."""
        sentences = self._feed(self._protect(self._pending), "")
        sentences += self._prepare([self._detector.finish()])
        self._in_code = False
        self._fed_tail = ""
        return sentences

    def _protect(self, text: str) -> str:
        """Protect `text`, seeing the end of what was fed before it as context."""
        context = self._fed_tail  # restored: "1,4 Mio." protected alone, before "Besucher" came
        return _protect(_restore(context + text), self._language)[len(context) :]

    def _feed(self, ready: str, pending: str) -> list[str]:
        self._pending = pending
        self._fed_tail = (self._fed_tail + ready)[-_CONTEXT_CHARS:]
        return self._prepare(self._detector.add_chunk(ready))

    def _prepare(self, raw_sentences: Iterable[str]) -> list[str]:
        sentences = (self._prepare_one(_restore(raw)) for raw in raw_sentences)
        return [sentence for sentence in sentences if sentence]

    def _prepare_one(self, sentence: str) -> str:
        if not self._clean:
            return sentence.strip()
        if self._in_code:
            sentence = FENCE + sentence
        self._in_code = len(FENCE_RE.findall(sentence)) % 2 == 1
        return prepare_for_speech(
            sentence, self._language, numbers=self._numbers, pronounce=self._pronounce
        )


def _ready_end(text: str, language: str) -> int:
    """Where the text that may go to the detector ends.

    A full stop among the last two words that may yet turn out not to end a sentence ("z." of
    "z. B.", "1." of "am 1. Dezember"), or a unit after a number that may yet get one ("°C"),
    is held back with what follows until the next word decides; anything else goes to the
    detector at once, so no sentence waits longer.
    """
    suspicious = _suspicious_words(language)
    tokens = list(_TOKEN_RE.finditer(text))
    for index in range(max(0, len(tokens) - 2), len(tokens)):
        word = tokens[index].group()
        previous = tokens[index - 1].group() if index else ""
        held = _restore(word) in suspicious  # "Mio." is still "Mio." with its capital hidden
        if word.endswith(".") and (held or _DIGIT_DOT_RE.fullmatch(word)):
            return tokens[index].start()
        if _UNIT_WORD_RE.fullmatch(word) and (word[0].isdigit() or previous[-1:].isdigit()):
            return tokens[index].start()  # "21.5 °C" may yet get its sentence's full stop
    return len(text)


@cache
def _suspicious_words(language: str) -> frozenset[str]:
    tables = LANGUAGES[base_language(language)]
    forms = [entry.written for entry in tables.abbreviations if not entry.can_end]
    scales = [form for form in tables.magnitudes if form.endswith(".")]  # "2 Mio. Besucher"
    return frozenset(word for form in (*forms, *scales, *_GENERIC_DOTTED) for word in form.split())


@cache
def _dot_patterns(language: str) -> tuple[re.Pattern[str], ...]:
    """Patterns whose full stops do not end a sentence in this language."""
    tables = LANGUAGES[base_language(language)]
    dotted = [
        entry.written
        for entry in tables.abbreviations
        if "." in entry.written and not entry.can_end
    ]
    written = "|".join(
        re.escape(form) for form in sorted({*dotted, *_GENERIC_DOTTED}, key=len, reverse=True)
    )
    months = "|".join(re.escape(month) for month in tables.months)
    patterns = [
        rf"(?<![\w.])(?:{written})(?!\w)",
        rf"(?<![0-9.])[0-9]{{1,2}}\.(?=\s+(?i:{months})\b)",
    ]
    endings = [entry.written for entry in tables.abbreviations if entry.compound]
    if endings:  # "Hauptstr. 5"
        glued = "|".join(re.escape(form) for form in endings)
        patterns.append(rf"(?<=[^\W\d_])(?:{glued})(?!\w)")
    if tables.weekdays:  # "Am Mi. 1. Advent", "Mittwoch, 1. Advent": the day's dot is no end
        days = "|".join(re.escape(day) for day in tables.weekdays)
        names = "|".join(re.escape(name) for name in tables.weekdays.values())
        patterns.append(rf"(?<![\w.])(?:(?:{days})\.?|{names}),?\s+[0-9]{{1,2}}\.(?=\s)")
    return tuple(re.compile(pattern) for pattern in patterns)


@cache
def _dot_patterns_in_sentence(language: str) -> tuple[re.Pattern[str], ...]:
    """Patterns whose full stops end a sentence only when the next word starts one: "2 Mio.
    Besucher" (not "2 Mio. Die Polizei"), German "am 14. Mai" (not "am 14. Dann")."""
    tables = LANGUAGES[base_language(language)]
    patterns = []
    scales = [form for form in tables.magnitudes if form.endswith(".")]
    if scales:
        written = "|".join(re.escape(form) for form in sorted(scales, key=len, reverse=True))
        patterns.append(rf"(?<=[0-9])[ \u00a0]?(?:{written})(?=\s)")
    if tables.ordinal_dot_cues:
        cues = "|".join(re.escape(cue) for cue in tables.ordinal_dot_cues)
        patterns.append(rf"(?i:\b(?:{cues}))\s+[0-9]{{1,3}}\.(?=\s)")
    return tuple(re.compile(pattern) for pattern in patterns)


def _hide_dots(match: re.Match[str]) -> str:
    return match.group().replace(".", _DOT_STANDIN)


def _protect(text: str, language: str) -> str:
    """Hide what the detector misreads: `*` (its own asterisk removal turns "5*3 and 2*4" into
    "53 and 24") and full stops that do not end a sentence."""
    text = text.replace("*", _ASTERISK_STANDIN)
    for pattern in _dot_patterns(language):
        text = pattern.sub(_hide_dots, text)
    tables = LANGUAGES[base_language(language)]
    for pattern in _dot_patterns_in_sentence(language):
        text = pattern.sub(lambda match: _hide_unless_ended(match, tables), text)
    return _UNIT_LETTER_RE.sub(_hide_unit_letter, text)


def _hide_unless_ended(match: re.Match[str], tables: Language) -> str:
    """Hide the full stop unless what follows starts a sentence; at the end of the text so far
    it stays, and is judged again when the next piece brings the word after it."""
    if starts_sentence(match.string[match.end() :], tables):
        return match.group()
    return _hide_dots(match)


def _hide_unit_letter(match: re.Match[str]) -> str:
    return match.group(1) + _LETTER_STANDINS[match.group(2)]


def _restore(text: str) -> str:
    return text.translate(_RESTORE)


_SENTENCE_END = ".!?…。！？"  # noqa: RUF001 - the full-width marks are meant
_CLOSERS = "\"'”’)]»」』"  # noqa: RUF001


def ends_sentence(text: str) -> bool:
    """Whether `text` ends with a sentence mark (closing quotes or brackets after it allowed)."""
    core = text.rstrip().rstrip(_CLOSERS)
    return bool(core) and core[-1] in _SENTENCE_END
