"""Load the model the way it runs fastest on this host, warm it up and time it.

Whether int8 dynamic quantisation helps depends on the CPU: on x86-64 it roughly halves the time to
first audio, on some ARM boards (pocket-tts issue #240, Cortex-A76) it is slower than fp32. So with
`--quantize auto` the first start loads the model, times the same short generation in fp32 and
int8 (interleaved, best of `ROUNDS`), keeps int8 only if its real-time factor is at least
`MARGIN` higher, and saves the decision under `<data dir>/tuning/`, keyed by everything that
could change the answer (`decisions`). Later starts read it and skip the comparison.

Every start ends with a timed generation, before `Ready`: it pays the first-call costs that would
otherwise land on the first request (`timing`), and gives the speed verdict logged after `Ready`
(`advice`). The comparison, when it runs, serves as that warm-up. Once the default
voice is loaded, `warm_up` generates one chunk with it, for the costs tied to a voice prompt.

The same comparison decides the torch intra-op threads (pocket-tts pins 1): each variant is also
timed with as many threads as usable cores (at most `MAX_THREADS`), kept only if `MARGIN` faster.
On the project's shared 2-core host, 2 threads beat 1 in 6 of 8 interleaved pairs (README,
Performance), but part of that is a bigger share of contended cores; 4+ core hosts were not
available, so the choice is measured per host rather than assumed. `--quantize on|off` keeps 1.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..host import release_freed_memory, set_torch_threads, usable_cores
from ..settings import ModelSettings
from .advice import label
from .decisions import MAX_THREADS, DecisionStore, host_key
from .timing import FRAMES, TEXT, Speed, random_state_kept, time_generation

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

ROUNDS = 2
"""Rounds of every variant when comparing; the best run of each counts (noise only slows)."""
MARGIN = 1.10
"""int8 (or more threads) is kept only if its real-time factor beats fp32 (1 thread) by this
factor: else the simpler choice, which is also the exact one."""
_FOLDER = "tuning"


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
        speed = figures[label(quantize, threads)]
        reason = f"auto, measured now: {_figures(figures)}"
        _LOGGER.info(
            "Tuned for this host: %s (%s; a change is kept only if %.0f%% faster)",
            label(quantize, threads),
            _figures(figures),
            (MARGIN - 1) * 100,
        )
        if store is not None:
            store.write(key, quantize, threads, figures)
    else:
        set_torch_threads(threads)
        time_generation(model, 1)  # first-call costs, kept out of the figure
        speed = time_generation(model, frames)
        _LOGGER.debug("Warm-up: %s", speed)
    set_torch_threads(threads)
    release_freed_memory()
    return model, Tuning(replace(settings, quantize=quantize), threads, speed, reason)


def warm_up(model: TTSModel, state: dict) -> None:
    """Generate the first chunk with a real voice state, then stop.

    The timed generations use an empty voice; the first request with a voice prompt's longer
    context still paid about 25 ms more CPU than later ones (measured here at full size, 4
    processes each way), this one-chunk run before `Ready` takes that away (about 7 ms left).
    """
    stop = threading.Event()
    with random_state_kept():
        stream = model.generate_audio_stream(state, TEXT, stop=stop)
        try:
            next(stream, None)
        finally:
            stop.set()
            for _ in stream:
                pass


def _compare(
    model: TTSModel, frames: int, rounds: int
) -> tuple[TTSModel, bool, int, dict[str, Speed]]:
    """Time fp32 `model` and an int8 copy, each with 1 and with more torch threads, interleaved;
    keep the faster model and thread count, free the other model.

    int8 is kept if it beats fp32 at 1 thread by `MARGIN`; then more threads are kept if they
    beat 1 thread by `MARGIN` for the model kept.
    """
    from pocket_tts.quantization import RECOMMENDED_CONFIG, apply_dynamic_int8

    started = time.monotonic()
    int8 = copy.deepcopy(model)
    with _quiet_quantization():
        apply_dynamic_int8(int8.flow_lm, RECOMMENDED_CONFIG)
    variants = {False: model, True: int8}
    counts = sorted({1, min(usable_cores(), MAX_THREADS)})
    times: dict[str, list[Speed]] = {}
    set_torch_threads(1)
    for variant in variants.values():
        time_generation(variant, 1)  # first-call costs, kept out of the comparison
    for _ in range(rounds):
        for threads in counts:
            set_torch_threads(threads)
            for quantized, variant in variants.items():
                speed = time_generation(variant, frames)
                name = label(quantized, threads)
                _LOGGER.debug("Timing %s: %s", name, speed)
                times.setdefault(name, []).append(speed)
    figures = {name: _best(speeds) for name, speeds in times.items()}
    quantize = figures[label(True, 1)].rtf >= figures[label(False, 1)].rtf * MARGIN
    threads = counts[-1]
    if figures[label(quantize, threads)].rtf < figures[label(quantize, 1)].rtf * MARGIN:
        threads = 1
    _LOGGER.debug("Compared %d variants in %.1f s", len(figures), time.monotonic() - started)
    return variants[quantize], quantize, threads, figures


def _figures(figures: dict[str, Speed]) -> str:
    return "; ".join(f"{name}: {speed}" for name, speed in figures.items())


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
