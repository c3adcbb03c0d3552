"""A voice saved in the studio is encoded (and measured) by the engine before the studio reports
it, so its first play costs what a known voice's does: through the real in-process server, its
HTTP side's studio over real TCP, and a Wyoming `synthesize` for the first play."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import synthesize
from tests.conftest import model_args
from tests.studio_support import running_studio
from wyoming_pocket_tts.http.studio import CSRF_HEADER, StudioSettings
from wyoming_pocket_tts.http.studio_api import StudioApi

pytestmark = pytest.mark.timeout(240)

VOICE_STATES_LOGGER = "wyoming_pocket_tts.engine.voice_states.cache"
"""It logs "Encoded voice" once for each audio prompt the engine encodes."""


def test_a_saved_voice_is_encoded_before_the_studio_reports_it(
    slim_model: TinyModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=VOICE_STATES_LOGGER)

    def encodes() -> int:
        return caplog.text.count("Encoded voice")

    configured = write_voice_wav(tmp_path / "configured" / "alba.wav", 2.0, seed=1)
    (tmp_path / "voices").mkdir()
    args = model_args(
        slim_model,
        {"alba": configured},
        "--voices-dir",
        str(tmp_path / "voices"),
        "--data-dir",
        str(tmp_path / "data"),
    )
    # Two recordings: a voice state is cached by its file's content.
    samples = {
        name: write_voice_wav(tmp_path / f"{name}.wav", 12.0, seed=seed).read_bytes()
        for name, seed in (("grandma", 4), ("grandpa", 5))
    }
    seen: dict[str, dict[str, Any]] = {}

    async def scenario() -> None:
        settings = StudioSettings(voices_dir=tmp_path / "voices")
        async with running_studio(args, settings) as studio, aiohttp.ClientSession() as session:
            csrf = {CSRF_HEADER: await studio.csrf(session)}

            async def save_then_play(name: str) -> dict[str, Any]:
                before = encodes()
                params = {"name": name, "language": "en", "start": "0", "end": "0"}
                started = time.monotonic()
                async with session.post(
                    studio.url + "studio/api/voices",
                    params=params,
                    data=samples[name],
                    headers=csrf,
                ) as response:
                    assert response.status == 201, await response.text()
                    view = await response.json()
                saved = time.monotonic() - started
                at_save = encodes() - before
                reply = await synthesize(studio.server.port or 0, "Hello there.", voice=name)
                assert not reply.errors
                return {
                    "ready": view["ready"],
                    "encoded_at_save": at_save,
                    "encoded_at_first_play": encodes() - before - at_save,
                    "save_s": round(saved, 2),
                    "first_audio_s": round(reply.chunk_times[0] - reply.sent_at, 2),
                }

            seen["prepared"] = await save_then_play("grandma")

            async def not_prepared(self: StudioApi, name: str) -> None:
                return None

            monkeypatch.setattr(StudioApi, "_prepare", not_prepared)  # as before this change
            seen["not prepared"] = await save_then_play("grandpa")

    asyncio.run(scenario())
    print("first play of a newly saved voice:", seen)
    assert seen["prepared"]["ready"] is True
    assert (seen["prepared"]["encoded_at_save"], seen["prepared"]["encoded_at_first_play"]) == (
        1,
        0,
    )
    not_prepared = seen["not prepared"]
    assert (not_prepared["encoded_at_save"], not_prepared["encoded_at_first_play"]) == (0, 1)
