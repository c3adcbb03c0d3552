"""The per-connection Wyoming protocol state machine.

Events are read and answered as they come; audio is written by a separate task that plays the
connection's responses in order, so the connection keeps reading (streamed text, `describe`) while
audio flows. Every request ends with its closing event (`audio-stop`, and `synthesize-stopped` for a
stream), even after an error.

End of input means "no more requests": what was asked is answered, then the server hangs up. A
client that resets the connection or stops reading for `write_timeout` is gone: its work leaves the
engine at once. A connection with no audio due may stay silent for `idle_timeout`; an open stream
may go `stream_timeout` without text.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from dataclasses import dataclass, field
from typing import Any

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.ping import Ping
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
)

from .engine.job import JobError, Outbox, SynthesisJob
from .engine.scheduler import SHUTDOWN, EngineBusy
from .protocol import ProtocolError, read_event
from .service import Service
from .settings import CHANNELS, SAMPLE_RATE, SAMPLE_WIDTH
from .text.sentences import SentenceSplitter, ends_sentence
from .text.speech import prepare_for_speech

_LOGGER = logging.getLogger(__name__)

MAX_PENDING_REQUESTS = 16
"""Requests one connection may have unanswered; past this it is not read (TCP backpressure)."""

WRITER_EXIT_TIMEOUT = 1.0
"""Seconds a cancelled audio writer gets to finish before the connection is dropped anyway."""

PROBE_SECONDS = 0.5
"""After end of input, how long to watch for the reset a closed client answers a write with."""


class _Quiet(Exception):
    """The client said nothing for longer than it may."""


@dataclass(eq=False)
class _Response:
    """One request's answer, written in the order requests arrived on the connection."""

    job: SynthesisJob
    streaming: bool
    error: JobError | None = None
    """Reported after the audio, just before `audio-stop`."""
    stop_received: asyncio.Event = field(default_factory=asyncio.Event)
    """For a stream: `synthesize-stopped` may only follow the client's `synthesize-stop`."""
    notice: Error | None = None
    """Not a request: an error to send, followed by `synthesize-stopped`, in its turn."""


@dataclass(eq=False)
class _Stream:
    """An open `synthesize-start` ... `synthesize-stop` request."""

    response: _Response
    splitter: SentenceSplitter
    chars: int = 0
    last_text: float = 0.0
    """Loop time of the last text (or the start): the stream timeout counts from here."""


