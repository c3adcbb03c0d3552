"""Load the model the way it runs fastest on this host, warm it up and time it.

Whether int8 dynamic quantisation helps depends on the CPU: on x86-64 it roughly halves the time to
first audio, on some ARM boards (pocket-tts issue #240, Cortex-A76) it is slower than fp32. So with
`--quantize auto` the first start loads the model, times the same short generation in fp32 and
int8 (interleaved, best of `ROUNDS`), keeps int8 only if its real-time factor is at least
`MARGIN` higher, and saves the decision under `<data dir>/tuning/`, keyed by everything that
could change the answer (CPU model, usable cores, torch and pocket-tts versions, the model's
identity). Later starts read it and skip the comparison.

Every start ends with a timed generation, before `Ready`: it pays the first-call costs that would
otherwise land on the first request, and gives the speed verdict logged after `Ready`
(`log_speed_verdict`). The comparison, when it runs, serves as that warm-up.

Torch intra-op threads are left at pocket-tts's 1: generation already runs on two threads of its
own (the transformer and the Mimi decoder), and on this project's 2-core test host a second
intra-op thread did not make generation faster (README, Performance); 4+ core hosts were not
available to measure, so no thread count is guessed for them.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import logging
import os
import platform
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..settings import ModelSettings
from ..voices.store import model_identity

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

TEXT = "The living room lights are on, and the front door is locked for the night."
"""What the timed generations say (long enough never to end before `FRAMES`)."""
FRAMES = 15
"""Frames (80 ms each) per timed generation: 1.2 s of audio."""
ROUNDS = 2
"""fp32/int8 pairs timed when comparing; the best of each side counts (noise only slows)."""
MARGIN = 1.10
"""int8 is kept only if its real-time factor beats fp32's by this factor: else fp32 (exact)."""
SLOW_RTF = 1.3
"""Below this real-time factor a reply is likely to stutter: the verdict warns."""
_SAMPLES_PER_FRAME = 1920
_FOLDER = "tuning"


@dataclass(frozen=True)
class Speed:
    """One timed generation."""

    first_audio: float
    """Seconds from the call to the first audio chunk."""
    rtf: float
    """Real-time factor after the first chunk: seconds of audio per second of generation."""

    def __str__(self) -> str:
        return f"first audio {self.first_audio * 1000:.0f} ms, RTF {self.rtf:.2f}x"


@dataclass(frozen=True)
class Tuning:
    """How the model was loaded, why, and how fast it runs here."""

    settings: ModelSettings
    """The model settings with `quantize` resolved (True/False): what voice states are keyed by."""
    speed: Speed
    """This start's measurement of the loaded model."""
    reason: str
    """Where the quantisation choice comes from, for the log."""


def host_key(settings: ModelSettings) -> dict[str, str]:
    """Everything a saved auto decision depends on; a change in any of it measures again."""
    return {
        "cpu": _cpu_model(),
        "cores": str(_usable_cores()),
        "machine": platform.machine(),
        "torch": version("torch"),
        "pocket-tts": version("pocket-tts"),
        "torchao": str(importlib.util.find_spec("torchao") is not None),
        "model": model_identity(replace(settings, quantize=False)),
    }


def load_tuned_model(
    settings: ModelSettings,
    data_dir: Path | None,
    *,
    frames: int = FRAMES,
    rounds: int = ROUNDS,
) -> tuple[TTSModel, Tuning]:
    """Load the model (quantised or not as `settings.quantize` says or this host's speed
    decides), warmed up and timed. Runs on the engine thread; takes a few seconds more than a
    plain load when `auto` has to compare, a fraction of a second otherwise."""
    frames = max(frames, 2)  # the real-time factor is measured after the first frame
    store = DecisionStore(data_dir / _FOLDER) if data_dir is not None else None
    quantize = settings.quantize
    key: dict[str, str] | None = None
    reason = f"--quantize {'on' if quantize else 'off'}"
    if quantize is None:
        key = host_key(settings)
        saved = store.read(key) if store is not None else None
        if saved is not None:
            quantize = saved["quantize"]
            reason = (
                f"auto, saved on {saved['measured']}: fp32 {_speed(saved['fp32'])}, "
                f"int8 {_speed(saved['int8'])}"
            )
    model = _load(settings, bool(quantize))
    if quantize is None:
        assert key is not None
        model, quantize, fp32, int8 = _compare(model, frames, rounds)
        speed = int8 if quantize else fp32
        reason = f"auto, measured now: fp32 {fp32}, int8 {int8}"
        _LOGGER.info(
            "Quantisation on this host: %s (fp32 %s; int8 %s; int8 is kept only if %.0f%% faster)",
            "int8" if quantize else "fp32",
            fp32,
            int8,
            (MARGIN - 1) * 100,
        )
        if store is not None:
            store.write(key, quantize, fp32, int8)
    else:
        time_generation(model, 1)  # first-call costs, kept out of the figure
        speed = time_generation(model, frames)
        _LOGGER.debug("Warm-up: %s", speed)
    return model, Tuning(replace(settings, quantize=quantize), speed, reason)


