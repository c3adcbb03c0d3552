"""The HTTP side's guards on every route, not on one: through the real in-process server started
with `--http-port 0 --http-token` (its own app, studio and middlewares), over real TCP.

The routes are read from the served application's router, so a route added later is checked
without a new test: every studio route that changes something must refuse a request without the
page's CSRF token, from another origin or site, and without the token; every studio route must
refuse a made-up `?token=`. The cookie and CORS are checked by behaviour (the cookie's value is
the studio's business, its flags are the browser's protection).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import running_server
from tests.conftest import model_args
from wyoming_pocket_tts.errors import BAD_CSRF, BAD_TOKEN, CROSS_ORIGIN, INVALID_TOKEN
from wyoming_pocket_tts.http.studio import CSRF_HEADER
from wyoming_pocket_tts.server import TtsServer

pytestmark = pytest.mark.timeout(180)

TOKEN = "the-household-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STUDIO = ("/", "/studio/")
"""The studio's page and the prefix of its routes (`auth.STUDIO_PATHS`)."""
BODY = {"name": "grandma", "new_name": "granny", "language": "en", "entries": [["Zorg", "Lights"]]}
"""A body each JSON route would act on if it let the request through."""


@asynccontextmanager
async def guarded_server(model: TinyModel, root: Path, *extra: str) -> AsyncIterator[TtsServer]:
    """The real server with its HTTP side, a token, a voices folder holding `grandma`, and a
    data folder (pronunciations are saved there)."""
    voice = write_voice_wav(root / "configured" / "alba.wav", 2.0, seed=1)
    write_voice_wav(root / "voices" / "grandma.wav", 2.0, seed=2)
    args = model_args(
        model,
        {"alba": voice},
        *("--http-port", "0", "--http-token", TOKEN),
        *("--voices-dir", str(root / "voices"), "--data-dir", str(root / "data")),
        *extra,
    )
    async with running_server(args) as server:
        assert server.http is not None
        yield server


def studio_routes(app: web.Application) -> list[tuple[str, str]]:
    """(method, URL path) of every studio route the app serves; placeholders filled in."""
    found = []
    for route in app.router.routes():
        path = route.resource.canonical if route.resource is not None else ""
        if route.method != "HEAD" and (path == STUDIO[0] or path.startswith(STUDIO[1])):
            found.append((route.method, re.sub(r"\{[^}]+\}", "studio.js", path)))
    return found


def files(root: Path) -> dict[str, bytes]:
    """Every voice and pronunciation file (what a refused request must leave as it was)."""
    kept = [*(root / "voices").rglob("*"), *(root / "data" / "pronunciations").rglob("*")]
    return {str(path): path.read_bytes() for path in kept if path.is_file()}


