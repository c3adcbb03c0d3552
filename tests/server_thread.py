"""The real server in this process, on its own event loop in a thread, shared by a module."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from concurrent.futures import Future
from typing import TypeVar

from testkit.support import running_server

T = TypeVar("T")


class ServerThread:
    """The real server in this process, on its own event loop in a thread, for a whole module
    (each test submits coroutines to it)."""

    def __init__(self, args: list[str]) -> None:
        self._loop = asyncio.new_event_loop()
        self._ready: Future[tuple[int, int]] = Future()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._main = asyncio.run_coroutine_threadsafe(self._serve(args), self._loop)
        self.port, self.http_port = self._ready.result(timeout=180)

    async def _serve(self, args: list[str]) -> None:
        self._stop = asyncio.Event()
        try:
            async with running_server([*args, "--http-port", "0"]) as server:
                assert server.http is not None
                self._ready.set_result((server.port or 0, server.http.port or 0))
                await self._stop.wait()
        except BaseException as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            raise

    def run(self, coroutine: Awaitable[T], timeout: float = 60) -> T:
        async def bounded() -> T:
            return await asyncio.wait_for(coroutine, timeout)

        return asyncio.run_coroutine_threadsafe(bounded(), self._loop).result(timeout + 5)

    def close(self) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._main.result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
