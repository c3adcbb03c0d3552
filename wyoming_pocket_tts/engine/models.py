"""The Pocket-TTS models the engine thread holds: one per language, loaded when first needed.

At most `max_models` stay in memory; loading another unloads the least recently used one (and
its voice states) and hands its memory back to the system. Each model has its own voice-state
LRU and its own saved states (keyed by the model's identity), so two models never share a state.
A model that cannot be loaded is remembered as failed until restart: its requests get an error at
once instead of a new download attempt each.

Used by the engine thread only, except `failure` (read on the loop for `describe`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..settings import EngineSettings, ModelSettings
from ..voices.catalog import LoadFailures
from ..voices.cloning import report_voice_cloning
from ..voices.states import VoiceStates
from ..voices.store import VoiceStateStore, model_identity

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)


class ModelUnavailable(Exception):
    """The model of a language could not be loaded."""


@dataclass
class LoadedModel:
    """A model in memory with the voice states made for it."""

    settings: ModelSettings
    model: TTSModel
    voices: VoiceStates


class ModelPool:
    """Models by language code, least recently used unloaded past `capacity`."""

    def __init__(self, settings: EngineSettings, failures: LoadFailures) -> None:
        self._settings = {model.code: model for model in settings.models}
        self._capacity = settings.max_models
        self._engine = settings
        self._failures = failures
        self._loaded: OrderedDict[str, LoadedModel] = OrderedDict()
        self._failed: dict[str, str] = {}
        self.loads = 0
        """Models loaded so far (reloads after an unload count again), for logs and tests."""

    def loaded(self) -> list[str]:
        """Codes of the models in memory, least recently used first."""
        return list(self._loaded)

    def voice_states(self, code: str) -> VoiceStates | None:
        """The voice-state cache of a loaded model (for its stats), without touching the LRU."""
        loaded = self._loaded.get(code)
        return loaded.voices if loaded is not None else None

    def failure(self, code: str) -> str | None:
        """Why the model of `code` cannot be used, if it failed to load."""
        return self._failed.get(code)

    def get(self, code: str) -> LoadedModel:
        """The model for `code`, loading it (and unloading the stalest) if needed."""
        loaded = self._loaded.get(code)
        if loaded is not None:
            self._loaded.move_to_end(code)
            return loaded
        if code in self._failed:
            raise ModelUnavailable(self._failed[code])
        settings = self._settings[code]
        while len(self._loaded) >= self._capacity:
            self._unload(next(iter(self._loaded)))
        try:
            loaded = self._load(settings)
        except Exception as error:
            self._failed[code] = f"{settings.identity} cannot be loaded: {error}"
            _LOGGER.error("Model for %s: %s", code, self._failed[code])
            raise ModelUnavailable(self._failed[code]) from error
        self._loaded[code] = loaded
        return loaded

    def _load(self, settings: ModelSettings) -> LoadedModel:
        from pocket_tts import TTSModel  # takes seconds (torch)

        started = time.monotonic()
        if settings.config is not None:
            model = TTSModel.load_model(config=settings.config, quantize=settings.quantize)
        else:
            model = TTSModel.load_model(language=settings.language, quantize=settings.quantize)
        self.loads += 1
        _LOGGER.info(
            "Loaded model %s (%s) in %.1f s",
            settings.identity,
            settings.code,
            time.monotonic() - started,
        )
        report_voice_cloning(model, self._failures, settings.code)
        voices = VoiceStates(
            model,
            self._engine.voice_cache_size,
            self._open_store(settings),
            self._engine.loudness,
            settings.code,
        )
        return LoadedModel(settings, model, voices)

    def _open_store(self, settings: ModelSettings) -> VoiceStateStore | None:
        if self._engine.data_dir is None:
            return None
        folder = self._engine.data_dir / "voice-states"
        try:
            return VoiceStateStore(folder, model_identity(settings))
        except OSError as error:
            _LOGGER.warning("Voice states will not be saved (%s): %s", folder, error)
            return None

    def _unload(self, code: str) -> None:
        del self._loaded[code]
        gc.collect()
        _release_free_memory()
        _LOGGER.info("Unloaded the %s model (at most %d stay loaded)", code, self._capacity)


def _release_free_memory() -> None:
    """Give freed heap pages back to the system (glibc keeps them otherwise); no-op elsewhere."""
    name = ctypes.util.find_library("c")
    if name is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(name).malloc_trim(0)
