"""The Pocket-TTS models the engine thread holds: one per language, loaded when first needed.

At most `max_models` stay in memory; loading another unloads the least recently used one (and
its voice states) and hands its memory back to the system; the engine also unloads, when idle,
each model unused for `unload_after` (`unload_unused`). Each model has its own voice-state LRU
and its own saved states (keyed by the model's identity), so two models never share a state.
A model that cannot be loaded is remembered as failed until restart: its requests get an error at
once instead of a new download attempt each. A download that found no network (`offline`) is not
remembered: the next request for that language tries again.

Used by the engine thread only, except `failure`, `peek` and `loaded`, read on the loop
(`describe`, the speed line, the studio's status), and `stop_exports` at shutdown: each is one
dict lookup or copy, atomic under the GIL.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...host import release_freed_memory, set_torch_threads
from ...offline import is_missing_network
from ...settings import EngineSettings, ModelSettings
from ...voices.catalog import LoadFailures
from ...voices.cloning import report_voice_cloning
from ..identity import model_identity
from ..tuning.course import Phase
from ..tuning.tuned import Tuning, load_tuned_model
from ..voice_states.cache import VoiceStates
from ..voice_states.making import VoiceMaking
from ..voice_states.store import VoiceStateStore

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)


class ModelUnavailable(Exception):
    """The model of a language could not be loaded."""


@dataclass
class LoadedModel:
    """A model in memory with the voice states made for it."""

    settings: ModelSettings
    model: Runtime
    voices: VoiceStates
    tuning: Tuning
    """How it was loaded (quantised or not, torch threads) and how fast it runs here."""


class ModelPool:
    """Models by language code, least recently used unloaded past `capacity`."""

    def __init__(
        self, settings: EngineSettings, failures: LoadFailures, making: VoiceMaking | None = None
    ) -> None:
        self._settings = {model.code: model for model in settings.models}
        self._capacity = settings.max_models
        self._engine = settings
        self._failures = failures
        self._making = making or VoiceMaking()
        """Makes new voices' states for every model on the graphs alone, one child at a time."""
        self._loaded: OrderedDict[str, LoadedModel] = OrderedDict()
        self._failed: dict[str, str] = {}
        self._threads = 0
        """Torch threads set for the model used last."""
        self._used: dict[str, float] = {}
        """When each loaded model was last handed out (monotonic seconds)."""

    def loaded(self) -> list[str]:
        """Codes of the models in memory, least recently used first."""
        return list(self._loaded)

    def peek(self, code: str) -> LoadedModel | None:
        """A loaded model (to read its stats), without loading it or touching the LRU."""
        return self._loaded.get(code)

    def failure(self, code: str) -> str | None:
        """Why the model of `code` cannot be used, if it failed to load."""
        return self._failed.get(code)

    def get(self, code: str) -> LoadedModel:
        """The model for `code`, loading it (and unloading the stalest) if needed."""
        self._used[code] = time.monotonic()
        loaded = self._loaded.get(code)
        if loaded is not None:
            self._loaded.move_to_end(code)
            if loaded.tuning.threads != self._threads:  # each model runs as it was tuned
                set_torch_threads(loaded.tuning.threads)
                self._threads = loaded.tuning.threads
            return loaded
        if code in self._failed:
            raise ModelUnavailable(self._failed[code])
        settings = self._settings[code]
        while len(self._loaded) >= self._capacity:
            self._unload(next(iter(self._loaded)), f"at most {self._capacity} stay loaded")
        try:
            loaded = self._load(settings)
        except Exception as error:
            reason = f"{settings.label} cannot be loaded: {error}"
            if is_missing_network(error):
                raise ModelUnavailable(reason) from error  # tried again at the next request
            self._failed[code] = reason
            _LOGGER.error("Model for %s: %s", code, reason)
            raise ModelUnavailable(reason) from error
        self._loaded[code] = loaded
        self._used[code] = time.monotonic()  # its load was no idleness
        return loaded

    def used_now(self) -> None:
        """Count every loaded model as used now (the start's warm-up ended: an idle model's
        time counts from `Ready`, not from its load)."""
        now = time.monotonic()
        self._used |= dict.fromkeys(self._loaded, now)

    def unload_unused(self, seconds: float) -> None:
        """Unload every model not handed out for `seconds` (an export in progress keeps its
        model: it would start over)."""
        now = time.monotonic()
        for code, loaded in list(self._loaded.items()):
            unused = now - self._used.get(code, now)
            if unused >= seconds and loaded.tuning.course.phase is not Phase.EXPORTING:
                self._unload(code, f"unused for {unused / 60:.1f} min (--unload-after)")

    def in_phase(self, *phases: Phase) -> list[LoadedModel]:
        """Loaded models whose course (`tuning.course`) is in one of `phases`."""
        return [m for m in self._loaded.values() if m.tuning.course.phase in phases]

    def stop_exports(self) -> None:
        """Stop every export's child process (at shutdown, from another thread: one copy of
        the list, atomic under the GIL)."""
        for loaded in list(self._loaded.values()):
            loaded.tuning.course.stop()

    def retune(self, loaded: LoadedModel, model: Runtime, tuning: Tuning) -> None:
        """Serve `loaded` from now on as a re-measurement or a finished export decided: its
        voice states start over if the quantisation or the runtime changed (they are keyed by
        the one, laid out for the other); torch threads are set at next use."""
        before = loaded.tuning.settings
        if (tuning.settings.quantize, tuning.settings.runtime) != (before.quantize, before.runtime):
            loaded.voices = self._voice_states(model, tuning)
        loaded.model, loaded.tuning = model, tuning
        self._threads = 0
        release_freed_memory()

    def _load(self, settings: ModelSettings) -> LoadedModel:
        model, tuning = load_tuned_model(settings, self._engine.data_dir)
        report_voice_cloning(model.can_clone, self._failures, settings.code)
        self._threads = tuning.threads
        return LoadedModel(settings, model, self._voice_states(model, tuning), tuning)

    def _voice_states(self, model: Runtime, tuning: Tuning) -> VoiceStates:
        return VoiceStates(
            model,
            self._engine.voice_cache_size,
            self._open_store(tuning.settings),  # keyed by the quantisation actually used
            self._engine.loudness,
            tuning.settings.code,
            self._making,
        )

    def _open_store(self, settings: ModelSettings) -> VoiceStateStore | None:
        if self._engine.data_dir is None:
            return None
        folder = self._engine.data_dir / "voice-states"
        try:
            return VoiceStateStore(folder, model_identity(settings))
        except OSError as error:
            _LOGGER.warning("Voice states will not be saved (%s): %s", folder, error)
            return None

    def _unload(self, code: str, why: str) -> None:
        self._loaded.pop(code).tuning.course.stop()
        release_freed_memory()
        _LOGGER.info("Unloaded the %s model (%s)", code, why)
