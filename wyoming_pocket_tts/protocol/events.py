"""Reading Wyoming events from an untrusted client, with every length bounded.

The `wyoming` library trusts the peer: it allocates whatever `data_length` or `payload_length` a
header claims and drops the connection on any malformed line. Here each problem is a
`ProtocolError` that says whether the stream is still in step (a bad line can be answered and
skipped) or not (a length that cannot be honoured ends the connection), and nothing is read
beyond the bounds below.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from wyoming.event import Event

MAX_LINE_BYTES = 64 * 1024
"""Longest header line (asyncio's default stream limit)."""
MAX_DATA_BYTES = 1024 * 1024
"""Longest JSON data block; a request's text is far shorter."""
MAX_PAYLOAD_BYTES = 1024 * 1024
"""Longest binary payload; TTS requests carry none, but the protocol allows them."""


class ProtocolError(Exception):
    """A malformed event; `in_step` tells whether the next event can still be read."""

    def __init__(self, message: str, *, in_step: bool) -> None:
        super().__init__(message)
        self.in_step = in_step


async def read_event(reader: asyncio.StreamReader) -> Event | None:
    """The next event, None at a clean end of stream, or `ProtocolError`."""
    line = await _read_line(reader)
    if line is None:
        return None
    header = _parse_object(line, "event header")
    event_type = header.get("type")
    data_length = _length(header, "data_length", MAX_DATA_BYTES)
    payload_length = _length(header, "payload_length", MAX_PAYLOAD_BYTES)
    raw_data = await _read_exactly(reader, data_length) if data_length else b""
    payload = await _read_exactly(reader, payload_length) if payload_length else None
    # The whole event has been read: from here on, errors leave the stream in step.
    data = header.get("data", {})
    if not isinstance(event_type, str) or not event_type:
        raise ProtocolError("event has no type", in_step=True)
    if not isinstance(data, dict):
        raise ProtocolError("event data is not an object", in_step=True)
    if raw_data:
        data = {**data, **_parse_object(raw_data, "event data")}
    return Event(type=event_type, data=data, payload=payload)


async def _read_line(reader: asyncio.StreamReader) -> bytes | None:
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as error:
        if error.partial.strip():
            raise ProtocolError("connection closed inside an event", in_step=False) from None
        return None
    except asyncio.LimitOverrunError:
        await _skip_line(reader)
        raise ProtocolError(f"event header over {MAX_LINE_BYTES} bytes", in_step=True) from None


async def _skip_line(reader: asyncio.StreamReader) -> None:
    """Discard input up to the next newline, a buffer-full at a time."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as error:
            await reader.readexactly(error.consumed)
        except asyncio.IncompleteReadError:
            return


async def _read_exactly(reader: asyncio.StreamReader, length: int) -> bytes:
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise ProtocolError("connection closed inside an event", in_step=False) from None


def _parse_object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError as error:  # also UnicodeDecodeError
        raise ProtocolError(f"{what} is not JSON: {error}", in_step=True) from None
    if not isinstance(value, dict):
        raise ProtocolError(f"{what} is not a JSON object", in_step=True)
    return value


def _length(header: dict[str, Any], key: str, limit: int) -> int:
    value = header.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError(f"{key} is not a length: {value!r:.40}", in_step=False)
    if value > limit:
        raise ProtocolError(f"{key} {value} is over the limit of {limit}", in_step=False)
    return value
