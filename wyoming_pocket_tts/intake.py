"""The engine's edge: one `Session` owns a request from its first text to its last audio.

Every front door goes through here and only here: the Wyoming handler and the HTTP routes
translate their wire formats into a session and out of it, and neither touches the scheduler or a
listener. A `Line` is whoever hears requests in order (a Wyoming connection, one HTTP answer);
`Line.open` resolves the voice once (off the event loop: it may rescan the voice folders) and
admits the request, or ends it at once with `busy`. Text then goes through one preparation for
plain text and SSML, whether it comes whole (`speak`) or in pieces (`add`, `finish`): cleaned,
the household's pronunciations applied, numbers read in the voice's language, cut into sentences
that go to the engine as each completes; SSML's breaks become pauses, its `<prosody rate>` a rate
and its `xml:lang` the default voice of that language where one is served, with that language's
pronunciations. All of it runs off the
event loop. Past `max_text_chars` the whole sentences that fit are spoken, then `text-too-long`.
Audio comes out through `Session.audio`, which counts what is unread and wakes the engine.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

from .engine.serving.request import Listener, Piece, SpeechRequest
from .engine.serving.scheduler import EngineBusy
from .errors import TEXT_TOO_LONG, JobError
from .service import Service
from .settings import VoiceSpec
from .text.sentences import SentenceSplitter, ends_sentence
from .text.speech import prepare_for_speech
from .text.ssml import Pause, Segment, Sentence, SsmlStream

_LOGGER = logging.getLogger(__name__)


class Intake:
    """What every session of a server shares: the service, its settings and the engine."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.settings = service.settings
        self.scheduler = service.engine.scheduler

    def line(self) -> Line:
        """A new listener: its requests are answered in order, one after the other."""
        return Line(self)

    @property
    def max_text_chars(self) -> int:
        """Longest text one request may have, streamed or not."""
        return self.settings.max_text_chars

    def too_long(self, length: int) -> JobError | None:
        """Why a text of `length` characters cannot be spoken whole (None: it can)."""
        limit = self.max_text_chars
        if length <= limit:
            return None
        return JobError(TEXT_TOO_LONG, f"Text has {length} characters; the limit is {limit}")

    def prepare(self, text: str, language: str) -> str:
        """A whole text as the model should read it, in `language` (blocking: off the loop)."""
        settings = self.settings
        return prepare_for_speech(
            text,
            language,
            clean=settings.clean_text,
            numbers=settings.number_words,
            pronounce=self.service.pronunciations.lexicon(language).apply,
        )


class Line:
    """A listener of the engine: a Wyoming connection, or one HTTP answer."""

    def __init__(self, intake: Intake) -> None:
        self._intake = intake
        self._listener = Listener()

    async def open(
        self,
        name: object = None,
        language: object = None,
        *,
        speed: float | None = None,
        ssml: bool = False,
        voice: VoiceSpec | None = None,
    ) -> Session:
        """A session for the voice called `name` (else `language`'s default, else the default
        voice), or `voice` already resolved; admitted, or already ended with its error.
        `speed` overrides the voice's speaking rate; `ssml` says how its text is written."""
        if voice is None:
            catalog = self._intake.service.catalog
            voice = await asyncio.to_thread(catalog.resolve, name, language)
        return Session(self._intake, self._listener, voice, speed, ssml)


