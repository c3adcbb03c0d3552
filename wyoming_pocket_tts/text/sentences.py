"""Turn streamed LLM replies into clean, speakable sentences.

`SentenceSplitter` feeds raw pieces to `sentence_stream.SentenceBoundaryDetector` and cleans
each detected sentence, so markup split across pieces is still removed.
"""

from collections.abc import Iterable

from sentence_stream import SentenceBoundaryDetector

from .cleanup import FENCE, FENCE_RE, clean_for_speech

_ASTERISK_STANDIN = "\ufdd0"


class SentenceSplitter:
    """Incremental splitter: feed text pieces, get complete sentences as soon as they are known.

    `sentence_stream` only ends a sentence once the next one is visible (whitespace and a
    capital or uncased letter (CJK, Arabic...) or a numbered list item after the stop), or at
    `finish`; CJK full stops end a sentence when any further character arrives.
    """

    def __init__(self, clean: bool = True) -> None:
        self._clean = clean
        self._detector = SentenceBoundaryDetector()
        self._in_code = False

    def add(self, piece: str) -> list[str]:
        """Add a piece of the stream; return the sentences it completed."""
        return self._prepare(self._detector.add_chunk(_protect(piece)))

    def finish(self) -> list[str]:
        """End the stream; return what is left as a last sentence (if anything speakable)."""
        sentences = self._prepare([self._detector.finish()])
        self._in_code = False
        return sentences

    def _prepare(self, raw_sentences: Iterable[str]) -> list[str]:
        sentences = (self._prepare_one(_restore(raw)) for raw in raw_sentences)
        return [sentence for sentence in sentences if sentence]

    def _prepare_one(self, sentence: str) -> str:
        if not self._clean:
            return sentence.strip()
        if self._in_code:
            sentence = FENCE + sentence
        self._in_code = len(FENCE_RE.findall(sentence)) % 2 == 1
        return clean_for_speech(sentence)


def _protect(text: str) -> str:
    """Hide `*` from the detector: its own asterisk removal turns "5*3 and 2*4" into "53 and 24"."""
    return text.replace("*", _ASTERISK_STANDIN)


def _restore(text: str) -> str:
    return text.replace(_ASTERISK_STANDIN, "*")


_SENTENCE_END = ".!?…。！？"  # noqa: RUF001 - the full-width marks are meant
_CLOSERS = "\"'”’)]»」』"  # noqa: RUF001


def ends_sentence(text: str) -> bool:
    """Whether `text` ends with a sentence mark (closing quotes or brackets after it allowed)."""
    core = text.rstrip().rstrip(_CLOSERS)
    return bool(core) and core[-1] in _SENTENCE_END
