"""The last requests and how fast their first audio came: what the voice studio's status shows."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .request import SpeechRequest

KEPT = 20


@dataclass(frozen=True)
class Finished:
    """One request that ended."""

    voice: str
    language: str
    chars: int
    """Characters of prepared text it was given."""
    first_audio: float | None
    """Seconds from admission to its first audio (None: it made none)."""
    audio_seconds: float
    took: float
    """Seconds from admission to its end."""
    errors: tuple[str, ...]
    ended: float
    """Wall-clock time it ended (seconds since the epoch)."""


class RecentRequests:
    """A bounded record of the last `KEPT` requests; appended under the scheduler's lock, read
    from the loop (its own tiny lock keeps the two apart)."""

    def __init__(self, kept: int = KEPT) -> None:
        self._lock = threading.Lock()
        self._items: deque[Finished] = deque(maxlen=kept)

    def add(self, request: SpeechRequest) -> None:
        now = time.monotonic()
        first = request.first_audio_at
        item = Finished(
            voice=request.voice.name,
            language=request.voice.code,
            chars=request.chars,
            first_audio=None if first is None else first - request.created,
            audio_seconds=request.audio_seconds,
            took=now - request.created,
            errors=tuple(error.code for error in request.errors),
            ended=time.time(),
        )
        with self._lock:
            self._items.append(item)

    def snapshot(self) -> list[dict[str, Any]]:
        """The last requests, newest first."""
        with self._lock:
            items = list(self._items)
        return [asdict(item) for item in reversed(items)]
