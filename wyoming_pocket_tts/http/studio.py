"""The voice studio: a page to hear, add and fix the household's voices, and its JSON routes.

`add_studio` adds the page at `/`, its files under `studio/static/` and its API under
`studio/api/` to the HTTP side's application. Every link and request of the page is relative,
because Home Assistant's ingress serves it under a path prefix.

Who may use it:
- add-on mode (`ingress`): only the Supervisor's ingress proxy may connect, with no token (Home
  Assistant has already authenticated the user); any other peer gets 403;
- with a token (`--http-token`): the page is opened once as `/?token=...`, which sets a
  same-site, HTTP-only cookie (an HMAC of the token under this install's secret, not the token);
  API calls need that cookie or the Bearer header;
- without a token on anything but a loopback address or `localhost` (`--http-host 0.0.0.0`, a
  LAN address, or a host name, which may resolve to anything), anyone on the network may reach
  the page, so it is read-only: every route that is not a GET is refused with
  `studio-read-only` and the way to allow changes;
- every state-changing request needs the page's CSRF token and must come from the same origin.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

from ..errors import (
    BAD_CSRF,
    BAD_TOKEN,
    CROSS_ORIGIN,
    INGRESS_ONLY,
    NOT_FOUND,
    STUDIO_READ_ONLY,
)
from ..service import Service
from ..settings import Settings
from ..voices.manage import VoiceManager
from .auth import (
    COOKIE_KEY,
    INGRESS_PROXY,
    TOKEN_COOKIE,
    cookie_value,
    from_proxy,
    token_matches,
)
from .errors import StudioError

_LOGGER = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
ASSETS = {"studio.css": "text/css", "studio.js": "text/javascript"}
CSRF_HEADER = "X-Studio-CSRF"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class StudioSettings:
    """What the studio needs besides the service."""

    voices_dir: Path | None = None
    """Where new voices are saved (the first `--voices-dir`); None: voices cannot be added."""
    ingress: bool = False
    """Add-on mode: only `ingress_proxy` may connect."""
    ingress_proxy: str = INGRESS_PROXY
    token: str | None = None
    """The HTTP side's `--http-token`, if any."""
    host: str = "127.0.0.1"
    """The address the HTTP side listens on (`--http-host`)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> StudioSettings:
        """From the command line's `Settings`: add-on mode when an ingress proxy is given."""
        dirs = settings.voices_dirs
        http = settings.http
        return cls(
            voices_dir=dirs[0] if dirs else None,
            ingress=http.ingress_proxy is not None,
            ingress_proxy=http.ingress_proxy or INGRESS_PROXY,
            token=http.token,
            host=http.host,
        )

    @property
    def read_only(self) -> str | None:
        """Why the studio refuses changes (None: it does not): no token, and an address others
        reach. In add-on mode only the ingress proxy gets in, so that never applies."""
        if self.ingress or self.token or _is_loopback(self.host):
            return None
        return (
            f"The voice studio is read-only: the HTTP side listens on {self.host} without a "
            "token, so anyone on the network could change the voices. To allow changes, set "
            "--http-token TOKEN and open the studio as /?token=TOKEN, or listen on 127.0.0.1 "
            "(--http-host)"
        )


def _is_loopback(host: str) -> bool:
    """Whether `host` (an address or `localhost`) is reached from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


class Guard:
    """The studio's security checks, run before each of its handlers."""

    def __init__(self, settings: StudioSettings) -> None:
        self.settings = settings
        self.csrf = secrets.token_urlsafe(32)

    def wrap(self, handler: Handler, *, changes: bool) -> Handler:
        async def guarded(request: web.Request) -> web.StreamResponse:
            self.check_peer(request)
            if request.path != "/" or "token" not in request.query:
                self.check_token(request)
            if request.method != "GET":
                self.check_changes_allowed()
            if changes:
                self.check_origin(request)
                self.check_csrf(request)
            return await handler(request)

        return guarded

    def check_peer(self, request: web.Request) -> None:
        if self.settings.ingress and request.remote != self.settings.ingress_proxy:
            _LOGGER.warning("Studio: refusing %s (not the ingress proxy)", request.remote)
            raise StudioError(INGRESS_ONLY, "Open the voice studio from Home Assistant")

    def check_token(self, request: web.Request) -> None:
        """The HTTP side's own token check; the ingress proxy's requests need none."""
        token, settings = self.settings.token, self.settings
        if not token or (settings.ingress and from_proxy(request, settings.ingress_proxy)):
            return
        if not token_matches(request, token):
            raise StudioError(BAD_TOKEN, "Open the studio as /?token=YOUR_HTTP_TOKEN")

    def check_changes_allowed(self) -> None:
        """Refuse a change while the studio is read-only (`StudioSettings.read_only`)."""
        if (reason := self.settings.read_only) is not None:
            raise StudioError(STUDIO_READ_ONLY, reason)

    def check_origin(self, request: web.Request) -> None:
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site != "same-origin":
            raise StudioError(CROSS_ORIGIN, "Cross-site requests are refused")
        origin = request.headers.get("Origin")
        if origin is None:
            return
        hosts = {request.host}
        if self.settings.ingress and "X-Forwarded-Host" in request.headers:
            hosts.add(request.headers["X-Forwarded-Host"])
        if urlsplit(origin).netloc not in hosts:
            raise StudioError(CROSS_ORIGIN, "Cross-origin requests are refused")

    def check_csrf(self, request: web.Request) -> None:
        given = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.csrf.encode()):
            raise StudioError(BAD_CSRF, "Reload the page (its security token is stale)")


def add_studio(app: web.Application, service: Service, settings: StudioSettings) -> None:
    """Add the voice studio's page and routes to `app` (before it starts)."""
    from .studio_api import StudioApi

    guard = Guard(settings)
    manager = VoiceManager(service.catalog, settings.voices_dir)
    api = StudioApi(service, manager, settings.read_only)
    page = (STATIC / "index.html").read_text(encoding="utf-8")

    async def index(request: web.Request) -> web.StreamResponse:
        token = request.query.get("token")
        if token is not None and settings.token:
            if not hmac.compare_digest(token.encode(), settings.token.encode()):
                raise StudioError(BAD_TOKEN, "Wrong token")
            response = web.HTTPSeeOther("./")
            cookie = cookie_value(request.app[COOKIE_KEY], settings.token)
            response.set_cookie(TOKEN_COOKIE, cookie, httponly=True, samesite="Strict", path="/")
            raise response
        html = page.replace("{{csrf}}", guard.csrf)
        return web.Response(text=html, content_type="text/html", headers=_NO_STORE)

    async def asset(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in ASSETS:  # a fixed list: no path from the client reaches the disk
            raise StudioError(NOT_FOUND, "No such file")
        return web.Response(
            body=(STATIC / name).read_bytes(), content_type=ASSETS[name], headers=_NO_STORE
        )

    routes: list[tuple[str, str, Handler, bool]] = [
        ("GET", "/", index, False),
        ("GET", "/studio/static/{name}", asset, False),
        *api.routes(),
    ]
    for method, path, handler, changes in routes:
        app.router.add_route(method, path, guard.wrap(handler, changes=changes))
    _LOGGER.info("Voice studio at / (%s)", "ingress only" if settings.ingress else "direct")
    if settings.read_only is not None:
        _LOGGER.warning("%s", settings.read_only)


_NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
