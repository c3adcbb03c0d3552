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
(`log_speed_verdict`). The comparison, when it runs, serves as that warm-up. Once the default
voice is loaded, `warm_up` generates one chunk with it, for the costs tied to a voice prompt.

The same comparison decides the torch intra-op threads (pocket-tts pins 1): each variant is also
timed with as many threads as usable cores (at most `MAX_THREADS`), kept only if `MARGIN` faster.
On the project's shared 2-core host, 2 threads beat 1 in 6 of 8 interleaved pairs (README,
Performance), but part of that is a bigger share of contended cores; 4+ core hosts were not
available, so the choice is measured per host rather than assumed. `--quantize on|off` keeps 1.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import gc
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
FRAMES = 10
"""Frames (80 ms each) per timed generation: 0.8 s of audio (the comparison times up to 8)."""
ROUNDS = 2
"""Rounds of every variant when comparing; the best run of each counts (noise only slows)."""
MARGIN = 1.10
"""int8 (or more threads) is kept only if its real-time factor beats fp32 (1 thread) by this
factor: else the simpler choice, which is also the exact one."""
MAX_THREADS = 4
"""The most torch intra-op threads tried (never more than the usable cores)."""
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
    threads: int
    """Torch intra-op threads generation uses (pocket-tts sets 1)."""
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
    import torch

    frames = max(frames, 2)  # the real-time factor is measured after the first frame
    store = DecisionStore(data_dir / _FOLDER) if data_dir is not None else None
    quantize, threads = settings.quantize, 1
    key: dict[str, str] | None = None
    reason = f"--quantize {'on' if quantize else 'off'}"
    if quantize is None:
        key = host_key(settings)
        saved = store.read(key) if store is not None else None
        if saved is not None:
            quantize, threads = saved["quantize"], saved["threads"]
            reason = f"auto, saved on {saved['measured']}: {_figures(saved['figures'])}"
    model = _load(settings, bool(quantize))
    if quantize is None:
        assert key is not None
        model, quantize, threads, figures = _compare(model, frames, rounds)
        speed = figures[_label(quantize, threads)]
        reason = f"auto, measured now: {_figures(figures)}"
        _LOGGER.info(
            "Tuned for this host: %s (%s; a change is kept only if %.0f%% faster)",
            _label(quantize, threads),
            _figures(figures),
            (MARGIN - 1) * 100,
        )
        if store is not None:
            store.write(key, quantize, threads, figures)
    else:
        torch.set_num_threads(threads)
        time_generation(model, 1)  # first-call costs, kept out of the figure
        speed = time_generation(model, frames)
        _LOGGER.debug("Warm-up: %s", speed)
    torch.set_num_threads(threads)
    release_freed_memory()
    return model, Tuning(replace(settings, quantize=quantize), threads, speed, reason)