class TtsEventHandler(AsyncEventHandler):
    """Serves one client connection."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, service: Service
    ):
        super().__init__(reader, writer)
        self._service = service
        self._settings = service.settings
        self._scheduler = service.engine.scheduler
        self._loop = asyncio.get_running_loop()
        self._outbox = Outbox()
        self._responses: asyncio.Queue[_Response] = asyncio.Queue()
        self._live: set[_Response] = set()
        self._stream: _Stream | None = None
        self._last_activity = self._loop.time()
        self._idle = asyncio.Event()
        """Set while no response is being written or waiting to be written."""
        self._idle.set()
        self._room = asyncio.Event()
        """Set while the connection may send another request (or the writer has stopped)."""
        self._room.set()
        self._audio_writer = asyncio.create_task(self._write_responses(), name="tts audio writer")

    @property
    def pending_requests(self) -> int:
        """Requests received on this connection and not yet fully answered."""
        return len(self._live)

    @property
    def buffered_audio(self) -> int:
        """Bytes of audio generated for this connection and not yet written to it."""
        return self._outbox.bytes

    async def run(self) -> None:
        """Read events until the end of input, answer what was asked, then hang up."""
        try:
            if await self._read_events():
                await self._answer_the_rest()
        except (ConnectionError, OSError, asyncio.TimeoutError) as error:
            _LOGGER.debug("Connection lost: %s", error)
        except _Quiet as quiet:
            _LOGGER.debug("Closing the connection: %s", quiet)
        except Exception:
            _LOGGER.exception("Closing the connection after an unexpected error")
        finally:
            await self.disconnect()

    async def _read_events(self) -> bool:
        """Handle events; True at the end of input, False when the connection should close."""
        while True:
            await self._room.wait()
            if self._audio_writer.done():
                return False
            try:
                event = await self._next_event()
            except ProtocolError as error:
                _LOGGER.warning("Bad input from client: %s", error)
                await self._send_error("bad-event", str(error))
                if error.in_step:
                    continue
                return False
            if event is None:
                return True
            self._last_activity = self._loop.time()
            if not await self.handle_event(event):
                return False

    async def _next_event(self) -> Event | None:
        """The next event, while watching the idle and stream timeouts and the audio writer."""
        read = asyncio.ensure_future(read_event(self.reader))
        try:
            while True:
                await asyncio.wait(
                    {read, self._audio_writer},
                    timeout=self._check_timeouts(),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if read.done():
                    return read.result()
                if self._audio_writer.done():
                    raise ConnectionError("the client stopped receiving audio")
        finally:
            read.cancel()

    def _check_timeouts(self) -> float:
        """Apply the timeout that holds now; return how long to wait before checking again."""
        now = self._loop.time()
        stream = self._stream
        if stream is not None:
            left = stream.last_text + self._settings.stream_timeout - now
            if left <= 0:
                _LOGGER.warning(
                    "Ending a stream that sent no text for %.0f s", now - stream.last_text
                )
                self._end_stream(stream, JobError("stream-timeout", "No text came for too long"))
                return self._poll
            return left
        if self._live:  # audio is due: the write timeout watches the client
            return self._poll
        left = self._last_activity + self._settings.idle_timeout - now
        if left <= 0:
            raise _Quiet(f"idle for {now - self._last_activity:.0f} s")
        return left

    @property
    def _poll(self) -> float:
        """How often to look again while audio is due."""
        return min(1.0, self._settings.idle_timeout)

    async def _answer_the_rest(self) -> None:
        """End of input: finish an open stream and write every answer still due.

        A client that half-closed (`nc -N`) wants its answers; one that closed the socket is gone,
        and its queued requests must leave the engine now, not when their audio fails to send.
        TCP tells them apart only when something is written: a closed socket answers with a reset.
        """
        if self._stream is not None:
            self._end_stream(self._stream)
        if not self._live:
            return
        if await self._client_closed():
            raise ConnectionResetError("the client closed the connection")
        idle = asyncio.ensure_future(self._idle.wait())
        try:
            await asyncio.wait({idle, self._audio_writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            idle.cancel()

    async def _client_closed(self) -> bool:
        """Write a `ping` (clients skip events they do not expect) and watch for a reset."""
        await self._write(Ping().event())
        sock = self.writer.get_extra_info("socket")
        deadline = self._loop.time() + PROBE_SECONDS
        while self._loop.time() < deadline:
            if self._audio_writer.done() or _socket_error(sock):
                return True
            await asyncio.sleep(PROBE_SECONDS / 10)
        return False

    async def close_gracefully(self, grace: float) -> None:
        """Server shutdown: end every request with its closing events, then hang up."""
        for response in self._live:
            self._scheduler.cancel(response.job, SHUTDOWN)
            response.stop_received.set()
        self._stream = None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace)
        await self.disconnect()

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self._write(self._service.info().event())
            return True
        if SynthesizeStart.is_type(event.type):
            self._start_stream(event.data)
            return True
        if SynthesizeChunk.is_type(event.type):
            await self._stream_chunk(event.data)
            return True
        if SynthesizeStop.is_type(event.type):
            self._stop_stream()
            return True
        if Synthesize.is_type(event.type):
            if self._stream is not None:
                _LOGGER.debug("Ignoring synthesize inside a stream (sent for older servers)")
            else:
                await self._synthesize(event.data)
            return True
        _LOGGER.debug("Unexpected event: type=%s", event.type)
        await self._send_error("unsupported-event", f"Unsupported event type: {event.type!r}")
        return True

    async def disconnect(self) -> None:
        """The client is gone: stop generating for it, drop what it queued, hang up."""
        for response in self._live:
            self._scheduler.cancel(response.job)
        self.writer.close()
        self._audio_writer.cancel()
        # Bounded: a cancelled write may not notice at once, and the slot must come back.
        await asyncio.wait({self._audio_writer}, timeout=WRITER_EXIT_TIMEOUT)

    # Requests.

    async def _synthesize(self, data: dict[str, Any]) -> None:
        response = self._new_response(data, streaming=False)
        raw = data.get("text")
        if not isinstance(raw, str):
            self._fail(response, JobError("bad-request", "synthesize needs a text string"))
            return
        language = response.job.voice.language
        if len(raw) > self._settings.max_text_chars:
            # Speak the whole sentences that fit, then say why the rest is missing.
            fitting = await asyncio.to_thread(
                _whole_sentences, self._splitter(language), raw[: self._settings.max_text_chars]
            )
            response.error = self._too_long(len(raw))
            if fitting:
                self._speak(response, " ".join(fitting))
            self._scheduler.close(response.job)
            return
        text = await asyncio.to_thread(self._prepare, raw, language)
        if text.strip():
            self._speak(response, text)
        self._scheduler.close(response.job)

    def _start_stream(self, data: dict[str, Any]) -> None:
        if self._stream is not None:
            _LOGGER.warning("synthesize-start while a stream is open: closing the previous one")
            self._end_stream(self._stream)
        response = self._new_response(data, streaming=True)
        splitter = self._splitter(response.job.voice.language)
        self._stream = _Stream(response, splitter, last_text=self._loop.time())

    async def _stream_chunk(self, data: dict[str, Any]) -> None:
        stream, text = self._stream, data.get("text")
        if stream is None:
            await self._send_error("no-stream", "synthesize-chunk without synthesize-start")
            return
        if not isinstance(text, str):
            await self._send_error("bad-request", "synthesize-chunk needs a text string")
            return
        stream.last_text = self._loop.time()
        response = stream.response
        if response.error is not None:
            return  # the stream has failed or is full; its closing events follow synthesize-stop
        room = self._settings.max_text_chars - stream.chars
        stream.chars += len(text)
        if len(text) > room:
            # Keep what was accepted, spoken up to its last whole sentence; take no more text.
            response.error = self._too_long(stream.chars)
            sentences = await asyncio.to_thread(_whole_sentences, stream.splitter, text[:room])
            for sentence in sentences:
                self._speak(response, sentence)
            self._scheduler.close(response.job)
            return
        for sentence in await asyncio.to_thread(stream.splitter.add, text):
            self._speak(response, sentence)

    def _stop_stream(self) -> None:
        stream = self._stream
        if stream is None:
            # Answered in turn, after the audio of earlier requests on this connection.
            notice = Error(text="synthesize-stop without synthesize-start", code="no-stream")
            response = _Response(
                SynthesisJob(self._service.catalog.default, self._loop, self._outbox),
                streaming=True,
                notice=notice,
            )
            self._queue(response)
            return
        self._end_stream(stream)

    def _end_stream(self, stream: _Stream, error: JobError | None = None) -> None:
        """No more text for this stream: speak what it has, then its closing events."""
        self._stream = None
        response = stream.response
        if response.error is None:
            response.error = error
            # Small and bounded by max_text_chars: fine on the loop.
            for sentence in stream.splitter.finish():
                self._speak(response, sentence)
        self._scheduler.close(response.job)
        response.stop_received.set()

    # Helpers.

    def _prepare(self, text: str, language: str) -> str:
        """One-shot text as the model should read it, in its voice's language."""
        settings = self._settings
        return prepare_for_speech(
            text, language, clean=settings.clean_text, numbers=settings.number_words
        )

    def _splitter(self, language: str) -> SentenceSplitter:
        """Streamed text to sentences as the model should read them, in `language`."""
        settings = self._settings
        return SentenceSplitter(settings.clean_text, language, settings.number_words)

    def _new_response(self, data: dict[str, Any], streaming: bool) -> _Response:
        voice = self._service.catalog.resolve(*_voice_request(data))
        response = _Response(SynthesisJob(voice, self._loop, self._outbox), streaming)
        self._queue(response)
        return response

    def _queue(self, response: _Response) -> None:
        self._live.add(response)
        self._idle.clear()
        if len(self._live) >= MAX_PENDING_REQUESTS:
            self._room.clear()
        self._responses.put_nowait(response)

    def _speak(self, response: _Response, sentence: str) -> None:
        """Hand a complete sentence to the engine; the first one admits the request."""
        job = response.job
        if job.stop.is_set():
            return
        if not job.admitted:
            try:
                self._scheduler.admit(job)
            except EngineBusy as error:
                _LOGGER.warning("Refusing request: %s", error)
                self._fail(response, JobError("busy", f"Server busy: {error}"))
                return
        self._scheduler.add_text(job, sentence)

    def _fail(self, response: _Response, error: JobError) -> None:
        """End a request now, with `error` instead of (the rest of) its audio."""
        response.error = error
        self._scheduler.cancel(response.job)

    def _too_long(self, length: int) -> JobError:
        limit = self._settings.max_text_chars
        return JobError(
            "text-too-long",
            f"Text has {length} characters; the limit is {limit}: spoke what fitted",
        )

    async def _send_error(self, code: str, text: str) -> None:
        await self._write(Error(text=text, code=code).event())

    async def _write_responses(self) -> None:
        """Play responses in order: audio-start, audio-chunk*, [error], audio-stop[, stopped]."""
        fmt = {"rate": SAMPLE_RATE, "width": SAMPLE_WIDTH, "channels": CHANNELS}
        try:
            while True:
                response = await self._responses.get()
                if response.notice is not None:
                    await self._write(response.notice.event())
                    await self._write(SynthesizeStopped().event())
                    self._answered(response)
                    continue
                await self._write(AudioStart(**fmt).event())
                while (item := await response.job.output.get()) is not None:
                    if isinstance(item, bytes):
                        self._taken(len(item))
                        await self._write(AudioChunk(audio=item, **fmt).event())
                    else:
                        response.error = response.error or item
                if response.error is not None:
                    await self._write(
                        Error(text=response.error.text, code=response.error.code).event()
                    )
                await self._write(AudioStop().event())
                if response.streaming:
                    await response.stop_received.wait()
                    await self._write(SynthesizeStopped().event())
                self._answered(response)
        except (ConnectionError, asyncio.TimeoutError, OSError) as error:
            _LOGGER.debug("Client stopped receiving audio: %s", error)
            for response in self._live:
                self._scheduler.cancel(response.job)
        finally:
            self._room.set()  # the read loop must not wait for room that will never come

    def _taken(self, size: int) -> None:
        """Audio left the outbox: wake the engine if this connection was paused."""
        held = self._outbox.remove(size)
        if held < self._scheduler.max_buffered <= held + size:
            self._scheduler.wake()

    def _answered(self, response: _Response) -> None:
        self._live.discard(response)
        self._room.set()
        self._last_activity = self._loop.time()
        if not self._live:
            self._idle.set()

    async def _write(self, event: Event) -> None:
        """Write one event; a client that stops reading for `write_timeout` is gone."""
        await asyncio.wait_for(self.write_event(event), timeout=self._settings.write_timeout)


def _socket_error(sock: socket.socket | None) -> int:
    """The pending error of a socket (a reset shows here before any read or write)."""
    if sock is None:
        return 0
    try:
        return sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    except OSError as error:
        return error.errno or -1


def _whole_sentences(splitter: SentenceSplitter, text: str) -> list[str]:
    """The sentences of what is left of a stream plus `text`, without an unfinished last one."""
    sentences = splitter.add(text) + splitter.finish()
    if sentences and not ends_sentence(sentences[-1]):
        sentences.pop()
    return sentences


def _voice_request(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """The requested voice name and language, where the client sent well-formed ones."""
    voice = data.get("voice")
    if not isinstance(voice, dict):
        return None, None
    name, language = voice.get("name"), voice.get("language")
    return (
        name if isinstance(name, str) else None,
        language if isinstance(language, str) else None,
    )
