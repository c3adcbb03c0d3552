"""Audio out: one connection's replies, written in the order its requests arrived.

A task of its own plays each reply as `audio-start`, `audio-chunk`*, `error`*, `audio-stop` and,
for a stream, `synthesize-stopped` once the client has sent `synthesize-stop`; so the connection
keeps reading (streamed text, `describe`) while audio flows. The closing events are written here
and only here, once per reply, whatever ended the request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event
from wyoming.tts import SynthesizeStopped

from ..intake import Session
from ..settings import CHANNELS, SAMPLE_RATE, SAMPLE_WIDTH

_LOGGER = logging.getLogger(__name__)

MAX_PENDING_REQUESTS = 16
"""Requests one connection may have unanswered; past this it is not read (TCP backpressure)."""

_FORMAT = {"rate": SAMPLE_RATE, "width": SAMPLE_WIDTH, "channels": CHANNELS}


@dataclass(eq=False)
class Reply:
    """How one request is answered on the wire."""

    session: Session | None
    """None for a notice: an error answered in turn, outside any request."""
    streaming: bool = False
    stop_received: asyncio.Event = field(default_factory=asyncio.Event)
    """For a stream: `synthesize-stopped` may only follow the client's `synthesize-stop`."""
    notice: Error | None = None


class ReplyWriter:
    """Writes a connection's replies in order, and knows which are still due."""

    def __init__(
        self,
        write: Callable[[Event], Awaitable[None]],
        on_answered: Callable[[], None],
    ) -> None:
        self._write = write
        self._on_answered = on_answered
        self._queue: asyncio.Queue[Reply] = asyncio.Queue()
        self.live: list[Reply] = []
        """Replies received and not yet fully written, oldest first."""
        self.idle = asyncio.Event()
        """Set while no reply is due."""
        self.idle.set()
        self.room = asyncio.Event()
        """Set while the connection may send another request (or the writer has stopped)."""
        self.room.set()
        self.task = asyncio.create_task(self._run(), name="tts reply writer")

    def add(self, reply: Reply) -> None:
        """Answer `reply` after the ones before it."""
        self.live.append(reply)
        self.idle.clear()
        full = len(self.live) >= MAX_PENDING_REQUESTS
        if full and not self.task.done():  # a stopped writer frees no room: never wait for it
            self.room.clear()
        _LOGGER.debug(
            "Requests unanswered on this connection: %d%s",
            len(self.live),
            " (the most: reading paused)" if full else "",
        )
        self._queue.put_nowait(reply)

    def sessions(self) -> list[Session]:
        """The requests still due, oldest first."""
        return [reply.session for reply in self.live if reply.session is not None]

    async def _run(self) -> None:
        try:
            while True:
                reply = await self._queue.get()
                await self._answer(reply)
                self.live.remove(reply)
                self.room.set()
                if not self.live:
                    self.idle.set()
                self._on_answered()
        except (ConnectionError, asyncio.TimeoutError, OSError) as error:
            _LOGGER.debug("Client stopped receiving audio: %s", error)
            self._cancel_all()
        except Exception:
            _LOGGER.exception("Writing a reply failed")
            self._cancel_all()
            raise
        finally:
            self.room.set()  # the read loop must not wait for room that will never come

    async def _answer(self, reply: Reply) -> None:
        session = reply.session
        if session is None:
            assert reply.notice is not None
            await self._write(reply.notice.event())
            await self._write(SynthesizeStopped().event())
            return
        await self._write(AudioStart(**_FORMAT).event())
        async for audio in session.audio():
            await self._write(AudioChunk(audio=audio, **_FORMAT).event())
        for error in session.errors:
            await self._write(Error(text=error.text, code=error.code).event())
        await self._write(AudioStop().event())
        if reply.streaming:
            await reply.stop_received.wait()
            await self._write(SynthesizeStopped().event())

    def _cancel_all(self) -> None:
        for session in self.sessions():
            session.cancel()
