"""`--quantize auto`: the fp32/int8 choice is measured once per host and model, saved, reused.

The comparison runs the real pocket-tts code on the tiny random model. Which side wins on the
tiny model says nothing (both are fast and the machine is shared); the tests check that the
choice is measured, stored, obeyed and re-measured, never which way it goes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path

import pytest
import torch

from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.engine.advice import SLOW_RTF, log_speed_verdict
from wyoming_pocket_tts.engine.timing import Speed
from wyoming_pocket_tts.engine.tuning import Tuning, load_tuned_model
from wyoming_pocket_tts.settings import ModelSettings

from .conftest import model_args
from .model_factory import TinyModel, build_tiny_model
from .support import ServerProcess, synthesize

FRAMES = 3
"""A very short timed generation: enough for both figures, cheap on 2 shared cores."""
TUNING_LOGGER = "wyoming_pocket_tts.engine.tuning"
ADVICE_LOGGER = "wyoming_pocket_tts.engine.advice"


def is_quantized(model) -> bool:
    """True if the transformer's linear layers are torch.ao dynamic int8 modules."""
    return any("quantized" in type(module).__module__ for module in model.flow_lm.modules())


@pytest.fixture(autouse=True)
def torch_threads():
    """The tuning sets torch's process-wide thread count: put pocket-tts's back afterwards."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def timings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The comparison's per-run log lines (one per timed variant: fp32/int8 x threads)."""
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("Timing ")]


def load(config: Path, data: Path, quantize: bool | None = None) -> tuple[object, Tuning]:
    settings = ModelSettings(language=None, config=str(config), quantize=quantize)
    return load_tuned_model(settings, data, frames=FRAMES, rounds=1)


@pytest.fixture
def own_model(tmp_path: Path, tiny_model: TinyModel) -> TinyModel:
    """A private copy of the tiny model, whose weights a test may touch (new identity)."""
    return build_tiny_model(
        tmp_path / "model", cache_dir=tiny_model.root.parent / ".model_factory_cache"
    )


def test_auto_decision_is_stored_reused_and_obeyed(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    data = tmp_path / "data"
    _, first = load(own_model.config_path, data)
    (saved,) = (data / "tuning").glob("*.json")
    record = json.loads(saved.read_text())
    assert {"fp32 x1", "int8 x1"} <= set(record["figures"])
    assert len(timings(caplog)) == len(record["figures"])  # one round
    assert record["quantize"] is first.settings.quantize
    assert record["threads"] == first.threads == torch.get_num_threads()
    assert record["key"]["model"] and record["key"]["cpu"] and record["key"]["torch"]
    assert "measured now" in first.reason

    # The next start reads the decision: no comparison. Flip the saved choice to prove that
    # the file, not a new measurement, decides.
    record["quantize"] = not record["quantize"]
    record["threads"] = 2  # pocket-tts (and --quantize on/off) would use 1
    saved.write_text(json.dumps(record))
    caplog.clear()
    model, second = load(own_model.config_path, data)
    assert timings(caplog) == []
    assert second.settings.quantize is record["quantize"]
    assert is_quantized(model) is record["quantize"]
    assert second.threads == record["threads"] == torch.get_num_threads()
    assert "saved on" in second.reason
    assert second.speed.first_audio > 0 and second.speed.rtf > 0  # the warm-up was timed


def test_a_changed_model_is_measured_again(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    data = tmp_path / "data"
    load(own_model.config_path, data)
    stat = own_model.weights_path.stat()
    os.utime(own_model.weights_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    caplog.clear()
    _, again = load(own_model.config_path, data)
    assert len(timings(caplog)) >= 2
    assert "measured now" in again.reason
    assert len(list((data / "tuning").glob("*.json"))) == 2


def test_unreadable_decision_is_measured_again(
    own_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    data = tmp_path / "data"
    load(own_model.config_path, data)
    (saved,) = (data / "tuning").glob("*.json")
    saved.write_text('{"key": ')  # cut short, as after a power cut
    caplog.clear()
    _, again = load(own_model.config_path, data)
    assert "Ignoring unreadable tuning file" in caplog.text
    assert len(timings(caplog)) >= 2
    assert json.loads(saved.read_text())["quantize"] is again.settings.quantize


@pytest.mark.parametrize("quantize", [True, False])
def test_explicit_quantize_is_obeyed_without_measuring(
    tiny_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture, quantize: bool
) -> None:
    caplog.set_level(logging.DEBUG, logger=TUNING_LOGGER)
    model, result = load(tiny_model.config_path, tmp_path / "data", quantize)
    assert is_quantized(model) is quantize and result.settings.quantize is quantize
    assert result.threads == torch.get_num_threads() == 1
    assert timings(caplog) == []
    assert not (tmp_path / "data" / "tuning").exists()


def test_server_measures_once_then_starts_from_the_saved_decision(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """The real server, started twice on one data folder; the voice state saved by the first
    start (keyed by the quantisation chosen) is found by the second."""
    args = model_args(tiny_model, {"a": voices["a"]}, "--debug", "--data-dir", str(tmp_path))
    args += ["--quantize", "auto"]  # test servers default to off (tests/support.py)
    with ServerProcess(args, tmp_path / "1.log") as first:
        first.wait_for_log("Speed here")
        assert "Tuned for this host" in first.log and "Timing int8 x1" in first.log
        assert first.log.index("Ready") < first.log.index("Speed here")
        assert asyncio.run(synthesize(first.port, "Hello there.")).audio
        assert first.stop() == 0
    with ServerProcess(args, tmp_path / "2.log") as second:
        second.wait_for_log("Speed here")
        assert "Timing " not in second.log and "saved on" in second.log
        assert "Loaded voice a from its saved state" in second.log
        assert second.stop() == 0


# The flag and the verdict


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], None),
        (["--quantize"], True),
        (["--quantize", "on"], True),
        (["--quantize", "off"], False),
        (["--quantize", "auto"], None),
        (["--quantize", "--debug"], True),
    ],
)
def test_quantize_flag(flags: list[str], expected: bool | None) -> None:
    assert parse_settings(flags).engine.model.quantize is expected


def test_quantize_flag_rejects_other_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_settings(["--quantize", "yes"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'yes'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("language", "quantize", "advice"),
    [
        ("english", False, "english_18m_2026-10"),
        ("english_2026-09_24l", True, "english_2026-09"),
        ("french_24l", False, "'french'"),
        ("english_18m_2026-10", True, "english_7m_2026-10"),
        ("english_7m_refl_2026-10", True, "english_2m_refl_2026-10"),
        ("english_2m_2026-10", False, "--quantize on"),
        ("english_2m_2026-10", True, "faster CPU"),
        ("german", True, "faster CPU"),
    ],
)
def test_slow_host_gets_a_concrete_suggestion(
    caplog: pytest.LogCaptureFixture, language: str, quantize: bool, advice: str
) -> None:
    caplog.set_level(logging.INFO, logger=ADVICE_LOGGER)
    settings = ModelSettings(language=language, quantize=quantize)
    log_speed_verdict(Tuning(settings, 1, Speed(0.4, SLOW_RTF * 0.9), "test"))
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert advice in warning.getMessage()
    caplog.clear()
    log_speed_verdict(Tuning(settings, 1, Speed(0.1, SLOW_RTF * 1.1), "test"))
    assert [r.levelno for r in caplog.records] == [logging.INFO]
