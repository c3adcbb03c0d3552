"""The per-connection Wyoming protocol state machine.

Events are read and answered as they come; audio is written by a separate task that plays the
connection's responses in order, so the connection keeps reading (streamed text, `describe`) while
audio flows. Every request ends with its closing event (`audio-stop`, and `synthesize-stopped` for a
stream), even after an error. A client that goes away cancels its work on the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
)

from .engine.job import JobError, SynthesisJob
from .engine.worker import EngineBusy
from .protocol import ProtocolError, read_event
from .service import Service
from .settings import CHANNELS, SAMPLE_RATE, SAMPLE_WIDTH
from .text.sentences import SentenceSplitter
from .text.speech import prepare_for_speech

_LOGGER = logging.getLogger(__name__)

MAX_PENDING_REQUESTS = 16
"""Requests one connection may have unanswered; past this it is not read (TCP backpressure)."""


@dataclass(eq=False)
class _Response:
    """One request's answer, written in the order requests arrived on the connection."""

    job: SynthesisJob
    streaming: bool
    error: JobError | None = None
    """Reported after the audio, just before `audio-stop`."""
    stop_received: asyncio.Event = field(default_factory=asyncio.Event)
    """For a stream: `synthesize-stopped` may only follow the client's `synthesize-stop`."""
    audio_done: bool = False
    """The engine has nothing more to send for it."""

    @property
    def generating(self) -> bool:
        """The engine holds this request: its audio may still come."""
        return self.job.submitted and not self.audio_done


@dataclass(eq=False)
class _Stream:
    """An open `synthesize-start` ... `synthesize-stop` request."""

    response: _Response
    splitter: SentenceSplitter
    chars: int = 0


