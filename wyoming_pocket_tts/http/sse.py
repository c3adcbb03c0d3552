"""`stream_format: "sse"`: the encoded audio as OpenAI's speech events, on the one streaming path.

Each piece of encoded audio the answer would carry becomes a `speech.audio.delta` event (its
bytes in base64), and a whole answer ends with `speech.audio.done`. The audio is exactly the
plain stream's: the same encoder, cut at the same places. No tokens are counted here, so the
`usage` of the last event is zeros. A failure after the first event cuts the stream without
`speech.audio.done`, as a plain stream is cut without its last chunk.
"""

from __future__ import annotations

import base64
import json

CONTENT_TYPE = "text/event-stream"
STREAM_FORMATS = ("audio", "sse")
"""What `stream_format` accepts: raw audio bytes (the default), or OpenAI's speech events."""
_USAGE = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}


def _event(payload: dict[str, object]) -> bytes:
    return f"data: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def delta(audio: bytes) -> bytes:
    """One `speech.audio.delta` event carrying `audio`."""
    return _event({"type": "speech.audio.delta", "audio": base64.b64encode(audio).decode()})


def done() -> bytes:
    """The closing `speech.audio.done` event."""
    return _event({"type": "speech.audio.done", "usage": _USAGE})
