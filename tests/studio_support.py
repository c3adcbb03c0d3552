"""Test support for the voice studio: the real in-process server with the studio served beside
it by aiohttp on 127.0.0.1 (real TCP, same loop), and the system's chromium via playwright."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

import aiohttp
import pytest
from aiohttp import web

from testkit.support import running_server
from wyoming_pocket_tts.http.app import build_app
from wyoming_pocket_tts.http.studio import StudioSettings, add_studio
from wyoming_pocket_tts.server import TtsServer
from wyoming_pocket_tts.settings import HttpSettings

CHROMIUM = os.environ.get("TESTS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
"""The browser of the page tests; `TESTS_CHROMIUM=/nowhere` runs the suite as on a machine
without one (only the page assertions skip)."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
]
NEEDS_SPEECH = "needs the HTTP API of issue 23"
SCREENSHOTS = Path(os.environ.get("STUDIO_SCREENSHOTS", tempfile.gettempdir()))
"""Where the browser tests save a screenshot of each screen; `STUDIO_SCREENSHOTS=docs` refreshes
the README's."""


@dataclass
class Studio:
    """A running server with its studio."""

    server: TtsServer
    url: str
    """The studio's base URL, ending in `/`."""
    app: web.Application | None = None
    """The HTTP side's app serving it (its router lists every route)."""

    async def csrf(self, session: aiohttp.ClientSession) -> str:
        """The CSRF token the page carries."""
        async with session.get(self.url) as response:
            page = await response.text()
        match = re.search(r'name="studio-csrf" content="([^"]+)"', page)
        assert match, page[:200]
        return match.group(1)


@contextlib.asynccontextmanager
async def running_studio(
    args: Sequence[str], settings: StudioSettings, **server_settings: float
) -> AsyncIterator[Studio]:
    """`running_server(args)` plus an aiohttp app with `add_studio` on 127.0.0.1:<free port>.

    The app is the HTTP side's own (`build_app`), so `v1/audio/speech` is served beside it.
    """
    async with running_server(args, **server_settings) as server:
        proxy = settings.ingress_proxy if settings.ingress else None
        http = HttpSettings(port=0, token=settings.token, ingress_proxy=proxy)
        add = partial(add_studio, service=server.service, settings=settings)
        app = build_app(server.service, http, [add])
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            yield Studio(server, f"http://127.0.0.1:{port}/", app)
        finally:
            await runner.cleanup()


async def has_speech_api(studio: Studio) -> bool:
    """Whether `v1/audio/speech` is served beside the studio (issue 23 merged and wired)."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(studio.url + "v1/audio/speech", json={}) as response,
    ):
        return response.status != 404


NO_CHROMIUM = "chromium is not installed (apt-get install chromium)"


def has_chromium() -> bool:
    """Whether the system's chromium is here: only a page's assertions need it."""
    return Path(CHROMIUM).exists()


def need_chromium() -> None:
    """Skip a test that checks nothing but a page when chromium is missing."""
    if not has_chromium():
        pytest.skip(NO_CHROMIUM)


def page_unchecked(what: str) -> NoReturn:
    """Skip, once everything else of a test has been asserted, what only chromium can check."""
    pytest.skip(f"{NO_CHROMIUM}: {what} unchecked; the test's other assertions passed")


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """`folder` bind-mounted read-only onto itself (as the Supervisor mounts /share), undone on
    exit. Root only: a permission bit does not stop root, a read-only mount does."""
    subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True, timeout=10)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True, timeout=10)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True, timeout=10)


async def status_model_row(url: str, text: str) -> str:
    """The studio status tab's first model row, as chromium shows it once it says `text` (or
    after 30 s: the row says what it says, for the test to assert)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            await page.goto(url)
            await page.wait_for_selector("body[data-ready='1']")
            await page.click("nav button[data-tab='status']")
            row = page.locator("#status-models tbody tr").first
            with contextlib.suppress(Exception):  # playwright's timeout
                await row.get_by_text(text, exact=False).wait_for(timeout=30_000)
            return await row.inner_text()
        finally:
            await browser.close()


async def status(studio: Studio) -> dict[str, Any]:
    """The studio's status entry of its one model."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(studio.url + "studio/api/status") as response,
    ):
        assert response.status == 200
        (model,) = (await response.json())["models"]
        return dict(model)


async def until(check: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait, on the loop, until `check()` holds (an assertion fails after `timeout` s)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)