def log_speed_verdict(tuning: Tuning) -> None:
    """One line with this host's speed; a warning with a smaller model when it is too slow."""
    settings = tuning.settings
    _LOGGER.info(
        "Speed here: %s with %s (%s; %s)",
        tuning.speed,
        settings.identity,
        _label(bool(settings.quantize), tuning.threads),
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
    `english_18m_2026-10`, then the 16.6M `english_7m_2026-10`, then the 11.7M
    `english_2m_2026-10` (`_refl` variants to theirs).
    """
    from ..cli import builtin_languages

    known = set(builtin_languages())
    candidates: list[str] = []
    if language.endswith("_24l"):
        candidates.append(language.removesuffix("_24l"))
    elif language.startswith("english_18m"):
        candidates.append(language.replace("_18m", "_7m"))
    elif language.startswith("english_7m"):
        candidates.append(language.replace("_7m", "_2m"))
    elif language.startswith("english") and not language.startswith("english_2m"):
        refl = "_refl" if "refl" in language else ""
        candidates.append(f"english_18m{refl}_2026-10")
    return next((name for name in candidates if name in known), None)


def warm_up(model: TTSModel, state: dict) -> None:
    """Generate the first chunk with a real voice state, then stop.

    The timed generations use an empty voice; the first request with a voice prompt's longer
    context still paid about 25 ms more CPU than later ones (measured here at full size, 4
    processes each way), this one-chunk run before `Ready` takes that away (about 7 ms left).
    """
    stop = threading.Event()
    with _random_state_kept():
        stream = model.generate_audio_stream(state, TEXT, stop=stop)
        try:
            next(stream, None)
        finally:
            stop.set()
            for _ in stream:
                pass


def time_generation(model: TTSModel, frames: int, text: str = TEXT) -> Speed:
    """Generate `frames` frames of `text` with an empty voice, as the engine would, and time it."""
    from pocket_tts.modules.stateful_module import init_states

    state = init_states(model.flow_lm, batch_size=1, sequence_length=0)
    stop = threading.Event()
    first_at: float | None = None
    first_samples = samples = 0
    with _random_state_kept():
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


def _compare(
    model: TTSModel, frames: int, rounds: int
) -> tuple[TTSModel, bool, int, dict[str, Speed]]:
    """Time fp32 `model` and an int8 copy, each with 1 and with more torch threads, interleaved;
    keep the faster model and thread count, free the other model.

    int8 is kept if it beats fp32 at 1 thread by `MARGIN`; then more threads are kept if they
    beat 1 thread by `MARGIN` for the model kept.
    """
    import torch
    from pocket_tts.quantization import RECOMMENDED_CONFIG, apply_dynamic_int8

    started = time.monotonic()
    int8 = copy.deepcopy(model)
    with _quiet_quantization():
        apply_dynamic_int8(int8.flow_lm, RECOMMENDED_CONFIG)
    variants = {False: model, True: int8}
    counts = sorted({1, min(_usable_cores(), MAX_THREADS)})
    times: dict[str, list[Speed]] = {}
    torch.set_num_threads(1)
    for variant in variants.values():
        time_generation(variant, 1)  # first-call costs, kept out of the comparison
    for _ in range(rounds):
        for threads in counts:
            torch.set_num_threads(threads)
            for quantized, variant in variants.items():
                speed = time_generation(variant, frames)
                label = _label(quantized, threads)
                _LOGGER.debug("Timing %s: %s", label, speed)
                times.setdefault(label, []).append(speed)
    figures = {label: _best(speeds) for label, speeds in times.items()}
    quantize = figures[_label(True, 1)].rtf >= figures[_label(False, 1)].rtf * MARGIN
    threads = counts[-1]
    if figures[_label(quantize, threads)].rtf < figures[_label(quantize, 1)].rtf * MARGIN:
        threads = 1
    _LOGGER.debug("Compared %d variants in %.1f s", len(figures), time.monotonic() - started)
    return variants[quantize], quantize, threads, figures


def _label(quantize: bool, threads: int) -> str:
    return f"{'int8' if quantize else 'fp32'} x{threads}"


def _figures(figures: dict[str, Speed]) -> str:
    return "; ".join(f"{label}: {speed}" for label, speed in figures.items())


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


def release_freed_memory() -> None:
    """Give the heap freed by quantisation (the fp32 layers, or the model that lost the
    comparison) back to the system: glibc keeps it otherwise, and RSS stays at the peak."""
    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to do
        pass


@contextmanager
def _random_state_kept() -> Iterator[None]:
    """Put torch's random generator back as it was: a generation cut short samples a number of
    frames that varies from run to run, and must not change what later requests sample."""
    import torch

    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)


@contextmanager
def _quiet_quantization() -> Iterator[None]:
    """Hide torch's deprecation warnings for the torch.ao int8 path pocket-tts uses (a dozen
    lines per start that the user can do nothing about)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated")
        warnings.filterwarnings("ignore", message=r"torch\.quantize_per_tensor")
        yield


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
            record["figures"] = {
                str(label): Speed(float(f["first_audio"]), float(f["rtf"]))
                for label, f in record["figures"].items()
            }
            if not isinstance(record["quantize"], bool) or not isinstance(record["threads"], int):
                raise TypeError("quantize or threads has the wrong type")
            if not 1 <= record["threads"] <= MAX_THREADS:
                raise ValueError(f"threads {record['threads']} out of range")
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            _LOGGER.warning("Ignoring unreadable tuning file %s: %s", path, error)
            return None
        return record

    def write(
        self, key: dict[str, str], quantize: bool, threads: int, figures: dict[str, Speed]
    ) -> None:
        """Save a decision; a failure is logged (the next start measures again), never fatal."""
        record = {
            "key": key,
            "quantize": quantize,
            "threads": threads,
            "figures": {label: asdict(speed) for label, speed in figures.items()},
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
