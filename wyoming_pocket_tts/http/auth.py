"""Who may call the HTTP side: an optional Bearer token, the ingress proxy, and CORS only for a
named origin.

The middlewares are shared by every route of the app (the OpenAI routes and any added later), and
`token_matches` is the one token check, used by them and by the voice studio's guard. `/health`
answers without a token so that a container health check needs no secret. A browser's CORS
preflight carries no token, so it is answered before the token is checked, and only for the
configured origin. Requests from the ingress proxy (Home Assistant's, in the add-on) need no
token: the Supervisor has already authenticated the Home Assistant user.

The studio's cookie is an HMAC of the token under this install's own secret (`install_key`, kept
in the data folder): nothing in the source, nor a cookie of another install or another token,
computes it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from pathlib import Path

from aiohttp import web

from ..errors import API_OFF, ORIGIN_NOT_ALLOWED
from ..files import new_file
from .errors import AUTHENTICATION, INVALID_TOKEN, ApiError, Handler

_LOGGER = logging.getLogger(__name__)

INGRESS_PROXY = "172.30.32.2"
"""The Supervisor's ingress proxy: in an add-on, the peer Home Assistant's users come from."""
OPEN_PATHS = frozenset({"/health"})
"""Paths served without a token."""


STUDIO_PATHS = ("/", "/studio/")
"""The voice studio's page and routes: it checks the token itself (and sets `TOKEN_COOKIE`)."""
TOKEN_COOKIE = "studio-token"
"""The studio's cookie (HTTP-only, same-site), for its speech requests: it holds
`cookie_value(key, token)`, never the token, so a copied cookie is not the API key."""
_COOKIE_PURPOSE = b"wyoming-pocket-tts studio cookie v2\0"
COOKIE_KEY = web.AppKey("cookie_key", bytes)
"""The app's key for the studio's cookie (`install_key`)."""
KEY_FILE = "studio-cookie.key"
"""In the data folder: this install's secret for the studio's cookie, in hex."""
KEY_BYTES = 32


def cookie_value(key: bytes, token: str) -> str:
    """What the studio's cookie holds for `token` on the install whose secret is `key`."""
    return hmac.new(key, _COOKIE_PURPOSE + token.encode(), hashlib.sha256).hexdigest()


def install_key(folder: Path | None) -> bytes:
    """This install's secret for the studio's cookie: read from `folder/KEY_FILE`, or made there
    (readable by the server's user only). Without a folder, or one that cannot hold it, a
    secret of this process: cookies then last until a restart."""
    if folder is None:
        return secrets.token_bytes(KEY_BYTES)
    path = folder / KEY_FILE
    try:
        return _read_key(path)
    except FileNotFoundError:
        overwrite = False
    except (OSError, ValueError):
        overwrite = True  # damaged: made again (it opened nothing anyway)
    try:
        try:
            with new_file(path, overwrite=overwrite) as temporary:  # mkstemp: mode 0600
                temporary.write_text(secrets.token_hex(KEY_BYTES), encoding="ascii")
        except FileExistsError:
            pass  # another server on this folder made it meanwhile
        return _read_key(path)
    except (OSError, ValueError) as error:
        _LOGGER.warning("The studio's cookie lasts until a restart: %s", error)
        return secrets.token_bytes(KEY_BYTES)


def _read_key(path: Path) -> bytes:
    key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    if len(key) < KEY_BYTES:
        raise ValueError(f"{path}: too short")
    return key


def from_proxy(request: web.Request, proxy: str | None) -> bool:
    """Whether the request comes from the ingress proxy (None: there is none)."""
    return proxy is not None and request.remote == proxy


def token_matches(request: web.Request, token: str) -> bool:
    """Whether the request carries `token`: `Authorization: Bearer <token>` (the scheme in any
    case), else the studio's cookie made from it under the app's `COOKIE_KEY`."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    expected = token
    if scheme.lower() != "bearer":
        cookie = cookie_value(request.app[COOKIE_KEY], token)
        given, expected = request.cookies.get(TOKEN_COOKIE, ""), cookie
    # compare_digest takes the same time wherever the strings differ.
    return hmac.compare_digest(given.strip().encode(), expected.encode())


def proxy_only(proxy: str) -> web.middleware:  # type: ignore[valid-type]
    """Answer only `proxy` (the add-on's ingress, with its HTTP API turned off)."""

    @web.middleware
    async def check_peer(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not from_proxy(request, proxy):
            raise ApiError.of(
                API_OFF, "The HTTP API is off (only Home Assistant's ingress is served)"
            )
        return await handler(request)

    return check_peer


def bearer_auth(token: str, trusted_peer: str | None = None) -> web.middleware:  # type: ignore[valid-type]
    """Refuse every request without `Bearer <token>` (or the studio's cookie made from it), but
    `OPEN_PATHS`, the studio's own paths (its guard checks them), CORS preflights, and requests
    from `trusted_peer` (the ingress proxy)."""

    @web.middleware
    async def check_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        studio = path == STUDIO_PATHS[0] or path.startswith(STUDIO_PATHS[1])
        trusted = from_proxy(request, trusted_peer)
        if path in OPEN_PATHS or studio or trusted or _is_preflight(request):
            return await handler(request)
        if not token_matches(request, token):
            raise ApiError(
                401, "Missing or wrong API key (Bearer token)", INVALID_TOKEN, kind=AUTHENTICATION
            )
        return await handler(request)

    return check_token


def cors(origin: str) -> web.middleware:  # type: ignore[valid-type]
    """Let pages from `origin` (or any, with `*`) call the API from a browser."""

    @web.middleware
    async def allow_origin(request: web.Request, handler: Handler) -> web.StreamResponse:
        allowed = origin == "*" or request.headers.get("Origin") == origin
        if _is_preflight(request):
            if not allowed:
                return ApiError(403, "Origin not allowed", ORIGIN_NOT_ALLOWED).response()
            return web.Response(status=204, headers=_cors_headers(origin, preflight=True))
        if allowed and "Origin" in request.headers:
            # Set before the handler runs: a streamed answer sends its headers early.
            request["cors_headers"] = _cors_headers(origin, preflight=False)
        response = await handler(request)
        if allowed and "Origin" in request.headers and not response.prepared:
            response.headers.update(_cors_headers(origin, preflight=False))
        return response

    return allow_origin


def apply_cors(request: web.Request, response: web.StreamResponse) -> None:
    """Give a streamed answer the CORS headers before it is prepared."""
    response.headers.update(request.get("cors_headers", {}))


def _is_preflight(request: web.Request) -> bool:
    return request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers


def _cors_headers(origin: str, *, preflight: bool) -> dict[str, str]:
    headers = {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
    if preflight:
        headers |= {
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": "600",
        }
    return headers
