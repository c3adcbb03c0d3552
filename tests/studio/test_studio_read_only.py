"""The voice studio beyond loopback, and its cookie.

- With the HTTP side on an address others reach (or a host name) and no token, every route of
  the app that is not a GET (listed from the app's router, so a route added later is covered)
  is refused with `studio-read-only` and the way to allow changes; the page says so and the
  start log too. On loopback the studio changes voices.
- Through a real network link (a veth pair into the server's own network namespace, as the
  Supervisor's ingress proxy connects): a peer on the LAN cannot delete a voice; with the
  add-on's HTTP flags the ingress proxy's address can.
- The cookie the page gets holds a value made from the token: it opens the studio, and it is not
  accepted as a Bearer token. It is keyed by the install's secret and the token: it opens the
  same install after a restart, and neither that install with another token nor another install
  with the same token.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from yarl import URL

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import isolated_env, running_server
from tests.conftest import model_args
from tests.ingress import ADDON, OTHER, PROXY, Link, ingress_link
from tests.studio_support import CHROMIUM, CHROMIUM_ARGS, Studio, need_chromium, running_studio
from wyoming_pocket_tts.addon import ADDON_HTTP_PORT, OPTIONS
from wyoming_pocket_tts.http.auth import KEY_FILE, TOKEN_COOKIE
from wyoming_pocket_tts.http.studio import CSRF_HEADER, StudioSettings

pytestmark = pytest.mark.timeout(240)

NOT_STUDIO_CHANGES = {("POST", "/v1/audio/speech")}
"""Routes that are not a GET and change nothing of the household's: the speech API."""


def _args(slim_model: TinyModel, root: Path) -> list[str]:
    voice = write_voice_wav(root / "configured" / "alba.wav", 2.0, seed=1)
    write_voice_wav(root / "voices" / "grandma.wav", 2.0, seed=2)
    return model_args(slim_model, {"alba": voice}, "--voices-dir", str(root / "voices"))


HOST_NAME = socket.gethostname()
"""This machine's name, as an operator may give `--http-host` (it resolves here; any name might
resolve to a LAN address)."""


def _reached_at(host: str) -> str:
    """An address of `host` to connect to (the server binds every address a name resolves to)."""
    if host == "0.0.0.0":
        return "127.0.0.1"
    address = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0]
    return f"[{address}]" if ":" in address else str(address)


@pytest.mark.parametrize("host", ["0.0.0.0", HOST_NAME])
def test_without_a_token_beyond_loopback_every_change_is_refused(
    slim_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture, host: str
) -> None:
    """Guards the breaks: a host name taken for loopback (`studio._is_loopback`), so that
    `--http-host tts.lan` without a token let anyone on the network delete voices; and a route
    that skips the read-only check. Through the real server started with `--http-host HOST`:
    every route of its app that is not a GET (listed from the router, so a route added later is
    covered) is refused with `studio-read-only` and the way to allow changes; the page and the
    start log say so."""
    root = tmp_path / "root"
    args = [*_args(slim_model, root), "--http-port", "0", "--http-host", host]

    async def scenario() -> dict:
        seen: dict = {}
        async with running_server(args) as server, aiohttp.ClientSession() as session:
            assert server.http is not None
            studio = Studio(server, f"http://{_reached_at(host)}:{server.http.port}/")
            headers = {CSRF_HEADER: await studio.csrf(session), "Origin": studio.url.rstrip("/")}
            routes = {
                (route.method, route.resource.canonical)
                for route in server.http.app.router.routes()
                if route.method not in ("GET", "HEAD") and route.resource is not None
            }
            seen["routes"] = routes
            for method, path in sorted(routes - NOT_STUDIO_CHANGES):
                url = studio.url + path.lstrip("/")
                body = {"name": "grandma", "new_name": "granny", "language": "en", "text": "Hi"}
                async with session.request(method, url, json=body, headers=headers) as response:
                    answer = await response.json()
                    seen[path] = (response.status, answer.get("error", answer))
            async with session.get(studio.url + "studio/api/voices") as response:
                seen["voices"] = (response.status, await response.json())
            speech = {"voice": "grandma", "input": "Hello.", "response_format": "pcm"}
            async with session.post(studio.url + "v1/audio/speech", json=speech) as response:
                seen["speech"] = (response.status, len(await response.read()))
        return seen

    with caplog.at_level(logging.WARNING, logger="wyoming_pocket_tts.http.studio"):
        seen = asyncio.run(scenario())
    routes = seen.pop("routes")
    assert ("POST", "/studio/api/voices/delete") in routes and len(routes) > 5, routes
    refused = {path: value for path, value in seen.items() if path.startswith("/")}
    assert len(refused) == len(routes) - len(NOT_STUDIO_CHANGES)
    for path, (status, error) in refused.items():
        assert (status, error.get("code")) == (403, "studio-read-only"), (path, error)
        assert "--http-token" in error["message"] and host in error["message"], path
    assert (root / "voices" / "grandma.wav").is_file()
    status, voices = seen["voices"]
    assert status == 200 and voices["can_add"] is False
    assert voices["folder_problem"] == refused["/studio/api/voices/delete"][1]["message"]
    assert seen["speech"][0] == 200 and seen["speech"][1] > 0  # hearing a voice is no change
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("read-only" in message for message in warnings), warnings


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_without_a_token_on_loopback_the_studio_changes_voices(
    slim_model: TinyModel, tmp_path: Path, host: str
) -> None:
    """Guards the other side of the same rule: loopback (by address or as `localhost`) is this
    machine only, so the studio there deletes a voice without a token."""
    root = tmp_path / "root"
    args = [*_args(slim_model, root), "--http-port", "0", "--http-host", host]

    async def scenario() -> int:
        async with running_server(args) as server, aiohttp.ClientSession() as session:
            assert server.http is not None
            studio = Studio(server, f"http://{_reached_at(host)}:{server.http.port}/")
            headers = {CSRF_HEADER: await studio.csrf(session)}
            delete = studio.url + "studio/api/voices/delete"
            async with session.post(delete, json={"name": "grandma"}, headers=headers) as answer:
                return answer.status

    assert asyncio.run(scenario()) == 200
    assert not (root / "voices" / "grandma.wav").exists()


