"""A provisional speed decision is measured again when the server is idle, a request arriving
meanwhile is served first, and the status page and the log say which decision stands.

The real server runs in this process (`running_studio`) on the tiny model, so the test can set
how long idleness must last (`comparison.REMEASURE_AFTER`) and see where the engine thread is.
The provisional decision is injected as the saved decision file (what a bursty first start
writes): which way the tiny model's timings go says nothing, so the test checks that the
measurement happens, is saved, and is shown, never what it chooses (tests/units/test_tuning_rule.py
tests the rule with injected timings).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from testkit.model_factory import TinyModel
from testkit.support import synthesize
from tests.conftest import model_args
from tests.studio_support import running_studio, status, until
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.tuning import comparison, decisions
from wyoming_pocket_tts.engine.tuning.rule import Choice, Config
from wyoming_pocket_tts.engine.tuning.timing import Speed
from wyoming_pocket_tts.http.studio import StudioSettings

COMPARISON_LOGGER = "wyoming_pocket_tts.engine.tuning.comparison"
IDLE_LOGGER = "wyoming_pocket_tts.engine.tuning.idle"


def provisional_decision(args: list[str], data: Path) -> Path:
    """Save what a bursty first start decides: int8 x1, 40% sooner within 150% noise."""
    settings = parse_settings(args).engine.default_model
    store = decisions.DecisionStore(data / "tuning")
    figures = {"fp32 x1": Speed(0.14, 2.1), "int8 x1": Speed(0.10, 3.2)}
    store.write(decisions.host_key(settings), Choice(Config(1, True), "", 0.4, 1.5, True), figures)
    return store.path_for(decisions.host_key(settings))


def test_a_provisional_decision_is_measured_again_when_idle_after_the_request(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=COMPARISON_LOGGER)
    caplog.set_level(logging.INFO, logger=IDLE_LOGGER)
    data = tmp_path / "data"
    args = model_args(tiny_model, {"a": voices["a"]}, "--data-dir", str(data), "--quantize", "auto")
    saved = provisional_decision(args, data)
    monkeypatch.setattr(comparison, "REMEASURE_AFTER", 0.2)
    measuring, request_in = threading.Event(), threading.Event()
    real = comparison.time_serving

    def spied(*a: Any, **kw: Any) -> Speed:
        """The first timed generation of the idle measurement waits until the test has read
        the status and its request is admitted (ordering only; every generation is real)."""
        if not measuring.is_set():
            measuring.set()
            request_in.wait(30)
        return real(*a, **kw)

    monkeypatch.setattr(comparison, "time_serving", spied)

    def messages(text: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if text in r.getMessage()]

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], str]:
        settings = StudioSettings(voices_dir=tmp_path / "voices")
        async with running_studio(args, settings) as studio:
            engine = studio.server.service.engine
            before = await status(studio)
            assert engine.tuning is not None and engine.tuning.provisional
            assert "provisional: measured again when idle" in engine.tuning.reason
            await until(measuring.is_set)
            port = studio.server.port or 0
            reply = asyncio.create_task(synthesize(port, "Hello there."))
            await until(lambda: engine.scheduler.in_care > 0 or reply.done())
            request_in.set()
            assert (await asyncio.wait_for(reply, 60)).audio
            await until(lambda: bool(messages("Measured again while idle:")))
            await until(
                lambda: (
                    engine.tuning is not None
                    and not engine.tuning.reason.startswith("auto, saved on")
                )
            )  # the engine thread serves the new decision from here on
            # ...with the voice states of the variant it chose (new ones if int8 <-> fp32).
            assert (await asyncio.wait_for(synthesize(port, "And again."), 60)).audio
            return before, await status(studio), engine.tuning.reason

    before, after, reason = asyncio.run(scenario())
    assert before["provisional"] is True and before["quantized"] is True
    assert before["decision"] == "provisional: 40% sooner, within the 150% noise"
    assert messages("Measurement abandoned: a request came")  # the request went first
    (line,) = messages("Measured again while idle:")
    record = json.loads(saved.read_text())
    assert after["provisional"] is record["provisional"]
    assert after["quantized"] is record["quantize"]
    assert after["decision"] in line and after["decision"].startswith(
        "provisional" if record["provisional"] else "settled"
    )
    assert record["gain"] != 0.4 or record["noise"] != 1.5  # the new measurement's
    assert ("provisional: measured again when idle" in reason) is record["provisional"], reason
    assert not messages("now runs on")  # fp32 or int8, torch both: no runtime changed