class Session:
    """One request: its text in (plain or SSML, whole or in pieces), its audio and errors out."""

    def __init__(
        self,
        intake: Intake,
        listener: Listener,
        voice: VoiceSpec,
        speed: float | None,
        ssml: bool,
    ) -> None:
        self._intake = intake
        self._service = intake.service
        self._scheduler = intake.scheduler
        self._listener = listener
        self.request = SpeechRequest(voice, asyncio.get_running_loop(), listener, speed)
        settings = intake.settings
        language = voice.code
        pronunciations = self._service.pronunciations

        def pronounce(text: str, code: str = language) -> str:  # off the loop: a file is read
            return pronunciations.lexicon(code).apply(text)

        def pronounce_in(passage: str) -> Callable[[str], str]:
            """An `xml:lang` passage's entries: those of the language whose voice speaks it."""
            code = self._service.catalog.served_language(passage) or language
            return lambda text: pronounce(text, code)

        self._splitter: SentenceSplitter | SsmlStream
        if ssml:
            self._splitter = SsmlStream(
                language,
                clean=settings.clean_text,
                numbers=settings.number_words,
                pronounce=pronounce,
                pronounce_in=pronounce_in,
            )
        else:
            self._splitter = SentenceSplitter(
                settings.clean_text, language, settings.number_words, pronounce
            )
        self._chars = 0
        self._full = False  # no more text is taken
        self._ending: asyncio.Task[None] | None = None
        self.spoken = False
        """Some text (not only pauses) has gone to the engine."""
        try:
            self._scheduler.admit(self.request)
        except EngineBusy as busy:
            _LOGGER.warning("Refusing a request: %s", busy)
            self._scheduler.cancel(self.request, busy.error)

    @property
    def voice(self) -> VoiceSpec:
        return self.request.voice

    # Text in.

    async def speak(self, text: str) -> None:
        """A whole text (or SSML document): speak it, then end."""
        await self.add(text)
        await self.finish()

    async def add(self, text: str) -> None:
        """More text; past the limit, the whole sentences that fit are spoken and no more is
        taken."""
        if self._full or self.request.finished:
            return
        room = self._intake.max_text_chars - self._chars
        self._chars += len(text)
        if len(text) <= room:
            self._speak(await asyncio.to_thread(self._splitter.add, text))
            return
        self._full = True
        error = self._intake.too_long(self._chars)
        assert error is not None
        self.request.add_error(JobError(error.code, f"{error.text}: spoke what fitted"))
        self._speak(await asyncio.to_thread(_fitting, self._splitter, text[:room]))
        self._scheduler.close(self.request)

    async def finish(self, error: JobError | None = None) -> None:
        """No more text: speak what is left, then end. `error` (a stream that went quiet) is
        reported after the audio."""
        if not self._full:
            self._full = True
            if error is not None:
                self.request.add_error(error)
            self._speak(await asyncio.to_thread(self._splitter.finish))
        self._scheduler.close(self.request)

    def prepare_voice(self) -> None:
        """No text: the engine only loads, encodes and measures the voice, then the session
        ends (the studio's preparation of a voice it has just saved)."""
        self._full = True
        self._scheduler.add(self.request, Piece(prepare=True))
        self._scheduler.close(self.request)

    def end(self, error: JobError | None = None) -> None:
        """`finish` without waiting for it (from code that cannot await)."""
        if self._ending is None:
            self._ending = asyncio.create_task(self.finish(error), name="tts session end")

    def refuse(self, error: JobError) -> None:
        """End at once with `error` (the request itself is wrong)."""
        self._full = True
        self._scheduler.cancel(self.request, error)

    def _speak(self, items: list[str] | list[Segment]) -> None:
        for item in items:
            piece = self._piece(item)
            self.spoken = self.spoken or bool(piece.text)
            self._scheduler.add(self.request, piece)

    def _piece(self, item: str | Segment) -> Piece:
        """A sentence (an SSML one in its language's voice where one is served) or a pause."""
        if isinstance(item, str):
            return Piece(item)
        if isinstance(item, Pause):
            return Piece(pause_ms=item.ms)
        return Piece(item.text, rate=item.rate, voice=self._voice_of(item))

    def _voice_of(self, sentence: Sentence) -> VoiceSpec | None:
        if sentence.language is None:
            return None
        catalog = self._service.catalog
        code = catalog.served_language(sentence.language)
        if code is None or code == self.voice.code:
            return None
        return catalog.default_for(code)

    # Audio out.

    async def audio(self) -> AsyncIterator[bytes]:
        """The request's PCM as the engine makes it; each chunk read is no longer unread, and
        a request paused for unread audio may go on."""
        max_buffered = self._scheduler.max_buffered
        while (pcm := await self.request.output.get()) is not None:
            held = self._listener.remove(len(pcm))
            if held < max_buffered <= held + len(pcm):
                self._scheduler.wake()
            yield pcm

    @property
    def errors(self) -> list[JobError]:
        """What to report after the audio, failures first (once `audio` has ended)."""
        return self.request.errors

    @property
    def failure(self) -> JobError | None:
        """The first failure (not a warning), once `audio` has ended."""
        return next((error for error in self.errors if error.is_failure), None)

    def cancel(self) -> None:
        """Nobody listens any more: stop generating, drop its text (a no-op once it ended)."""
        self._full = True
        self._scheduler.cancel(self.request)

    def abandon(self) -> None:
        """Shutdown, and the engine is stuck: end its output from here."""
        self._scheduler.abandon(self.request)


def _fitting(splitter: SentenceSplitter | SsmlStream, text: str) -> list[str] | list[Segment]:
    """The sentences of what is left of a stream plus `text`; for plain text without an
    unfinished last one."""
    if isinstance(splitter, SsmlStream):
        return splitter.add(text) + splitter.finish()
    sentences = splitter.add(text) + splitter.finish()
    if sentences and not ends_sentence(sentences[-1]):
        sentences.pop()
    return sentences
