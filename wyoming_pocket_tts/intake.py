"""Text in -> speech requests, the same for every protocol (Wyoming and HTTP).

A request is opened with its voice and admitted at once (or refused with `busy`), then given text:
a whole text at once (`speak_text`), or a stream of pieces (`TextStream`) whose sentences go to the
engine as each completes. Text is cleaned and its numbers read in its voice's language, off the
event loop. Past `max_text_chars` the whole sentences that fit are spoken, then `text-too-long`.
SSML (`ssml=True`) is parsed the same way, sentence by sentence: its breaks become pauses, its
`<prosody rate>` a rate, and its `xml:lang` the default voice of that language where one is served.
"""

from __future__ import annotations

import asyncio
import logging

from .engine.request import Listener, Piece, SpeechRequest
from .engine.scheduler import EngineBusy
from .errors import TEXT_TOO_LONG, JobError
from .service import Service
from .text.sentences import SentenceSplitter, ends_sentence
from .text.speech import prepare_for_speech
from .text.ssml import Pause, Segment, SsmlStream

_LOGGER = logging.getLogger(__name__)


class Intake:
    """Opens requests and hands their text to the engine's scheduler."""

    def __init__(self, service: Service) -> None:
        self._service = service
        self._settings = service.settings
        self._scheduler = service.engine.scheduler

    def open(
        self,
        listener: Listener,
        name: object = None,
        language: object = None,
        speed: float | None = None,
    ) -> SpeechRequest:
        """A new request for the voice called `name` (else `language`'s default, else the
        default voice), admitted; a refused one is already ended with its error. `speed`
        overrides the voice's speaking rate."""
        voice = self._service.catalog.resolve(name, language)
        request = SpeechRequest(voice, asyncio.get_running_loop(), listener, speed)
        try:
            self._scheduler.admit(request)
        except EngineBusy as busy:
            _LOGGER.warning("Refusing a request: %s", busy)
            self._scheduler.cancel(request, busy.error)
        return request

    async def speak_text(self, request: SpeechRequest, raw: str, ssml: bool = False) -> None:
        """Speak a whole text (or SSML document), then end the request."""
        limit = self.max_text_chars
        if ssml:
            if len(raw) > limit:
                request.add_error(self.too_long(len(raw)))
            stream = self.stream(request, ssml=True)
            await stream.add(raw[:limit])
            stream.finish()
            return
        if len(raw) > limit:
            # Speak the whole sentences that fit, then say why the rest is missing.
            splitter = self.splitter(request)
            fitting = await asyncio.to_thread(_whole_sentences, splitter, raw[:limit])
            request.add_error(self.too_long(len(raw)))
            if fitting:
                self.add(request, " ".join(fitting))
        else:
            text = await asyncio.to_thread(self.prepare, raw, request.voice.code)
            if text.strip():
                self.add(request, text)
        self.close(request)

    @property
    def max_text_chars(self) -> int:
        """Longest text one request may have, streamed or not."""
        return self._settings.max_text_chars

    def stream(self, request: SpeechRequest, ssml: bool = False) -> TextStream:
        """Text (or SSML) for `request` that comes in pieces."""
        return TextStream(self, request, ssml)

    def prepare(self, text: str, language: str) -> str:
        """A whole text as the model should read it, in its voice's language."""
        settings = self._settings
        return prepare_for_speech(
            text,
            language,
            clean=settings.clean_text,
            numbers=settings.number_words,
            pronounce=self._service.pronunciations.lexicon(language).apply,
        )

    def splitter(self, request: SpeechRequest) -> SentenceSplitter:
        """Streamed text to sentences as the model should read them, in the voice's language."""
        settings = self._settings
        language = request.voice.code
        pronounce = self._service.pronunciations.lexicon(language).apply
        return SentenceSplitter(settings.clean_text, language, settings.number_words, pronounce)

    def too_long(self, length: int) -> JobError:
        limit = self.max_text_chars
        return JobError(
            TEXT_TOO_LONG,
            f"Text has {length} characters; the limit is {limit}: spoke what fitted",
        )

    def ssml(self, request: SpeechRequest) -> SsmlStream:
        """Streamed SSML to segments, in the voice's language."""
        settings = self._settings
        return SsmlStream(
            request.voice.code, clean=settings.clean_text, numbers=settings.number_words
        )

    def add(self, request: SpeechRequest, sentence: str) -> None:
        self._scheduler.add_text(request, sentence)

    def add_segment(self, request: SpeechRequest, segment: Segment) -> None:
        """An SSML sentence (in its language's voice where one is served) or pause."""
        if isinstance(segment, Pause):
            self._scheduler.add(request, Piece(pause_ms=segment.ms))
            return
        voice = None
        if segment.language is not None:
            catalog = self._service.catalog
            code = catalog.served_language(segment.language)
            if code is not None and code != request.voice.code:
                voice = catalog.default_for(code)
        self._scheduler.add(request, Piece(segment.text, rate=segment.rate, voice=voice))

    def close(self, request: SpeechRequest) -> None:
        self._scheduler.close(request)


class TextStream:
    """A request's text (or SSML) arriving in pieces: each complete sentence is spoken at once."""

    def __init__(self, intake: Intake, request: SpeechRequest, ssml: bool = False) -> None:
        self.request = request
        self._intake = intake
        self._splitter = intake.splitter(request)
        self._ssml = intake.ssml(request) if ssml else None
        self._chars = 0
        self._full = False

    async def add(self, text: str) -> None:
        """More text; past the limit, what fits is spoken and no more is taken."""
        if self._full or self.request.finished:
            return
        room = self._intake.max_text_chars - self._chars
        self._chars += len(text)
        if len(text) > room:
            self._full = True
            self.request.add_error(self._intake.too_long(self._chars))
            if self._ssml is not None:
                self._speak(await asyncio.to_thread(self._ssml.add, text[:room]))
                self._speak(self._ssml.finish())
            else:
                sentences = await asyncio.to_thread(_whole_sentences, self._splitter, text[:room])
                self._speak(sentences)
            self._intake.close(self.request)
            return
        if self._ssml is not None:
            self._speak(await asyncio.to_thread(self._ssml.add, text))
        else:
            self._speak(await asyncio.to_thread(self._splitter.add, text))

    def finish(self, error: JobError | None = None) -> None:
        """No more text: speak what is left (small and bounded: fine on the loop), then end.
        `error` (a stream that went quiet) is reported after the audio."""
        if not self._full:
            if error is not None:
                self.request.add_error(error)
            rest = self._ssml.finish() if self._ssml is not None else self._splitter.finish()
            self._speak(rest)
            self._full = True
        self._intake.close(self.request)

    def _speak(self, items: list[str] | list[Segment]) -> None:
        for item in items:
            if isinstance(item, str):
                self._intake.add(self.request, item)
            else:
                self._intake.add_segment(self.request, item)


def _whole_sentences(splitter: SentenceSplitter, text: str) -> list[str]:
    """The sentences of what is left of a stream plus `text`, without an unfinished last one."""
    sentences = splitter.add(text) + splitter.finish()
    if sentences and not ends_sentence(sentences[-1]):
        sentences.pop()
    return sentences
