"""Voice states made off the engine thread: a child process's work, one child at a time.

On the graphs alone (`onnx.lean`) a new voice's state is made by a child process
(`children.voice.in_child`): seconds on a fast host, far longer on a small board. `VoiceMaking` runs
that wait on a thread of its own and hands back a future, so the engine thread serves the other
listeners meanwhile; `made` is called as each ends (the engine's scheduler wakes for the
requests that waited for it). Children run one at a time, as every heavy child of the server
(`in_child` waits for `children.process.QUEUE`): each loads the model in torch, and two at
once could exhaust a small board's memory. The threads are daemons, as the engine's is: at
shutdown the process exits without waiting, and a running child ends with it
(`children.process.end_with_parent`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future

from .store import ModelState


class VoiceMaking:
    """Runs the making of voice states, each on a daemon thread (its child queued)."""

    def __init__(self, made: Callable[[], None] = lambda: None) -> None:
        self._made = made
        """Called (on the making thread) after each state is made or has failed."""

    def start(self, name: str, make: Callable[[], ModelState]) -> Future[ModelState]:
        """Run `make` on a thread of its own (its child waits for the heavy child before it);
        its state (or its error) in the future returned."""
        future: Future[ModelState] = Future()

        def run() -> None:
            try:
                future.set_result(make())
            except BaseException as error:  # the voice's error, raised where it is used
                future.set_exception(error)
            self._made()

        threading.Thread(target=run, name=f"voice-making-{name}", daemon=True).start()
        return future
