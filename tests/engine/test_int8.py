"""int8 in Mimi's decoder transformer (`engine.speedups`): close to the unchanged model, chosen
with int8 per host, and left out where torch cannot run it.

The audio is compared on the same random-weight model, sampled at temperature 0 (the model
factory's), so two runs of the same model agree to float rounding and any difference is the
change's.
"""

from __future__ import annotations

import copy
import logging
import threading
from pathlib import Path

import numpy as np
import pytest
from pocket_tts import TTSModel

from testkit.model_factory import TinyModel
from testkit.support import short_timing
from wyoming_pocket_tts.engine.model import int8 as speedups
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.tuning import tuned as tuning
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT
from wyoming_pocket_tts.engine.tuning.tuned import load_tuned_model
from wyoming_pocket_tts.settings import ModelSettings

pytestmark = pytest.mark.usefixtures("one_torch_thread")

FRAMES = 20
TOLERANCE = 1e-3
"""Largest RMS difference from the unchanged model, relative to its RMS level: a ceiling only.
The bound that holds on every host is a reference computed on this one: a quarter of what
pocket-tts's own int8 moves the same audio (int8 rounds each activation to one of 255 steps,
and which step a value lands on depends on the CPU's kernels). Measured: 1.5e-5 to 3.0e-5 on
7 torch kernel paths, 0.02-0.03 of pocket-tts's int8 change (7.5e-4 to 9.7e-4); 5.5e-5 at
`english` shapes, where pocket-tts's int8 moves the audio by 6.1e-3."""


def speak(model: TTSModel, voice: dict | None = None) -> np.ndarray:
    """`FRAMES` frames of `LONG_TEXT` with `voice` (an empty one if None), then stop."""
    stop, pieces, samples = threading.Event(), [], 0
    voice = TorchRuntime(model, False).empty_state() if voice is None else voice
    stream = model.generate_audio_stream(voice, LONG_TEXT, stop=stop)
    for audio in stream:
        pieces.append(audio.numpy().copy())
        samples += audio.shape[-1]
        if samples >= FRAMES * 1920:
            break
    stop.set()
    for _ in stream:
        pass
    return np.concatenate(pieces)[: FRAMES * 1920]


def relative_difference(audio: np.ndarray, reference: np.ndarray) -> float:
    return float(np.sqrt(np.mean((audio - reference) ** 2)) / np.sqrt(np.mean(reference**2)))


@pytest.fixture(scope="module")
def int8(endless_model: TinyModel) -> TTSModel:
    return endless_model.load(quantize=True)


def test_int8_mimi_decoder_stays_within_tolerance_of_the_unchanged_model(
    endless_model: TinyModel, int8: TTSModel
) -> None:
    faster = copy.deepcopy(int8)
    assert speedups.quantize_mimi_decoder(faster) and speedups.is_mimi_decoder_int8(faster)
    assert not speedups.is_mimi_decoder_int8(int8)
    reference = speak(int8)
    assert relative_difference(speak(int8), reference) < 1e-6  # the comparison is exact
    difference = relative_difference(speak(faster), reference)
    assert 0 < difference <= TOLERANCE, difference
    # ...and well inside the change pocket-tts ships as its own int8 (same model, same seed).
    fp32 = endless_model.load()
    assert difference < relative_difference(reference, speak(fp32)) / 4


def test_int8_settings_load_with_the_int8_mimi_decoder(
    endless_model: TinyModel, tmp_path: Path
) -> None:
    for quantize in (True, False):
        settings = ModelSettings(
            model=None, runtime="torch", config=str(endless_model.config_path), quantize=quantize
        )
        with short_timing(3, rounds=1):
            model, result = load_tuned_model(settings, tmp_path)
        assert speedups.is_mimi_decoder_int8(model.model) is quantize
        assert ("Mimi's decoder int8" in result.reason) is quantize


def test_without_an_int8_engine_the_decoder_stays_fp32(
    endless_model: TinyModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Faked: this torch has int8 engines, a build without them cannot be made here."""
    monkeypatch.setattr(speedups, "INT8_ENGINES", ("no-such-engine",))
    caplog.set_level(logging.INFO, logger=speedups.__name__)
    settings = ModelSettings(
        runtime="torch", model=None, config=str(endless_model.config_path), quantize=None
    )
    monkeypatch.setattr(tuning, "usable_cores", lambda: 1)
    with short_timing(3, rounds=1):
        model, result = load_tuned_model(settings, tmp_path)
    assert not speedups.is_mimi_decoder_int8(model.model)
    assert "no int8 engine" in caplog.text
    if result.settings.quantize:  # the speed line says which decoder runs
        assert "Mimi's decoder fp32" in result.reason