def log_speed_verdict(tuning: Tuning) -> None:
    """One line with this host's speed; a warning with a smaller model when it is too slow."""
    settings = tuning.settings
    _LOGGER.info(
        "Speed here: %s with %s (%s; %s)",
        tuning.speed,
        settings.identity,
        "int8" if settings.quantize else "fp32",
        tuning.reason,
    )
    if tuning.speed.rtf >= SLOW_RTF:
        return
    _LOGGER.warning(
        "This host generates %.2f s of audio per second with %s, below %.1fx: long replies may "
        "stutter. %s",
        tuning.speed.rtf,
        settings.identity,
        SLOW_RTF,
        suggestion(settings),
    )


def suggestion(settings: ModelSettings) -> str:
    """A concrete step towards real time: a smaller built-in model, else int8, else hardware."""
    smaller = smaller_model(settings.language) if settings.language else None
    if smaller is not None:
        return f"Try the smaller model {smaller!r} (--language {smaller}, add-on option language)."
    if not settings.quantize:
        return "Try --quantize on (add-on option quantize: on)."
    return "No smaller model of this family: a faster CPU is needed for real time."


def smaller_model(language: str) -> str | None:
    """The next smaller pocket-tts built-in model of the same language, if there is one.

    24-layer models step down to their 6-layer sibling; the ~100M English models to the 27.9M
    `english_18m_2026-10`, which steps down to the 16.6M `english_7m_2026-10` (the 11.7M 2m
    model is not faster: it is bound by per-frame overheads, not arithmetic).
    """
    from ..cli import builtin_languages

    known = set(builtin_languages())
    candidates: list[str] = []
    if language.endswith("_24l"):
        candidates.append(language.removesuffix("_24l"))
    elif language.startswith("english_18m"):
        candidates.append(language.replace("_18m", "_7m"))
    elif language.startswith("english") and not language.startswith(("english_7m", "english_2m")):
        refl = "_refl" if "refl" in language else ""
        candidates.append(f"english_18m{refl}_2026-10")
    return next((name for name in candidates if name in known), None)


def time_generation(model: TTSModel, frames: int, text: str = TEXT) -> Speed:
    """Generate `frames` frames of `text` with an empty voice, as the engine would, and time it."""
    from pocket_tts.modules.stateful_module import init_states

    state = init_states(model.flow_lm, batch_size=1, sequence_length=0)
    stop = threading.Event()
    first_at: float | None = None
    first_samples = samples = 0
    started = time.perf_counter()
    stream = model.generate_audio_stream(state, text, stop=stop, copy_state=False)
    try:
        for audio in stream:
            if first_at is None:
                first_at = time.perf_counter()
                first_samples = audio.shape[-1]
            samples += audio.shape[-1]
            if samples >= frames * _SAMPLES_PER_FRAME:
                break
        ended = time.perf_counter()
    finally:
        stop.set()
        for _ in stream:  # let pocket-tts's two threads finish before anything else runs
            pass
    if first_at is None:
        raise RuntimeError("the model generated no audio")
    steady = (samples - first_samples) / model.sample_rate
    rtf = steady / (ended - first_at) if samples > first_samples else float("nan")
    return Speed(first_at - started, rtf)


