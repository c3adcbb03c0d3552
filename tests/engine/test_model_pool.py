"""The model pool's load and unload, on real tiny models: which model stays, and that an unloaded
one is really gone (nothing keeps its memory alive).

The fast tests `script/mutate models` pairs with the module; the server-level behaviour (and the
process's memory) is in test_several_languages.py.
"""

from __future__ import annotations

import dataclasses
import gc
import logging
import weakref
from collections.abc import Callable
from typing import Any, cast

import pytest
import torch

from testkit.model_factory import TinyModel
from wyoming_pocket_tts.engine.serving import pool as models_module
from wyoming_pocket_tts.engine.serving.pool import ModelPool, ModelUnavailable
from wyoming_pocket_tts.engine.tuning.course import Course
from wyoming_pocket_tts.settings import EngineSettings, ModelSettings
from wyoming_pocket_tts.voices.catalog import LoadFailures

LOADING_LOGGER = "wyoming_pocket_tts.engine.model.loading"
"""Its "Loaded model" line is logged once per load (reloads after an unload count again)."""


def pool_of(tiny_model: TinyModel, max_models: int, *codes: str) -> ModelPool:
    models = tuple(
        ModelSettings(
            runtime="torch",
            model=None,
            config=str(tiny_model.config_path),
            quantize=False,
            code=code,
        )
        for code in codes
    )
    settings = EngineSettings(models=models, max_models=max_models, loudness=None)
    return ModelPool(settings, LoadFailures())


def test_the_least_recently_used_model_is_unloaded_and_garbage(
    tiny_model: TinyModel, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOADING_LOGGER)

    def loads() -> int:
        return caplog.text.count("Loaded model")

    released: list[str] = []
    real_release = models_module.release_freed_memory

    def release() -> None:
        released.append("unload")
        real_release()

    monkeypatch.setattr(models_module, "release_freed_memory", release)
    pool = pool_of(tiny_model, 2, "en", "fr", "de")
    english = weakref.ref(pool.get("en").model)
    french = weakref.ref(pool.get("fr").model)
    assert pool.get("en").model is english()  # already loaded: no load, and now most recent
    assert pool.loaded() == ["fr", "en"] and loads() == 2
    pool.get("de")
    assert pool.loaded() == ["en", "de"] and loads() == 3
    assert len(released) == 1, "the freed memory is handed back to the system at each unload"
    gc.collect()
    assert french() is None, "the unloaded model is still referenced: its memory never comes back"
    assert english() is not None
    assert pool.peek("fr") is None and pool.peek("en") is not None
    pool.get("fr")
    assert pool.loaded() == ["de", "fr"] and loads() == 4


def test_one_model_slot_holds_one_model(tiny_model: TinyModel) -> None:
    pool = pool_of(tiny_model, 1, "en", "fr")
    pool.get("en")
    pool.get("fr")
    assert pool.loaded() == ["fr"]


def test_a_model_that_fails_to_load_fails_at_once_after(
    tiny_model: TinyModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = pool_of(tiny_model, 2, "en", "fr")
    pool.get("en")
    real: Callable = models_module.load_tuned_model
    calls: list[str] = []

    def broken(settings: ModelSettings, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(settings.code)
        if settings.code == "fr":
            raise OSError("weights missing")
        return real(settings, *args, **kwargs)

    monkeypatch.setattr(models_module, "load_tuned_model", broken)
    for _ in range(2):
        with pytest.raises(ModelUnavailable, match="weights missing"):
            pool.get("fr")
    assert calls == ["fr"], "a failed model is not tried again"
    assert "weights missing" in (pool.failure("fr") or "")
    assert pool.failure("en") is None
    assert pool.loaded() == ["en"]


def test_each_model_runs_with_the_threads_it_was_tuned_for(
    tiny_model: TinyModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = pool_of(tiny_model, 2, "en", "fr")
    english, french = pool.get("en"), pool.get("fr")
    english.tuning = type(english.tuning)(**{**vars(english.tuning), "threads": 3})
    set_to: list[int] = []
    monkeypatch.setattr(models_module, "set_torch_threads", set_to.append)
    pool.get("en")
    pool.get("en")
    pool.get("fr")
    assert set_to == [3, french.tuning.threads]
    assert torch.get_num_threads() >= 1


def test_unloading_a_model_stops_its_graph_export(tiny_model: TinyModel) -> None:
    """An unloaded model's background export (`--runtime onnx|auto`) is stopped, not left to
    run for minutes for a model that is gone. The export is a recording stand-in: a real one is
    a child process exporting for tens of seconds (tests/engine/test_onnx_runtime.py stops real
    ones)."""

    class Export:
        stopped = 0

        def stop(self) -> None:
            Export.stopped += 1

    pool = pool_of(tiny_model, 1, "en", "fr")
    english = pool.get("en")
    exporting = Course.exporting(cast("Any", Export()), english.tuning.course)
    english.tuning = dataclasses.replace(english.tuning, course=exporting)
    pool.get("fr")
    assert pool.loaded() == ["fr"] and Export.stopped == 1
