"""A first start without network (a power cut, the router boots after the board): the server stays
up, answers `describe`, refuses speech with `model-not-downloaded` (closing event included), says
what it waits for in the log and the studio, and serves once the download works.

Each test is a server process of its own (huggingface_hub reads HF_HOME and HF_ENDPOINT at
import). "The network arrives" is a Hugging Face cache that appears later (offline hub: the same
`LocalEntryNotFoundError` a refused connection gives), or a refused loopback mirror (`HF_ENDPOINT`,
a real refused connection). The retry delays are shortened by a prelude (`offline.FIRST_RETRY`).
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import urllib.error
import urllib.request
from pathlib import Path

from wyoming.info import Info

from testkit.model_factory import TinyModel, build_hf_cache
from testkit.support import ServerProcess, describe, refusing_port, synthesize, synthesize_streamed
from tests.studio_support import CHROMIUM, CHROMIUM_ARGS, has_chromium, page_unchecked
from wyoming_pocket_tts.errors import MODEL_NOT_DOWNLOADED

LANGUAGE = "english_2m_2026-10"
QUICK_RETRIES = (
    "import wyoming_pocket_tts.offline as offline\n"
    "offline.FIRST_RETRY = 0.3\n"
    "offline.LONGEST_RETRY = 0.6"
)
WAITING = "Waiting for the network:"
_HTTP = re.compile(r"HTTP API on http://127\.0\.0\.1:(\d+)")


def _http_port(server: ServerProcess) -> int:
    server.wait_for_log("HTTP API on")
    match = _HTTP.search(server.log)
    assert match, server.log
    return int(match.group(1))


def _get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


async def _status_in_the_browser(url: str) -> str:
    """The studio's status tab in chromium: the line that says what the start waits for."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            await page.goto(url)
            await page.click("nav button[data-tab='status']")
            await page.wait_for_selector("#status-waiting:not([hidden])", timeout=30_000)
            return await page.text_content("#status-waiting") or ""
        finally:
            await browser.close()


def _health(port: int) -> dict[str, object]:
    """`/health`'s JSON, whatever its status code."""
    try:
        return _get_json(f"http://127.0.0.1:{port}/health")
    except urllib.error.HTTPError as error:
        return json.loads(error.read())  # type: ignore[no-any-return]


def _speech_refusal(
    port: int, voice: str = "alba", text: str = "Hello."
) -> tuple[int, dict[str, object]]:
    body = json.dumps({"model": "tts-1", "input": text, "voice": voice}).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/audio/speech",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    raise AssertionError("speech was served without a model")


