"""The aiohttp application and its listening site, in the Wyoming server's own event loop.

`build_app` makes the app every HTTP route shares: the service, JSON errors, the token and CORS
middlewares, a bounded body. Other features add their routes through `extra_routes` (functions
given the app before it starts), so they get the same security without repeating it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path

from aiohttp import web

from ..readiness import FAILED, readiness
from ..service import Service
from ..settings import HttpSettings
from . import openai
from .aliases import VoiceAliases
from .auth import COOKIE_KEY, bearer_auth, cors, install_key, proxy_only
from .errors import json_errors
from .listing import SERVICE

_LOGGER = logging.getLogger(__name__)

BODY_SLACK = 16 * 1024
"""Bytes of JSON around `input` (other fields, whitespace) a request body may add."""
SHUTDOWN_GRACE = 2.0
"""Seconds open answers get to end when the server stops."""
BYTES_PER_CHAR = 6
"""Worst case for one character of `input` in JSON: a `\\uXXXX` escape."""


def body_limit(max_text_chars: int) -> int:
    """The largest request body: room for `max_text_chars` of input, however it is encoded."""
    return max_text_chars * BYTES_PER_CHAR + BODY_SLACK


def build_app(
    service: Service,
    settings: HttpSettings,
    extra_routes: Iterable[Callable[[web.Application], None]] = (),
    data_dir: Path | None = None,
) -> web.Application:
    """The HTTP app: OpenAI's speech API, `/health`, and whatever `extra_routes` add (the voice
    studio); the ingress proxy (if any) needs no token, and is the only peer served when
    `settings.ingress_only`. With a token, the studio's cookie is keyed by the secret kept in
    `data_dir` (`auth.install_key`)."""
    middlewares = [json_errors]
    if settings.cors_origin:
        middlewares.insert(0, cors(settings.cors_origin))  # outermost: errors get CORS headers
    if settings.ingress_only and settings.ingress_proxy is not None:
        middlewares.append(proxy_only(settings.ingress_proxy))
    elif settings.token:
        middlewares.append(bearer_auth(settings.token, settings.ingress_proxy))
    app = web.Application(
        middlewares=middlewares, client_max_size=body_limit(service.settings.max_text_chars)
    )
    app[SERVICE] = service
    app[COOKIE_KEY] = install_key(data_dir if settings.token else None)
    app.router.add_get("/health", health)
    openai.add_routes(app, VoiceAliases(settings.voice_aliases))
    for add in extra_routes:
        add(app)
    return app


async def health(request: web.Request) -> web.Response:
    """200 once the model speaks, 503 before or if it failed; `state` says which step of the
    start it is in (`readiness`), with its `detail` and `retry_in` (s) where there are."""
    now = readiness(request.app[SERVICE].engine)
    status = "ok" if now.speaks else FAILED if now.state == FAILED else "loading"
    body: dict[str, object] = {"status": status, "state": now.state}
    if now.detail is not None:
        body["detail"] = now.detail
    if now.retry_in is not None:
        body["retry_in"] = round(now.retry_in, 1)
    return web.json_response(body, status=200 if now.speaks else 503)


class HttpSite:
    """The app served on `settings.host:settings.port` (port 0: any free one)."""

    def __init__(self, app: web.Application, settings: HttpSettings) -> None:
        self._settings = settings
        # handler_cancellation: a client that disconnects cancels its handler, and with it the
        # generation, even while no audio is being written.
        self._runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=SHUTDOWN_GRACE
        )
        self._site: web.TCPSite | None = None

    @property
    def app(self) -> web.Application:
        """The application served (its router lists every route)."""
        return self._runner.app

    @property
    def port(self) -> int | None:
        """The port actually bound."""
        server = self._site._server if self._site is not None else None
        sockets = getattr(server, "sockets", None)
        return sockets[0].getsockname()[1] if sockets else None

    async def start(self) -> None:
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, self._settings.host, self._settings.port)
        await self._site.start()
        host = self._settings.host
        host = f"[{host}]" if ":" in host else host
        _LOGGER.info("HTTP API on http://%s:%s", host, self.port)

    async def stop(self) -> None:
        """Stop listening; open answers get `SHUTDOWN_GRACE` (the engine has ended them)."""
        await self._runner.cleanup()