def test_the_page_says_it_is_read_only_and_offers_no_adding(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """In chromium: the voices screen shows why, and the add buttons are off."""
    need_chromium()
    playwright_api = pytest.importorskip("playwright.async_api")
    root = tmp_path / "root"
    args = _args(slim_model, root)
    settings = StudioSettings(voices_dir=root / "voices", host="0.0.0.0")

    async def scenario() -> tuple[bool, str, bool]:
        async with (
            running_studio(args, settings) as studio,
            playwright_api.async_playwright() as pw,
        ):
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = await browser.new_page()
                page.set_default_timeout(30_000)
                await page.goto(studio.url)
                await page.wait_for_selector("body[data-ready='1']")
                shown = await page.locator("#voices-folder").is_visible()
                text = await page.locator("#voices-folder").inner_text()
                disabled = await page.locator("#add-file").is_disabled()
            finally:
                await browser.close()
        return shown, text, disabled

    shown, text, disabled = asyncio.run(scenario())
    assert shown and "read-only" in text and "--http-token" in text, text
    assert disabled


def test_with_a_token_on_a_lan_address_changes_are_allowed_and_the_cookie_is_not_the_token(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    args = _args(slim_model, root)
    settings = StudioSettings(voices_dir=root / "voices", host="0.0.0.0", token="s3cret")

    async def scenario() -> dict:
        seen: dict = {}
        async with running_studio(args, settings) as studio:
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as session:
                async with session.get(studio.url + "?token=s3cret") as opened:
                    assert opened.status == 200
                cookie = jar.filter_cookies(URL(studio.url))[TOKEN_COOKIE].value
                seen["cookie"] = cookie
                csrf = await studio.csrf(session)
                delete = studio.url + "studio/api/voices/delete"
                headers = {CSRF_HEADER: csrf}
                async with session.post(delete, json={"name": "grandma"}, headers=headers) as r:
                    seen["delete"] = r.status
                async with session.get(studio.url + "v1/models") as r:
                    seen["models by cookie"] = r.status
            async with aiohttp.ClientSession() as thief:  # the cookie's value, as an API key
                stolen = {"Authorization": f"Bearer {cookie}"}
                for path in ("v1/models", "studio/api/voices"):
                    async with thief.get(studio.url + path, headers=stolen) as r:
                        seen[f"{path} by stolen cookie"] = r.status
        return seen

    seen = asyncio.run(scenario())
    assert "s3cret" not in seen.pop("cookie")
    assert seen == {
        "delete": 200,
        "models by cookie": 200,
        "v1/models by stolen cookie": 401,
        "studio/api/voices by stolen cookie": 401,
    }
    assert not (root / "voices" / "grandma.wav").exists()


async def _with_cookie(args: list[str], cookie: str | None, url_path: str = "") -> dict:
    """Start the real server on `args`; with `cookie`, what it answers to that cookie alone (the
    voice list, and deleting `grandma` with the page's CSRF token); without, the cookie its page
    sets when opened with `?token=`."""
    seen: dict = {}
    async with running_server(args) as server:
        assert server.http is not None
        url = f"http://127.0.0.1:{server.http.port}/"
        if cookie is None:
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as session:
                async with session.get(url + url_path) as opened:
                    assert opened.status == 200
                seen["cookie"] = jar.filter_cookies(URL(url))[TOKEN_COOKIE].value
            return seen
        async with aiohttp.ClientSession(cookies={TOKEN_COOKIE: cookie}) as session:
            async with session.get(url + "studio/api/voices") as listed:
                seen["voices"] = listed.status
            async with session.get(url) as page:
                found = re.search(r'name="studio-csrf" content="([^"]+)"', await page.text())
            headers = {CSRF_HEADER: found[1] if found else ""}
            delete = url + "studio/api/voices/delete"
            async with session.post(delete, json={"name": "grandma"}, headers=headers) as r:
                seen["delete"] = r.status
    return seen


def test_the_cookie_opens_only_the_install_and_token_it_was_made_for(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """Guards the breaks: the cookie's value made without the token (any install's cookie opens
    every other's) or without the install's secret (a value computed from the source and a
    token guessed or shared opens it). Install A's cookie is refused by install A once its token
    changes, and by install B (its own data folder) with the same token; install A restarted
    with the same token still takes it, and its key file is readable by its user only."""
    root = tmp_path / "root"
    args = _args(slim_model, root)

    def start(data: str, token: str) -> list[str]:
        return [*args, "--http-port", "0", "--http-token", token, "--data-dir", str(root / data)]

    async def scenario() -> dict:
        opened = await _with_cookie(start("a", "first"), None, "?token=first")
        cookie = opened["cookie"]
        return {
            "another token": await _with_cookie(start("a", "second"), cookie),
            "another install": await _with_cookie(start("b", "first"), cookie),
            "restarted": await _with_cookie(start("a", "first"), cookie),
        }

    seen = asyncio.run(scenario())
    assert seen == {
        "another token": {"voices": 401, "delete": 401},
        "another install": {"voices": 401, "delete": 401},
        "restarted": {"voices": 200, "delete": 200},
    }
    assert (root / "a" / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert not (root / "voices" / "grandma.wav").exists()  # deleted by the right cookie only


TOOLS = ("unshare", "nsenter", "ip")
HTTP = f"http://{ADDON}:{ADDON_HTTP_PORT}/"


def _in_own_network(args: list[str], home: Path, log: Path) -> subprocess.Popen[bytes]:
    """The server in a new network namespace (only loopback, up), its HTTP side on 0.0.0.0."""
    command = [
        "unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
        sys.executable, "-m", "wyoming_pocket_tts", "--uri", "tcp://127.0.0.1:10200", *args,
    ]  # fmt: skip
    with log.open("wb") as out:
        return subprocess.Popen(
            command, env=isolated_env(home), stdout=out, stderr=subprocess.STDOUT
        )


def _until_served(link: Link, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while True:
        assert process.poll() is None, log.read_text(errors="replace")
        assert time.monotonic() < deadline, log.read_text(errors="replace")
        try:
            if link.request("GET", HTTP + "health", source=OTHER)[0] == 200:
                return
        except subprocess.CalledProcessError:
            pass  # not listening yet
        time.sleep(0.5)


def _delete(link: Link, source: str) -> tuple[int, dict]:
    _, _, page = link.request("GET", HTTP, source=source)
    match = re.search(r'name="studio-csrf" content="([^"]+)"', page)
    headers = {"Content-Type": "application/json", CSRF_HEADER: match[1] if match else ""}
    body = json.dumps({"name": "grandma"}).encode()
    status, _, answer = link.request(
        "POST", HTTP + "studio/api/voices/delete", source=source, headers=headers, body=body
    )
    return status, json.loads(answer)


@pytest.mark.skipif(
    os.geteuid() != 0 or any(shutil.which(tool) is None for tool in TOOLS),
    reason="needs root, unshare, nsenter and ip (a network namespace and a veth pair)",
)
def test_through_a_real_link_only_the_ingress_proxy_changes_voices_without_a_token(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """Plain `--http-host 0.0.0.0`: neither a LAN peer nor 172.30.32.2 may delete. The add-on's
    HTTP flags (`http_api: true`, no `http_token`): the ingress proxy may, another peer not."""
    seen: dict[str, tuple[int, dict]] = {}
    addon_flags = OPTIONS["http_api"].flags(True)
    plain = ["--http-port", str(ADDON_HTTP_PORT), "--http-host", "0.0.0.0"]
    for name, flags in (("plain", plain), ("add-on", addon_flags)):
        root = tmp_path / name
        args = _args(slim_model, root)
        log = tmp_path / f"{name}.log"
        process = _in_own_network([*args, *flags], tmp_path / f"{name}-home", log)
        try:
            with ingress_link(process.pid) as link:
                _until_served(link, process, log)
                seen[f"{name} lan"] = _delete(link, OTHER)
                seen[f"{name} proxy"] = _delete(link, PROXY)
        finally:
            process.terminate()
            assert process.wait(60) == 0, log.read_text(errors="replace")
        seen[f"{name} kept"] = ((root / "voices" / "grandma.wav").is_file(), {})
        if name == "plain":
            assert "read-only" in log.read_text(errors="replace")
    codes = {
        key: (status, body.get("error", {}).get("code")) for key, (status, body) in seen.items()
    }
    assert codes == {
        "plain lan": (403, "studio-read-only"),
        "plain proxy": (403, "studio-read-only"),
        "plain kept": (True, None),
        "add-on lan": (403, "ingress-only"),
        "add-on proxy": (200, None),
        "add-on kept": (False, None),
    }