def _compare(model: TTSModel, frames: int, rounds: int) -> tuple[TTSModel, bool, Speed, Speed]:
    """Time fp32 `model` against an int8 copy, interleaved; keep the faster, free the other."""
    from pocket_tts.quantization import RECOMMENDED_CONFIG, apply_dynamic_int8

    started = time.monotonic()
    int8 = copy.deepcopy(model)
    with _quiet_quantization():
        apply_dynamic_int8(int8.flow_lm, RECOMMENDED_CONFIG)
    times: dict[bool, list[Speed]] = {False: [], True: []}
    for variant in (model, int8):
        time_generation(variant, 1)  # first-call costs, kept out of the comparison
    for _ in range(rounds):
        for quantized, variant in ((False, model), (True, int8)):
            speed = time_generation(variant, frames)
            _LOGGER.debug("Timing %s: %s", "int8" if quantized else "fp32", speed)
            times[quantized].append(speed)
    fp32, q8 = (_best(times[False]), _best(times[True]))
    keep_int8 = q8.rtf >= fp32.rtf * MARGIN
    _LOGGER.debug("Compared fp32 and int8 in %.1f s", time.monotonic() - started)
    return (int8 if keep_int8 else model), keep_int8, fp32, q8


def _best(speeds: list[Speed]) -> Speed:
    """The least disturbed run of each figure: noise on a shared host only ever slows."""
    return Speed(min(s.first_audio for s in speeds), max(s.rtf for s in speeds))


def _load(settings: ModelSettings, quantize: bool) -> TTSModel:
    from pocket_tts import TTSModel  # takes seconds (torch)

    started = time.monotonic()
    with _quiet_quantization():
        if settings.config is not None:
            model = TTSModel.load_model(config=settings.config, quantize=quantize)
        else:
            model = TTSModel.load_model(language=settings.language, quantize=quantize)
    _LOGGER.info("Loaded model %s in %.1f s", settings.identity, time.monotonic() - started)
    return model


@contextmanager
def _quiet_quantization() -> Iterator[None]:
    """Hide torch's deprecation warnings for the torch.ao int8 path pocket-tts uses (a dozen
    lines per start that the user can do nothing about)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated")
        warnings.filterwarnings("ignore", message=r"torch\.quantize_per_tensor")
        yield


def _speed(record: dict[str, float]) -> Speed:
    return Speed(record["first_audio"], record["rtf"])


def _cpu_model() -> str:
    """The CPU's name: x86 `model name`, else the board and core type ARM kernels report."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                name, _, value = line.partition(":")
                fields.setdefault(name.strip(), value.strip())
    except OSError:
        pass
    if "model name" in fields:
        return fields["model name"]
    arm = [
        fields[name]
        for name in ("Model", "Hardware", "CPU implementer", "CPU part")
        if name in fields
    ]
    return " ".join(arm) or platform.processor() or platform.machine()


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class DecisionStore:
    """Saved auto decisions, one small JSON file per host key; written atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_for(self, key: dict[str, str]) -> Path:
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        return self.folder / f"{digest[:32]}.json"

    def read(self, key: dict[str, str]) -> dict[str, Any] | None:
        """The saved decision for `key`, or None (absent, unreadable or for another key)."""
        path = self.path_for(key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if record["key"] != key:
                return None
            _speed(record["fp32"]), _speed(record["int8"])
            if not isinstance(record["quantize"], bool):
                raise TypeError("quantize is not a bool")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as error:
            _LOGGER.warning("Ignoring unreadable tuning file %s: %s", path, error)
            return None
        return record

    def write(self, key: dict[str, str], quantize: bool, fp32: Speed, int8: Speed) -> None:
        """Save a decision; a failure is logged (the next start measures again), never fatal."""
        record = {
            "key": key,
            "quantize": quantize,
            "fp32": asdict(fp32),
            "int8": asdict(int8),
            "measured": time.strftime("%Y-%m-%d"),
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    json.dump(record, file, indent=2)
                os.replace(temporary, self.path_for(key))
            finally:
                Path(temporary).unlink(missing_ok=True)
        except OSError as error:
            _LOGGER.warning("Cannot save the tuning decision in %s: %s", self.folder, error)
