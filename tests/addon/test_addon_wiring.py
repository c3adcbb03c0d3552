"""The add-on's wires to Home Assistant: a folder voice chosen as the default survives the option
repair, and the Supervisor hears of the server without `--zeroconf`. Each through the real
server process, as the Supervisor starts it.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import ServerProcess, describe, synthesize
from tests.conftest import model_args
from tests.server.test_discovery import FakeSupervisor, supervisor  # noqa: F401 (the fixture)

from .test_addon import addon_server, load_yaml

pytestmark = pytest.mark.timeout(240)


def test_a_folder_voice_chosen_as_the_default_speaks_by_default(tmp_path: Path) -> None:
    """Guards the break: the add-on's option repair (`addon_repair._default_voice`) dropping a
    default `voice` that names a file of the voices folder (it knew only configured and
    built-in voices), so the household's recorded voice chosen in the add-on's options is
    replaced by pocket-tts's default with a warning.

    The add-on's entry point as the Supervisor starts it (the options file's place and the hub
    faked as in tests/addon/test_addon.py): `voice: mamie` with `mamie.wav` in the voices
    folder. The server must list mamie first, as its default (the packaged model samples its
    noise, so replies are not compared), and warn of no option."""
    options = dict(load_yaml("config.yaml")["options"])
    options["language"] = "english_2m_2026-10"
    voices_dir = tmp_path / "share" / "voices"
    write_voice_wav(voices_dir / "mamie.wav", 2.0, seed=2)
    options |= {"voices_dir": str(voices_dir), "voice": "mamie"}
    server, _ = addon_server(options, tmp_path)
    with server:
        server.wait_for_log("Ready")
        reply = asyncio.run(synthesize(server.port, "Hello from the add-on."))
        info = asyncio.run(describe(server.port))
        log = server.log
        assert server.stop() == 0
    assert "Option 'voice'" not in log, log
    assert info.tts[0].voices[0].name == "mamie"  # the default: listed first
    assert reply.audio and not reply.errors


def test_the_supervisor_hears_of_the_server_without_zeroconf(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    supervisor: tuple[str, type[FakeSupervisor]],  # noqa: F811 (the fixture imported above)
) -> None:
    """Guards the break: the Supervisor's discovery announcement sent only when `--zeroconf` is
    given, which the add-on does not give: Home Assistant would never offer to set it up.
    Inside an add-on (SUPERVISOR_TOKEN set), a server started without `--zeroconf` posts its
    Wyoming URI to the Supervisor once it is ready.

    Faked: the Supervisor, a local HTTP server (its URL, a module constant, is pointed at it in
    the server's process), as in tests/server/test_discovery.py."""
    url, handler = supervisor
    prelude = f"import wyoming_pocket_tts.discovery as d\nd.SUPERVISOR_URL = {url!r}"
    env: dict[str, str | None] = {"SUPERVISOR_TOKEN": "s3cret"}
    with ServerProcess(
        model_args(tiny_model, voices), tmp_path / "log", env=env, prelude=prelude
    ) as server:
        server.wait_for_log("Ready")
        deadline = time.monotonic() + 30
        while not handler.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        port = server.port
        assert server.stop() == 0
    assert [(r["path"], r["authorization"]) for r in handler.requests] == [
        ("/discovery", "Bearer s3cret")
    ]
    config = handler.requests[0]["body"]["config"]
    assert config["uri"].endswith(f":{port}"), config
