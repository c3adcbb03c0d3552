"""SSML into what the engine speaks: sentences (with their language and rate) and pauses.

Wyoming 1.10's `text_format: ssml` (and the HTTP API's `<speak>` input) asks for it. The text
is untrusted, so it is parsed by defusedxml's expat parser, which refuses any DTD (no entity
expansion: billion laughs, external entities), and is bounded in size (`MAX_SSML_CHARS`) and in
the depth of elements that still take effect (`MAX_DEPTH`). Malformed SSML is spoken as plain
text (tags removed) from the fault on, with a warning; it never fails the request.

Parsing is incremental: `SsmlStream` takes `synthesize-chunk` texts split anywhere, even inside
a tag, and returns each sentence as soon as the sentence splitter knows it is complete, so a
streamed SSML answer starts as early as plain text does. Supported: `<break time strength>`,
`<p>` and `<s>` (pauses), `<sub alias>`, `<say-as interpret-as>` (see `say_as`),
`<prosody rate>`, `xml:lang` on any element (`<lang>`, `<voice>`, ...). Other elements are
dropped and their text kept.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from defusedxml.ElementTree import DefusedXMLParser, ParseError

from ..settings import MAX_SILENCE_MS
from .say_as import say_as
from .sentences import SentenceSplitter
from .ssml_values import PARAGRAPH_PAUSE_MS, SENTENCE_PAUSE_MS, break_ms, prosody_rate

_LOGGER = logging.getLogger(__name__)

MAX_SSML_CHARS = 100_000
"""Input past this is ignored (the server's --max-text-chars normally refuses it first)."""
MAX_DEPTH = 32
"""Elements nested deeper than this are treated as unknown: their text is kept."""
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_DOCTYPE_RE = re.compile(r"<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>", re.DOTALL | re.IGNORECASE)
_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_CDATA_RE = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_TAG_RE = re.compile(r"<[^<>]*>")
_ENTITY_RE = re.compile(r"&[#\w]*;?")
_UNCLOSED = 3
"""expat's XML_ERROR_NO_ELEMENTS: the input ended inside an element."""
_ROOTS = ("<speak", "<?xml", "<!")
"""Starts of a document with its own root; anything else is wrapped in `<speak>`."""
_MAX_OPEN_TAG = 1000
"""In plain-text fallback, a `<` with no `>` within this many characters is text."""


@dataclass(frozen=True)
class Sentence:
    """A sentence ready for the model (cleaned, numbers in words)."""

    text: str
    language: str | None = None
    """From `xml:lang`; None: the request's language."""
    rate: float = 1.0
    """From `<prosody rate>`: a factor of the voice's speed (the engine clamps the product)."""


@dataclass(frozen=True)
class Pause:
    """Silence, in milliseconds."""

    ms: int


Segment = Sentence | Pause


def looks_like_ssml(text: str) -> bool:
    """Whether plain-text input is really SSML (the HTTP API's rule: it starts with `<speak`)."""
    start = text.lstrip()[:64].lower()
    return start.startswith("<speak") or (start.startswith("<?xml") and "<speak" in text[:512])


def plain_text(text: str) -> str:
    """Markup removed: what malformed SSML is spoken as."""
    text = _DOCTYPE_RE.sub(" ", text)
    text = _COMMENT_RE.sub(" ", text)
    text = _CDATA_RE.sub(lambda match: match.group(1), text)
    text = _TAG_RE.sub(" ", text)
    return _ENTITY_RE.sub(" ", html.unescape(text)) if "&" in text else text


@dataclass
class _Scope:
    """What an open element means for the text inside it."""

    tag: str
    language: str | None
    rate: float
    collect: list[str] | None = None  # say-as: its text, said on close
    attrib: dict[str, str] = field(default_factory=dict)
    silent: bool = False  # sub: its own text is replaced by the alias


class SsmlStream:
    """Incremental SSML: `add` pieces split anywhere, get the segments they completed.

    Not thread-safe; one per request. After malformed input (`malformed`), the rest of the
    stream is spoken as plain text, with markup removed.
    """

    def __init__(
        self,
        language: str = "en",
        *,
        clean: bool = True,
        numbers: bool = True,
        pronounce: Callable[[str], str] | None = None,
        pronounce_in: Callable[[str], Callable[[str], str]] | None = None,
    ) -> None:
        """`pronounce`: the household's "written -> said" entries of the request's voice,
        applied to every sentence as plain text's are (after clean-up, before numbers);
        `pronounce_in`: the entries for a passage in the language its `xml:lang` names (None:
        `pronounce` there too)."""
        self._language = language
        self._clean = clean
        self._numbers = numbers
        self._pronounce = pronounce
        self._pronounce_in = pronounce_in
        self._parser = DefusedXMLParser(
            target=self, forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
        # Text is handed over as it is parsed, so each event's end in the input is known:
        # after malformed input, plain text resumes exactly where the events stopped.
        self._parser.parser.buffer_text = False
        self._consumed = 0  # bytes of `_fed` the events so far account for
        self._scopes = [_Scope("", None, 1.0)]
        self._depth = 0
        self._splitter: SentenceSplitter | None = None
        self._context: tuple[str | None, float] = (None, 1.0)
        self._out: list[Segment] = []
        self._spoken = False  # a sentence has been emitted (structural pauses need one before)
        self._head = ""  # leading text held until we know whether a <speak> root is there
        self._wrapped: bool | None = None
        self._received = 0
        self._fed = bytearray()  # UTF-8 given to expat, to find where an error happened
        self.malformed = False
        self._truncated = False  # input past MAX_SSML_CHARS was dropped: elements stay open
        self._plain_pending = ""
        self._held: int | None = None  # a <p>/<s> pause, due when something follows it

    # Input.

    def add(self, piece: str) -> list[Segment]:
        """Add a piece of the document; return the segments it completed."""
        piece = self._bounded(piece)
        if self.malformed:
            return self._add_plain(piece, final=False)
        if self._wrapped is None:
            self._head += piece
            start = self._head.lstrip().lower()
            if not start or any(len(start) < len(p) and p.startswith(start) for p in _ROOTS):
                return self._take()  # not yet known whether a root element comes
            piece, self._head = self._head, ""
            self._wrapped = not start.startswith(_ROOTS)
            if self._wrapped:
                self._feed("<speak>")
        self._feed(piece)
        return self._take()

    def finish(self) -> list[Segment]:
        """End of the document: return the last segments (a trailing `<p>`/`<s>` pause dropped)."""
        if self._wrapped is None and not self.malformed:
            self._wrapped = True
            self._feed("<speak>" + self._head)
        if not self.malformed and not self._truncated:
            if self._wrapped:
                self._feed("</speak>")
            try:
                self._parser.close()
            except ParseError as error:
                if error.code != _UNCLOSED or self._depth == 0:
                    self._fail(error)
                # else: elements left open at the end; all their text was already handed over
            except Exception as error:  # as in _feed
                self._fail(error)
        if self.malformed:
            out = self._take() + self._add_plain("", final=True)
        else:
            self._end_sentence()
            out = self._take()
        if self._held is not None:
            self._held = None  # a <p>/<s> pause with nothing after it
        return out

    def _bounded(self, piece: str) -> str:
        room = MAX_SSML_CHARS - self._received
        self._received += len(piece)
        if len(piece) > room:
            self._truncated = True
            if room >= 0:
                _LOGGER.warning(
                    "SSML longer than %d characters: the rest is ignored", MAX_SSML_CHARS
                )
            return piece[: max(0, room)]
        return piece

    def _feed(self, data: str) -> None:
        if self.malformed or not data:
            return
        self._fed += data.encode("utf-8")
        try:
            self._parser.feed(data)
        except Exception as error:  # whatever the input: never fail a request
            self._fail(error)

    def _fail(self, error: Exception) -> None:
        """Switch to plain text from where the parser stopped."""
        _LOGGER.warning("Malformed SSML, spoken as plain text: %s", error)
        self.malformed = True
        self._plain_pending = self._fed[self._consumed :].decode("utf-8", errors="ignore")

    def _add_plain(self, piece: str, final: bool) -> list[Segment]:
        text = self._plain_pending + piece
        cut = text.rfind("<")
        if not final and cut >= 0 and ">" not in text[cut:] and len(text) - cut < _MAX_OPEN_TAG:
            text, self._plain_pending = text[:cut], text[cut:]
        else:
            self._plain_pending = ""
        self._text(plain_text(text), self._language, 1.0, force=True)
        if final:
            self._end_sentence()
        return self._take()

    # Parser target (called by expat while feeding).

    def _mark(self, text: str | None = None) -> None:
        """Record where the current event ends in the input."""
        index = self._parser.parser.CurrentByteIndex
        if index < 0:
            return
        if text is None:  # a tag: up to its `>`
            end = self._fed.find(b">", index)
            self._consumed = end + 1 if end >= 0 else len(self._fed)
        elif self._fed.startswith(b"&", index) and not text.startswith("&"):
            end = self._fed.find(b";", index)  # a character or entity reference
            self._consumed = end + 1 if end >= 0 else len(self._fed)
        else:
            self._consumed = index + len(text.encode("utf-8"))

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        """An element opens."""
        self._mark()
        scope = self._scopes[-1]
        self._depth += 1
        name = tag.rsplit("}", 1)[-1].lower() if self._depth <= MAX_DEPTH else ""
        language = attrib.get(_XML_LANG) or attrib.get("lang") or scope.language
        rate = prosody_rate(attrib.get("rate"), scope.rate) if name == "prosody" else scope.rate
        new = _Scope(name, language if name else scope.language, rate, attrib=dict(attrib))
        new.silent = scope.silent
        if scope.collect is not None:
            new.collect = scope.collect
        elif name == "say-as":
            new.collect = []
        if name in ("p", "s"):
            self._end_sentence()
        elif name == "break":
            self._pause(break_ms(attrib), structural=False)
        elif name == "sub" and not scope.silent:
            self._text(attrib.get("alias", ""), new.language, new.rate)
            new.silent = True
        self._scopes.append(new)

    def end(self, tag: str) -> None:
        """An element closes."""
        self._mark()
        scope = self._scopes.pop()
        self._depth -= 1
        if scope.tag == "say-as" and self._scopes[-1].collect is None and scope.collect is not None:
            spoken = say_as(
                "".join(scope.collect),
                scope.attrib.get("interpret-as", ""),
                scope.language or self._language,
                scope.attrib.get("format", ""),
            )
            self._text(spoken, scope.language, scope.rate)
        elif scope.tag == "s":
            self._pause(SENTENCE_PAUSE_MS, structural=True)
        elif scope.tag == "p":
            self._pause(PARAGRAPH_PAUSE_MS, structural=True)

    def data(self, text: str) -> None:
        """Character data."""
        self._mark(text)
        scope = self._scopes[-1]
        if scope.silent:
            return
        if scope.collect is not None:
            scope.collect.append(text)
        else:
            self._text(text, scope.language, scope.rate)

    def close(self) -> None:
        """End of the parse (nothing to build: segments were emitted as they completed)."""

    # Output.

    def _text(self, text: str, language: str | None, rate: float, force: bool = False) -> None:
        if not text:
            return
        if self._splitter is None or self._context != (language, rate):
            if not text.strip() and not force:
                return  # whitespace between elements does not change the context
            self._end_sentence()
            self._context = (language, rate)
            pronounce = self._pronounce
            if language is not None and self._pronounce_in is not None:
                pronounce = self._pronounce_in(language)
            self._splitter = SentenceSplitter(
                self._clean, language or self._language, self._numbers, pronounce
            )
        self._sentences(self._splitter.add(text))

    def _end_sentence(self) -> None:
        if self._splitter is not None:
            self._sentences(self._splitter.finish())
            self._splitter = None

    def _sentences(self, texts: list[str]) -> None:
        language, rate = self._context
        for text in texts:
            self._release()
            self._out.append(Sentence(text, language, rate))
            self._spoken = True

    def _pause(self, ms: int, structural: bool) -> None:
        """Silence after what came before. A `<p>`/`<s>` pause is held until something
        follows it (none at the very end) and merges with a neighbouring pause by the larger;
        breaks add up."""
        self._end_sentence()
        if structural and not self._spoken:
            return
        if self._held is not None:
            held, self._held = self._held, None
            if structural:
                self._held = max(held, ms)
                return
            ms = max(held, ms)  # a break after </p>: the longer of the two
        if structural:
            self._held = ms
            return
        last = self._out[-1] if self._out else None
        if isinstance(last, Pause):
            self._out[-1] = Pause(min(MAX_SILENCE_MS, last.ms + ms))
        elif ms > 0:
            self._out.append(Pause(ms))

    def _release(self) -> None:
        """Something follows a held `<p>`/`<s>` pause: it is due."""
        if self._held:
            self._out.append(Pause(self._held))
        self._held = None

    def _take(self) -> list[Segment]:
        out, self._out = self._out, []
        return out