def test_no_network_at_the_first_start_waits_then_serves(tmp_path: Path) -> None:
    """Slow (~30 s on a busy host): a server process of its own, whose download fails until
    the Hugging Face cache appears. The studio's page is read in chromium where there is one;
    without, everything else is still asserted."""
    hf_home = tmp_path / "hf"
    staging = tmp_path / "staging"
    build_hf_cache(staging, language=LANGUAGE, voices=("alba",))
    env = {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    args = ["--language", LANGUAGE, "--voice", "alba", "--http-port", "0"]
    with ServerProcess(args, tmp_path / "server.log", env=env, prelude=QUICK_RETRIES) as server:
        server.wait_for_log(WAITING)
        info: Info = asyncio.run(describe(server.port))
        assert [voice.name for voice in info.tts[0].voices] == ["alba"]
        assert info.tts[0].voices[0].installed  # Home Assistant reads the list once, at set-up
        assert "; waiting for network (retry in" in (info.tts[0].description or "")

        reply = asyncio.run(synthesize(server.port, "Hello before the network."))
        assert [error.code for error in reply.errors] == [MODEL_NOT_DOWNLOADED]
        assert not reply.audio and reply.types[-1] == "audio-stop"
        assert "waiting for the network" in (reply.errors[0].text or "")
        assert "; next try in" in (reply.errors[0].text or "")
        streamed = asyncio.run(synthesize_streamed(server.port, ["Hello. ", "Again."]))
        assert [error.code for error in streamed.errors] == [MODEL_NOT_DOWNLOADED]
        assert streamed.types[-1] == "synthesize-stopped"

        http = _http_port(server)
        health = _health(http)
        assert health["status"] == "loading" and health["state"] == "waiting for network"
        assert isinstance(health["retry_in"], float) and 0 <= health["retry_in"] <= 0.6
        assert "is not downloaded yet" in str(health["detail"])
        status, body = _speech_refusal(http)
        assert status == 503 and body["error"]["code"] == MODEL_NOT_DOWNLOADED  # type: ignore[index]
        waiting = _get_json(f"http://127.0.0.1:{http}/studio/api/status")["waiting"]
        assert isinstance(waiting, str) and "is not downloaded yet" in waiting
        shown = None
        if has_chromium():
            shown = asyncio.run(_status_in_the_browser(f"http://127.0.0.1:{http}/"))

        server.wait_for_log("trying again in 0.6 s")  # the backoff reached its longest delay
        _network_arrives(staging / "hub", hf_home / "hub")
        server.wait_for_log("Ready")
        assert server.process.poll() is None
        reply = asyncio.run(synthesize(server.port, "Hello after the network."))
        assert reply.audio and not reply.errors
        assert _get_json(f"http://127.0.0.1:{http}/studio/api/status")["waiting"] is None
        assert _health(http) == {"status": "ok", "state": "ready"}
        after: Info = asyncio.run(describe(server.port))
        assert after.tts[0].description == f"Kyutai Pocket-TTS (pocket-tts {LANGUAGE})"
        assert server.stop() == 0
    assert "The network is back: pocket-tts english_2m_2026-10 is downloaded" in server.log
    assert "Cannot start" not in server.log
    if shown is None:
        page_unchecked("the status tab's waiting line")
    assert shown.startswith("Waiting for the network:") and "is not downloaded yet" in shown


def _network_arrives(built: Path, hub: Path) -> None:
    """Move each repository of a built cache into the server's hub cache, whole (a rename)."""
    hub.mkdir(parents=True, exist_ok=True)
    for repo in built.iterdir():
        shutil.rmtree(hub / repo.name, ignore_errors=True)  # what the failed attempts left
        repo.rename(hub / repo.name)


def test_the_addons_mirror_option_is_used_and_waited_for(tmp_path: Path) -> None:
    """Up to ~60 s on a busy host (the hub retries a refused connection itself): the add-on's
    entry point with its `hf_endpoint` option on a loopback port that listens to nothing (a real
    refused connection, the hub online), then SIGTERM during the wait."""
    with refusing_port() as port:
        mirror = f"http://127.0.0.1:{port}"
        options = tmp_path / "options.json"
        options.write_text(
            json.dumps({"language": LANGUAGE, "voices_dir": "", "hf_endpoint": mirror}), "utf-8"
        )
        args = ["--options", str(options), "--data-dir", str(tmp_path / "data")]
        env: dict[str, str | None] = {"HF_HOME": None, "HF_HUB_OFFLINE": None}
        with ServerProcess(
            args, tmp_path / "server.log", env=env, prelude=QUICK_RETRIES,
            entry="wyoming_pocket_tts.addon",
        ) as server:  # fmt: skip
            server.wait_for_log("trying again in 0.6 s")
            assert asyncio.run(describe(server.port)).tts
            assert server.stop() == 0
    (line, *_) = [line for line in server.log.splitlines() if WAITING in line]
    assert f"{mirror} cannot be reached" in line, line
    assert "Cannot start" not in server.log


def test_a_local_model_whose_voice_is_not_downloaded_waits_naming_the_voice(
    slim_model: TinyModel, tmp_path: Path
) -> None:
    """A model from local files (`--model-config`) with the built-in voice `alba`, whose audio
    comes from the hub: the start waits for the network naming the voice, not the model."""
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    args = ["--model-config", str(slim_model.config_path), "--voice", "alba"]
    with ServerProcess(args, tmp_path / "server.log", env=env, prelude=QUICK_RETRIES) as server:
        server.wait_for_log(WAITING)
        assert server.stop() == 0
    assert f"{WAITING} voice alba is not downloaded yet" in server.log, server.log
    assert "config.yaml is not downloaded" not in server.log, server.log


def test_a_second_language_without_network_is_not_downloaded_not_unavailable(
    tmp_path: Path,
) -> None:
    """English downloaded, French not, no network (issue 64, item 4): a French request gets
    `model-not-downloaded` (HTTP 503) as the first start's would, never `model-unavailable`
    (500); English speaks on, and a second French request is refused the same way (the load
    that found no network is not remembered as a failed model)."""
    hf_home = tmp_path / "hf"
    build_hf_cache(hf_home, language=LANGUAGE, voices=("alba",))
    env = {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    args = ["--language", LANGUAGE, "--language", "french", "--http-port", "0"]
    with ServerProcess(args, tmp_path / "server.log", env=env) as server:
        server.wait_for_log("Ready")
        info: Info = asyncio.run(describe(server.port))
        french = next(
            voice.name
            for voice in info.tts[0].voices
            if any(language.startswith("fr") for language in voice.languages)
        )
        for _ in range(2):
            reply = asyncio.run(synthesize(server.port, "Bonjour.", voice=french))
            assert [error.code for error in reply.errors] == [MODEL_NOT_DOWNLOADED], reply.errors
            assert reply.types[-1] == "audio-stop"
        status, body = _speech_refusal(_http_port(server), french, "Bonjour.")
        assert status == 503 and body["error"]["code"] == MODEL_NOT_DOWNLOADED  # type: ignore[index]
        english = asyncio.run(synthesize(server.port, "Hello.", voice="alba"))
        assert english.audio and not english.errors
        assert server.stop() == 0
