"""What the server is doing before it can speak, told alike on every door: `/health`, the
`describe` answer's program description, the studio's status, and the log's own lines.

A start is `downloading` (a hub download runs), `loading` (the model loads and is timed),
`waiting for network` (a download found no network: the next try is `retry_in` seconds away,
`offline`), or `failed`; once the default model speaks it is `ready`, or `building graphs`
while its ONNX Runtime graphs are prepared in the background (it speaks meanwhile).
Voices stay `installed` in `describe` while the start waits: Home Assistant reads the voice
list only when its integration is set up, and one set up during the wait would keep none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .downloads import downloading
from .engine.serving.engine import Engine
from .engine.tuning.course import Phase

DOWNLOADING = "downloading"
LOADING = "loading"
WAITING = "waiting for network"
FAILED = "failed"
BUILDING = "building graphs"
READY = "ready"


@dataclass(frozen=True)
class Readiness:
    """One moment of the start: its state, why (`detail`), and the next try (`retry_in`, s)."""

    state: str
    detail: str | None = None
    retry_in: float | None = None

    @property
    def speaks(self) -> bool:
        """Requests are served now."""
        return self.state in (READY, BUILDING)

    def words(self) -> str:
        """The state in one line, as the log and the description say it."""
        text = self.state
        if self.retry_in is not None:
            text += f" (retry in {self.retry_in:.0f} s)"
        return f"{text}: {self.detail}" if self.detail else text


def readiness(engine: Engine) -> Readiness:
    """The engine's state now."""
    ready = engine.ready
    if ready.done():
        error = ready.exception()
        if error is not None:
            return Readiness(FAILED, str(error))
        tuning = engine.tuning
        if tuning is not None and tuning.course.phase is Phase.EXPORTING:
            return Readiness(BUILDING, "ONNX Runtime graphs, in the background")
        return Readiness(READY)
    waiting, retry_at = engine.waiting, engine.retry_at
    if waiting is not None:
        left = None if retry_at is None else max(0.0, retry_at - time.monotonic())
        return Readiness(WAITING, waiting, left)
    return Readiness(DOWNLOADING if downloading() else LOADING)
