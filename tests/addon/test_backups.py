"""The add-on's backups hold what the household made and none of what a start rebuilds:
config.yaml's `backup_exclude` read against a data folder the real server filled.

The server (in this process, tiny model, a cloned voice, `--quantize auto`) writes its voice
states and speed decision; the studio, over HTTP, the household's pronunciations and default
voice. Two parts are laid out by other code than a running server, where they would be: the
Hugging Face cache (`build_hf_cache`: the hub's own layout, in `huggingface/`, the add-on's
HF_HOME) and a graph folder (`runtime.graph_folder` with a remembered failure, through the
server's own `remember_failure`: a real export takes minutes at full size).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from testkit.model_factory import TinyModel, build_hf_cache
from testkit.support import synthesize
from tests.conftest import model_args
from tests.studio_support import Studio, running_studio
from tests.supervisor import backed_up
from wyoming_pocket_tts.engine.onnx.cache import graph_folder, remember_failure
from wyoming_pocket_tts.http.studio import CSRF_HEADER, StudioSettings

ADDON = Path(__file__).resolve().parents[2] / "pocket-tts"
REBUILT = {"huggingface", "voice-states", "graphs"}
"""Top-level entries of the data folder a start downloads or rebuilds."""
HOUSEHOLD = {"pronunciations", "default-voices.json", "tuning"}
"""Top-level entries the household made (or measured once on this machine): backed up."""


async def _post(studio: Studio, path: str, body: dict[str, Any]) -> None:
    async with aiohttp.ClientSession() as session:
        headers = {CSRF_HEADER: await studio.csrf(session)}
        async with session.post(studio.url + path, json=body, headers=headers) as response:
            assert response.status == 200, await response.text()


def _fill(data: Path, model: TinyModel, voices: dict[str, Path]) -> None:
    """A data folder as a running server and its studio leave it."""
    args = model_args(model, voices, "--data-dir", str(data), "--quantize", "auto")

    async def scenario() -> None:
        async with running_studio(args, StudioSettings()) as studio:
            reply = await synthesize(studio.server.port or 0, "Hello.", voice="b")
            assert reply.audio and not reply.errors
            entries = {"language": "en", "entries": [["Siobhan", "Shivawn"]]}
            await _post(studio, "studio/api/pronunciations", entries)
            await _post(studio, "studio/api/defaults", {"language": "en", "name": "b"})
            settings = studio.server.settings.engine.default_model
            remember_failure(graph_folder(data, settings), RuntimeError("no graphs here"))

    asyncio.run(scenario())
    build_hf_cache(data / "huggingface", language="english_2m_2026-10", voices=("alba",))


def test_backup_exclude_keeps_what_the_household_made(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _fill(data, tiny_model, voices)
    top = {entry.name for entry in data.iterdir()}
    assert top == REBUILT | HOUSEHOLD, "a new entry in the data folder: rebuilt or the household's?"
    excludes = yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8"))["backup_exclude"]
    kept = backed_up(data, excludes)
    for entry in REBUILT:
        assert any((data / entry).rglob("*.*")), f"{entry} is empty: the test shows nothing"
        assert not [path for path in kept if path.split("/")[0] == entry], entry
    for entry in HOUSEHOLD:
        files = {p.relative_to(data).as_posix() for p in [data / entry, *(data / entry).rglob("*")]}
        files = {path for path in files if (data / path).is_file()}
        assert files and files <= kept, entry
