"""Who may call the HTTP side: an optional Bearer token, and CORS only for a named origin.

Both are middlewares shared by every route of the app (the OpenAI routes and any added later).
`/health` answers without a token so that a container health check needs no secret. A browser's
CORS preflight carries no token, so it is answered before the token is checked, and only for
the configured origin.
"""

from __future__ import annotations

import hmac

from aiohttp import web

from ..errors import ORIGIN_NOT_ALLOWED
from .errors import AUTHENTICATION, INVALID_TOKEN, ApiError, Handler

OPEN_PATHS = frozenset({"/health"})
"""Paths served without a token."""


STUDIO_PATHS = ("/", "/studio/")
"""The voice studio's page and routes: it checks the token itself (and sets `TOKEN_COOKIE`)."""
TOKEN_COOKIE = "studio-token"
"""The token as the studio's page holds it (HTTP-only, same-site), for its speech requests."""


def bearer_auth(
    token: str, trusted_peer: str | None = None
) -> web.middleware:  # type: ignore[valid-type]
    """Refuse every request without `Bearer <token>` (or the studio's cookie holding it), but
    `OPEN_PATHS`, the studio's own paths, CORS preflights, and requests from `trusted_peer`
    (the Supervisor's ingress proxy, which has authenticated the Home Assistant user)."""
    expected = token.encode()

    @web.middleware
    async def check_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        studio = path == STUDIO_PATHS[0] or path.startswith(STUDIO_PATHS[1])
        trusted = trusted_peer is not None and request.remote == trusted_peer
        if path in OPEN_PATHS or studio or trusted or _is_preflight(request):
            return await handler(request)
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            given = request.cookies.get(TOKEN_COOKIE, "")
        # compare_digest takes the same time wherever the strings differ.
        if not hmac.compare_digest(given.strip().encode(), expected):
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
