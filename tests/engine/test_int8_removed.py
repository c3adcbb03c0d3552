"""A torch without eager dynamic int8: the server runs fp32 with one warning line and serves.

torch 2.13 deprecates `torch.ao.quantization.quantize_dynamic` and the quantized dtypes for
removal (pytorch/pytorch#184982). This torch still has them, so the removal is SIMULATED: the
API and the dtypes are deleted from torch's modules before the server's code runs (in-process
with monkeypatch, or as the server's prelude), which is what a later torch looks like to
pocket-tts's int8 and to `engine.speedups`.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from testkit.model_factory import TinyModel
from testkit.support import ServerProcess, short_timing, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.engine.model.int8 import int8_unavailable
from wyoming_pocket_tts.engine.tuning import decisions
from wyoming_pocket_tts.engine.tuning import tuned as tuning
from wyoming_pocket_tts.engine.tuning.rule import Choice, Config
from wyoming_pocket_tts.engine.tuning.timing import Speed
from wyoming_pocket_tts.engine.tuning.tuned import load_tuned_model
from wyoming_pocket_tts.settings import ModelSettings

REMOVED_DTYPES = ("qint8", "quint8", "qint32", "quantize_per_tensor", "quantize_per_channel")
REMOVE_INT8 = f"""
import sys, torch, torch.ao.quantization
for module in ("torch.ao.quantization", "torch.ao.quantization.quantize"):
    delattr(sys.modules[module], "quantize_dynamic")
for name in {REMOVED_DTYPES!r}:
    delattr(torch, name)
"""
"""The simulated removal, as a server's prelude."""
WARNING = "int8 is not available in torch"


@pytest.fixture
def probe_again() -> Iterator[None]:
    """The probe's answer is kept per process: forget it around a test that changes torch."""
    int8_unavailable.cache_clear()
    yield
    int8_unavailable.cache_clear()


@pytest.fixture
def int8_removed(monkeypatch: pytest.MonkeyPatch, probe_again: None) -> None:
    """This process's torch without the int8 API, until the test ends (simulated)."""
    for module in ("torch.ao.quantization", "torch.ao.quantization.quantize"):
        monkeypatch.delattr(sys.modules[module], "quantize_dynamic")
    for name in REMOVED_DTYPES:
        monkeypatch.delattr(torch, name)


def test_this_torch_still_runs_int8(probe_again: None) -> None:
    """The simulation is what differs: here the probe finds int8."""
    assert int8_unavailable() is None


def test_without_int8_every_setting_loads_fp32_with_one_warning(
    int8_removed: None, tiny_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for quantize in (True, None, False):
        settings = ModelSettings(
            runtime="torch", model=None, config=str(tiny_model.config_path), quantize=quantize
        )
        assert [c.quantize for c in tuning.candidates(settings)] == [False] * len(
            tuning.candidates(settings)
        )
        with short_timing(2, rounds=1):
            model, result = load_tuned_model(settings, tmp_path / "data")
        assert result.settings.quantize is False
        assert not any("quantized" in type(m).__module__ for m in model.model.modules())
        assert ("no int8 in this torch" in result.reason) is (quantize is not False)
    timed = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Timing ")]
    assert timed and not any("int8" in line for line in timed)
    warnings = [r for r in caplog.records if WARNING in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING


def test_a_saved_int8_decision_is_measured_again_without_int8(
    int8_removed: None, tiny_model: TinyModel, tmp_path: Path
) -> None:
    """A decision for int8, read where int8 is gone (simulated): measured again, fp32."""
    settings = ModelSettings(
        runtime="torch", model=None, config=str(tiny_model.config_path), quantize=None
    )
    store = decisions.DecisionStore(tmp_path / "tuning")
    choice = Choice(Config(1, True), "injected", 0.5, 0.1)
    store.write(decisions.host_key(settings), choice, {"int8 x1": Speed(0.05, 3.0)})
    with short_timing(2, rounds=1):
        _, result = load_tuned_model(settings, tmp_path)
    assert result.settings.quantize is False and "measured now" in result.reason
    assert store.read(decisions.host_key(settings))["quantize"] is False


def test_the_server_starts_and_serves_fp32_on_a_torch_without_int8(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """`--quantize auto` (the default) on a torch without int8 (simulated): one warning line,
    fp32 compared and chosen, `Ready`, audio."""
    args = model_args(tiny_model, {"a": voices["a"]}, "--data-dir", str(tmp_path / "data"))
    args += ["--quantize", "auto", "--debug"]
    with ServerProcess(args, tmp_path / "server.log", prelude=REMOVE_INT8) as server:
        server.wait_for_log("Speed here")
        assert server.log.count(WARNING) == 1, server.log
        assert "Timing fp32 x1" in server.log and "Timing int8" not in server.log
        assert "(fp32 x" in server.log.split("Speed here")[1].splitlines()[0]
        assert asyncio.run(synthesize(server.port, "Hello there.")).audio
        assert server.stop() == 0
