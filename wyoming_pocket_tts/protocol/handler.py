"""One Wyoming connection: its read loop, its timeouts and its end.

Events are read and answered as they come: each request is a `Session` of the connection's
`Line` (the engine's edge), whose audio goes out through the connection's `ReplyWriter`. End of
input means "no more requests": what was asked is answered, then the server hangs up. A client
that resets the connection or stops reading for `write_timeout` is gone: its work leaves the
engine at once. A connection with no audio due may stay silent for `idle_timeout`; an open
stream may go `stream_timeout` without text.

It keeps `AsyncEventHandler`'s interface (`handle_event`, `write_event`) but runs its own read
loop, because the library's reads are unbounded and it cannot watch timeouts or the writer.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe
from wyoming.ping import Ping
from wyoming.server import AsyncEventHandler
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop

from .. import errors
from ..errors import JobError
from ..intake import Intake, Session
from ..service import Service
from .events import ProtocolError, read_event
from .replies import Reply, ReplyWriter

_LOGGER = logging.getLogger(__name__)

WRITER_EXIT_TIMEOUT = 1.0
"""Seconds a cancelled reply writer gets to finish before the connection is dropped anyway."""

PROBE_SECONDS = 0.5
"""After end of input, how long to watch for the reset a closed client answers a write with."""


class _Quiet(Exception):
    """The client said nothing for longer than it may."""


class TtsEventHandler(AsyncEventHandler):
    """Serves one client connection."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, service: Service
    ):
        super().__init__(reader, writer)
        self._service = service
        self._settings = service.settings
        self._loop = asyncio.get_running_loop()
        self._line = Intake(service).line()
        self._replies = ReplyWriter(self._write, self._answered)
        self._stream: tuple[Reply, Session] | None = None
        self._last_text = 0.0
        """Loop time of the open stream's last text (or start): its timeout counts from here."""
        self._last_activity = self._loop.time()

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
            await self._replies.room.wait()
            if self._replies.task.done():
                return False
            try:
                event = await self._next_event()
            except ProtocolError as error:
                _LOGGER.warning("Bad input from client: %s", error)
                await self._send_error(errors.BAD_EVENT, str(error))
                if error.in_step:
                    continue
                return False
            if event is None:
                return True
            self._last_activity = self._loop.time()
            if not await self.handle_event(event):
                return False

    async def _next_event(self) -> Event | None:
        """The next event, while watching the idle and stream timeouts and the reply writer."""
        read = asyncio.ensure_future(read_event(self.reader))
        writer = self._replies.task
        try:
            while True:
                await asyncio.wait(
                    {read, writer},
                    timeout=self._check_timeouts(),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if read.done():
                    return read.result()
                if writer.done():
                    raise ConnectionError("the client stopped receiving audio")
        finally:
            read.cancel()

    def _check_timeouts(self) -> float:
        """Apply the timeout that holds now; return how long to wait before checking again."""
        now = self._loop.time()
        if self._stream is not None:
            left = self._last_text + self._settings.stream_timeout - now
            if left <= 0:
                quiet = now - self._last_text
                _LOGGER.warning("Ending a stream that sent no text for %.0f s", quiet)
                self._end_stream(JobError(errors.STREAM_TIMEOUT, "No text came for too long"))
                return self._poll
            return left
        if self._replies.live:  # audio is due: the write timeout watches the client
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
        self._end_stream()
        if not self._replies.live:
            return
        if await self._client_closed():
            raise ConnectionResetError("the client closed the connection")
        await self._until_answered()

    async def _until_answered(self, timeout: float | None = None) -> None:
        """Wait until every reply is written, the writer stops, or `timeout` passes."""
        idle = asyncio.ensure_future(self._replies.idle.wait())
        try:
            await asyncio.wait(
                {idle, self._replies.task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            idle.cancel()

    async def _client_closed(self) -> bool:
        """Write a `ping` (clients skip events they do not expect) and watch for a reset."""
        await self._write(Ping().event())
        sock = self.writer.get_extra_info("socket")
        deadline = self._loop.time() + PROBE_SECONDS
        while self._loop.time() < deadline:
            if self._replies.task.done() or _socket_error(sock):
                return True
            await asyncio.sleep(PROBE_SECONDS / 10)
        return False

    async def close_gracefully(self, grace: float) -> None:
        """Server shutdown (the scheduler has cut every request): let the engine end them, and
        after `grace` end those it cannot (stuck in a load or an encode) from here; write every
        closing event, then hang up."""
        self._stream = None
        for reply in self._replies.live:
            reply.stop_received.set()
        await self._until_answered(grace)
        for session in self._replies.sessions():
            session.abandon()
        await self._until_answered(grace)
        await self.disconnect()

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
            self._stop_stream()
            return True
        if Synthesize.is_type(event.type):
            if self._stream is not None:
                _LOGGER.debug("Ignoring synthesize inside a stream (sent for older servers)")
            else:
                await self._synthesize(event.data)
            return True
        _LOGGER.debug("Unexpected event: type=%s", event.type)
        await self._send_error(errors.UNSUPPORTED_EVENT, f"Unsupported event type: {event.type!r}")
        return True

    async def disconnect(self) -> None:
        """The client is gone: stop generating for it, drop what it queued, hang up."""
        for session in self._replies.sessions():
            session.cancel()
        self.writer.close()
        self._replies.task.cancel()
        # Bounded: a cancelled write may not notice at once, and the slot must come back.
        await asyncio.wait({self._replies.task}, timeout=WRITER_EXIT_TIMEOUT)

    # Requests.

    async def _open(self, data: dict[str, Any], streaming: bool) -> tuple[Reply, Session]:
        name, language = _voice_request(data)
        session = await self._line.open(name, language, ssml=_is_ssml(data))
        reply = Reply(session, streaming)
        self._replies.add(reply)
        return reply, session

    async def _synthesize(self, data: dict[str, Any]) -> None:
        _, session = await self._open(data, streaming=False)
        raw = data.get("text")
        if not isinstance(raw, str):
            session.refuse(JobError(errors.BAD_REQUEST, "synthesize needs a text string"))
            return
        await session.speak(raw)

    async def _start_stream(self, data: dict[str, Any]) -> None:
        if self._stream is not None:
            _LOGGER.warning("synthesize-start while a stream is open: closing the previous one")
            self._end_stream()
        self._stream = await self._open(data, streaming=True)
        self._last_text = self._loop.time()

    async def _stream_chunk(self, data: dict[str, Any]) -> None:
        text = data.get("text")
        if self._stream is None:
            await self._send_error(errors.NO_STREAM, "synthesize-chunk without synthesize-start")
            return
        if not isinstance(text, str):
            await self._send_error(errors.BAD_REQUEST, "synthesize-chunk needs a text string")
            return
        self._last_text = self._loop.time()
        await self._stream[1].add(text)

    def _stop_stream(self) -> None:
        if self._stream is None:
            # Answered in turn, after the audio of earlier requests on this connection.
            notice = Error(text="synthesize-stop without synthesize-start", code=errors.NO_STREAM)
            self._replies.add(Reply(None, streaming=True, notice=notice))
            return
        self._end_stream()

    def _end_stream(self, error: JobError | None = None) -> None:
        """No more text for the open stream (if any): speak what it has, then its closing
        events."""
        if self._stream is None:
            return
        reply, session = self._stream
        self._stream = None
        session.end(error)
        reply.stop_received.set()

    # Writing.

    def _answered(self) -> None:
        self._last_activity = self._loop.time()

    async def _send_error(self, code: str, text: str) -> None:
        await self._write(Error(text=text, code=code).event())

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


def _is_ssml(data: dict[str, Any]) -> bool:
    """Wyoming 1.10's `text_format: ssml` (Home Assistant never sends it; other clients may)."""
    return data.get("text_format") == "ssml"


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