async def error_code(response: aiohttp.ClientResponse) -> tuple[int, str]:
    """The status and the error's code ("" for an answer that is not one of our errors)."""
    try:
        body = json.loads(await response.read())
        return response.status, str(body["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return response.status, ""


def test_every_studio_route_that_changes_something_checks_csrf_origin_and_token(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """Guards the breaks: a state-changing studio route registered without its CSRF check
    (`changes=False` for `voices/delete`, for `pronunciations`, or any route added later), so
    that its origin and CSRF checks are skipped; and a route that skips the token check.

    Each route is taken from the served app's router; a request with the right Bearer token
    but without the page's CSRF token, or with it from another origin or site, or with the CSRF
    token and no Bearer token, is refused with its code, and no file changes."""
    root = tmp_path / "root"

    async def scenario() -> dict[tuple[str, str], list[tuple[int, str]]]:
        async with guarded_server(slim_model, root) as server:
            assert server.http is not None
            base = f"http://127.0.0.1:{server.http.port}"
            changing = [(m, p) for m, p in studio_routes(server.http.app) if m not in SAFE_METHODS]
            paths = {p for _, p in changing}
            # The enumeration itself: it must see the routes known to change voices and words.
            assert {"/studio/api/voices/delete", "/studio/api/pronunciations"} <= paths, paths
            bearer = {"Authorization": f"Bearer {TOKEN}"}
            before = files(root)
            seen = {}
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
                async with session.get(base + "/", headers=bearer) as page:
                    found = re.search(r'name="studio-csrf" content="([^"]+)"', await page.text())
                assert found, "the page carries no CSRF token"
                csrf = {CSRF_HEADER: found.group(1)}
                attempts = {
                    "no csrf": bearer,
                    "stale csrf": bearer | {CSRF_HEADER: "stale"},
                    "other origin": bearer | csrf | {"Origin": "http://evil.example"},
                    "look-alike origin": bearer | csrf | {"Origin": base + ".evil.example"},
                    "other site": bearer | csrf | {"Sec-Fetch-Site": "cross-site"},
                    "no token": csrf,
                }
                for method, path in changing:
                    seen[(method, path)] = []
                    for headers in attempts.values():
                        async with session.request(
                            method, base + path, json=BODY, headers=headers
                        ) as response:
                            seen[(method, path)].append(await error_code(response))
            assert files(root) == before
            return seen

    expected = [
        (403, BAD_CSRF),
        (403, BAD_CSRF),
        (403, CROSS_ORIGIN),
        (403, CROSS_ORIGIN),
        (403, CROSS_ORIGIN),
        (401, BAD_TOKEN),
    ]
    for route, outcomes in asyncio.run(scenario()).items():
        assert outcomes == expected, route


def test_a_made_up_token_in_the_query_opens_no_studio_route(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """Guards the break: the guard skipping the token check for any studio route called with
    a `?token=` (not only the page, which checks it itself), so `?token=anything` opened every
    route. Every studio route of the router, called with a made-up `?token=` and no Bearer
    token or cookie, is refused with `bad-token`; the page with the right one is not."""
    root = tmp_path / "root"

    async def scenario() -> tuple[dict[tuple[str, str], tuple[int, str]], int]:
        async with guarded_server(slim_model, root) as server:
            assert server.http is not None
            base = f"http://127.0.0.1:{server.http.port}"
            seen = {}
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
                routes = studio_routes(server.http.app)
                assert len(routes) > 5, routes
                for method, path in routes:
                    async with session.request(
                        method, base + path, params={"token": "made-up"}, json=BODY
                    ) as response:
                        seen[(method, path)] = await error_code(response)
                async with session.get(
                    base + "/", params={"token": TOKEN}, allow_redirects=False
                ) as opened:
                    status = opened.status
            return seen, status

    seen, opened = asyncio.run(scenario())
    assert seen == dict.fromkeys(seen, (401, BAD_TOKEN))
    assert opened == 303


def test_the_token_cookie_is_http_only_and_same_site(slim_model: TinyModel, tmp_path: Path) -> None:
    """Guards the break: the studio's token cookie set without HttpOnly (a page's script could
    read it) or without SameSite (another site's form would carry it). Opening the page with the
    right `?token=` sets a cookie with both flags, which then opens the studio's API; a wrong
    one sets none."""
    root = tmp_path / "root"

    async def scenario() -> tuple[list[str], list[str], int]:
        async with guarded_server(slim_model, root) as server:
            assert server.http is not None
            base = f"http://127.0.0.1:{server.http.port}"
            jar = aiohttp.CookieJar(unsafe=True)  # a browser keeps cookies of 127.0.0.1 too
            async with aiohttp.ClientSession(cookie_jar=jar) as session:
                async with session.get(
                    base + "/", params={"token": "wrong"}, allow_redirects=False
                ) as refused:
                    wrong = refused.headers.getall("Set-Cookie", [])
                async with session.get(
                    base + "/", params={"token": TOKEN}, allow_redirects=False
                ) as opened:
                    right = opened.headers.getall("Set-Cookie", [])
                async with session.get(base + "/studio/api/voices") as listed:
                    status = listed.status
            return wrong, right, status

    wrong, right, status = asyncio.run(scenario())
    assert wrong == []
    assert len(right) == 1, right
    flags = {part.strip().split("=")[0].lower(): part for part in right[0].split(";")[1:]}
    assert "httponly" in flags, right
    assert re.fullmatch(r"\s*SameSite=(Strict|Lax)", flags.get("samesite", ""), re.I), right
    assert status == 200  # the cookie is the studio's key


def test_every_other_route_needs_the_token(slim_model: TinyModel, tmp_path: Path) -> None:
    """Guards the class of break: a route of the HTTP API served without the token (a path
    added to the open ones, or a route added where the token middleware does not look). Every
    route of the app's router but `/health` and the studio's (its own guard, above) refuses a
    request without the Bearer token, or with a wrong one, as `invalid-api-key`."""

    async def scenario() -> dict[tuple[str, str], list[tuple[int, str]]]:
        async with guarded_server(slim_model, tmp_path / "root") as server:
            assert server.http is not None
            base = f"http://127.0.0.1:{server.http.port}"
            routes = []
            for route in server.http.app.router.routes():
                path = route.resource.canonical if route.resource is not None else ""
                studio = path == STUDIO[0] or path.startswith(STUDIO[1])
                if route.method != "HEAD" and path != "/health" and not studio:
                    routes.append((route.method, re.sub(r"\{[^}]+\}", "x", path)))
            assert ("POST", "/v1/audio/speech") in routes, routes
            seen = {}
            async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
                for method, path in routes:
                    seen[(method, path)] = []
                    for headers in ({}, {"Authorization": "Bearer wrong"}):
                        async with session.request(
                            method, base + path, json={"input": "Hi.", "voice": "alba"},
                            headers=headers,
                        ) as response:  # fmt: skip
                            seen[(method, path)].append(await error_code(response))
            return seen

    seen = asyncio.run(scenario())
    assert seen == dict.fromkeys(seen, [(401, INVALID_TOKEN)] * 2)


LOOK_ALIKES = (
    "http://webui.local:3000.evil.example",
    "http://webui.local:30000",
    "http://webui.local:3000@evil.example",
    "http://webui.local",
    "https://webui.local:3000",
    "HTTP://WEBUI.LOCAL:3000x",
)
"""Origins that share a prefix or most of their text with the configured one, and are not it."""


def test_cors_answers_only_the_exact_origin(slim_model: TinyModel, tmp_path: Path) -> None:
    """Guards the break: `--http-cors` matched as a prefix (or the configured origin as a
    prefix of the page's), so look-alike origins got CORS headers and could read answers. A
    preflight from each look-alike is refused and its request gets no CORS header; the
    configured origin gets both."""
    origin = "http://webui.local:3000"

    async def scenario() -> dict[str, tuple[int, str | None, str | None]]:
        async with guarded_server(slim_model, tmp_path / "root", "--http-cors", origin) as server:
            assert server.http is not None
            url = f"http://127.0.0.1:{server.http.port}/v1/models"
            bearer = {"Authorization": f"Bearer {TOKEN}"}
            preflight = {"Access-Control-Request-Method": "GET"}
            seen = {}
            async with aiohttp.ClientSession() as session:
                for who in (origin, *LOOK_ALIKES):
                    async with session.options(url, headers=preflight | {"Origin": who}) as asked:
                        allowed = asked.headers.get("Access-Control-Allow-Origin")
                        status = asked.status
                    async with session.get(url, headers=bearer | {"Origin": who}) as got:
                        await got.read()
                        answered = got.headers.get("Access-Control-Allow-Origin")
                        seen[who] = (status, allowed, answered)
            return seen

    seen = asyncio.run(scenario())
    assert seen.pop(origin) == (204, origin, origin)
    assert seen == dict.fromkeys(LOOK_ALIKES, (403, None, None))