class TtsEventHandler(AsyncEventHandler):
    """Serves one client connection."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, service: Service
    ):
        super().__init__(reader, writer)
        self._service = service
        self._settings = service.settings
        self._responses: asyncio.Queue[_Response] = asyncio.Queue()
        self._live: set[_Response] = set()
        self._stream: _Stream | None = None
        self._idle = asyncio.Event()
        """Set while no response is being written or waiting to be written."""
        self._idle.set()
        self._room = asyncio.Event()
        """Set while the connection may send another request."""
        self._room.set()
        self._audio_writer = asyncio.create_task(self._write_responses(), name="tts audio writer")

    @property
    def pending_requests(self) -> int:
        """Requests received on this connection and not yet fully answered."""
        return len(self._live)

    async def run(self) -> None:
        """Read events until the client leaves; malformed input is answered, never fatal."""
        try:
            while True:
                await self._room.wait()
                try:
                    event = await self._next_event()
                except ProtocolError as error:
                    _LOGGER.warning("Bad input from client: %s", error)
                    await self._send_error("bad-event", str(error))
                    if error.in_step:
                        continue
                    break
                except asyncio.TimeoutError:
                    _LOGGER.debug("Closing idle connection")
                    break
                if event is None or not await self.handle_event(event):
                    break
        except (ConnectionError, OSError, asyncio.TimeoutError) as error:
            _LOGGER.debug("Connection lost: %s", error)
        except Exception:
            _LOGGER.exception("Closing the connection after an unexpected error")
        finally:
            await self.disconnect()
            self.writer.close()

    async def _next_event(self) -> Event | None:
        """The next event; a client silent for `idle_timeout` while no audio is due is gone."""
        if any(response.generating for response in self._live):
            return await read_event(self.reader)
        return await asyncio.wait_for(read_event(self.reader), self._settings.idle_timeout)

    async def close_gracefully(self, grace: float) -> None:
        """Server shutdown: end every request with its closing events, then hang up."""
        for response in self._live:
            if not response.job.submitted:
                response.job.finish_unsubmitted()
            response.stop_received.set()
        self._stream = None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), grace)
        await self.stop()

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self._write(self._service.info().event())
            return True
        if SynthesizeStart.is_type(event.type):
            await self._start_stream(event.data)
            return True
        if SynthesizeChunk.is_type(event.type):
            await self._stream_chunk(event.data)
            return True
        if SynthesizeStop.is_type(event.type):
            await self._stop_stream()
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
        """The client is gone: stop generating for it and drop what it queued."""
        for response in self._live:
            response.job.cancel()
        self._audio_writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._audio_writer

    # Requests.

    async def _synthesize(self, data: dict[str, Any]) -> None:
        response = self._new_response(data, streaming=False)
        raw = data.get("text")
        if not isinstance(raw, str):
            self._fail(response, JobError("bad-request", "synthesize needs a text string"))
            return
        text: str = raw
        if len(text) > self._settings.max_text_chars:
            self._fail(response, self._too_long(len(text)))
            return
        if self._settings.clean_text:
            # Milliseconds of regular expressions for a long text: not on the loop.
            text = await asyncio.to_thread(
                prepare_for_speech,
                text,
                self._service.language,
                numbers=self._settings.number_words,
            )
        if not text.strip():
            response.job.finish_unsubmitted()
            return
        response.job.add_text(text)
        response.job.close()
        self._submit(response)

    async def _start_stream(self, data: dict[str, Any]) -> None:
        if self._stream is not None:
            _LOGGER.warning("synthesize-start while a stream is open: closing the previous one")
            await self._finish_stream(self._stream)
        response = self._new_response(data, streaming=True)
        splitter = SentenceSplitter(
            clean=self._settings.clean_text,
            language=self._service.language,
            numbers=self._settings.number_words,
        )
        self._stream = _Stream(response, splitter)

    async def _stream_chunk(self, data: dict[str, Any]) -> None:
        stream, text = self._stream, data.get("text")
        if stream is None:
            await self._send_error("no-stream", "synthesize-chunk without synthesize-start")
            return
        if not isinstance(text, str):
            await self._send_error("bad-request", "synthesize-chunk needs a text string")
            return
        if stream.response.error is not None:
            return  # the stream has failed; its closing events follow synthesize-stop
        stream.chars += len(text)
        if stream.chars > self._settings.max_text_chars:
            self._fail(stream.response, self._too_long(stream.chars))
            return
        for sentence in await asyncio.to_thread(stream.splitter.add, text):
            self._speak(stream.response, sentence)

    async def _stop_stream(self) -> None:
        stream = self._stream
        if stream is None:
            await self._send_error("no-stream", "synthesize-stop without synthesize-start")
            await self._write(SynthesizeStopped().event())
            return
        await self._finish_stream(stream)

    async def _finish_stream(self, stream: _Stream) -> None:
        self._stream = None
        response = stream.response
        if response.error is None:
            for sentence in await asyncio.to_thread(stream.splitter.finish):
                self._speak(response, sentence)
            if response.job.submitted:
                response.job.close()
            else:
                response.job.finish_unsubmitted()
        response.stop_received.set()

    # Helpers.

    def _new_response(self, data: dict[str, Any], streaming: bool) -> _Response:
        voice = self._service.catalog.resolve(_voice_name(data))
        response = _Response(SynthesisJob(voice, asyncio.get_running_loop()), streaming)
        self._live.add(response)
        self._idle.clear()
        if len(self._live) >= MAX_PENDING_REQUESTS:
            self._room.clear()
        self._responses.put_nowait(response)
        return response

    def _speak(self, response: _Response, sentence: str) -> None:
        """Hand a complete sentence to the engine; the first one queues the request."""
        if response.error is not None:
            return
        response.job.add_text(sentence)
        if not response.job.submitted:
            self._submit(response)

    def _submit(self, response: _Response) -> None:
        try:
            self._service.engine.submit(response.job)
        except EngineBusy as error:
            _LOGGER.warning("Refusing request: %s", error)
            self._fail(response, JobError("busy", f"Server busy: {error}"))

    def _fail(self, response: _Response, error: JobError) -> None:
        response.error = error
        if response.job.submitted:
            response.job.cancel()
        else:
            response.job.finish_unsubmitted()

    def _too_long(self, length: int) -> JobError:
        limit = self._settings.max_text_chars
        return JobError("text-too-long", f"Text has {length} characters; the limit is {limit}")

    async def _send_error(self, code: str, text: str) -> None:
        await self._write(Error(text=text, code=code).event())

    async def _write_responses(self) -> None:
        """Play responses in order: audio-start, audio-chunk*, [error], audio-stop[, stopped]."""
        fmt = {"rate": SAMPLE_RATE, "width": SAMPLE_WIDTH, "channels": CHANNELS}
        try:
            while True:
                response = await self._responses.get()
                await self._write(AudioStart(**fmt).event())
                while (item := await response.job.output.get()) is not None:
                    if isinstance(item, bytes):
                        await self._write(AudioChunk(audio=item, **fmt).event())
                    else:
                        response.error = response.error or item
                response.audio_done = True
                if response.error is not None:
                    await self._write(
                        Error(text=response.error.text, code=response.error.code).event()
                    )
                await self._write(AudioStop().event())
                if response.streaming:
                    await response.stop_received.wait()
                    await self._write(SynthesizeStopped().event())
                self._live.discard(response)
                self._room.set()
                if not self._live:
                    self._idle.set()
        except (ConnectionError, asyncio.TimeoutError, OSError) as error:
            _LOGGER.debug("Client stopped receiving audio: %s", error)
            for response in self._live:
                response.job.cancel()
            self.writer.close()

    async def _write(self, event: Event) -> None:
        """Write one event; a client that stops reading for `write_timeout` is gone."""
        await asyncio.wait_for(self.write_event(event), timeout=self._settings.write_timeout)


def _voice_name(data: dict[str, Any]) -> str | None:
    """The requested voice name, if the client sent a well-formed one."""
    voice = data.get("voice")
    name = voice.get("name") if isinstance(voice, dict) else None
    return name if isinstance(name, str) else None
