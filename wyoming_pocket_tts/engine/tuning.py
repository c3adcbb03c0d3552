"""Load the model the way it serves a listener best on this host, warm it up and time it.

Whether int8 dynamic quantisation helps depends on the CPU: on x86-64 it roughly halves the time to
first audio, on some ARM boards (pocket-tts issue #240, Cortex-A76) it is slower than fp32. More
torch intra-op threads (pocket-tts pins 1) may help or may fight pocket-tts's own two generation
threads for the cores. So with `--quantize auto` the first start loads the model and times every
configuration (fp32 and int8, 1 thread and as many as usable cores, at most `MAX_THREADS`; a
`--threads N` fixes the count) on the serving path (`timing`), in `ROUNDS` interleaved rounds,
chooses by `rule` (the lowest first audio among configurations that stay comfortably real time,
a change only beyond the measured noise), and saves the decision under `<data dir>/tuning/`
(`decisions`). Later starts read it and skip the comparison; a decision saved by an older rule
is measured again. `--quantize on|off` runs `--threads` threads (1 for auto) without measuring.
int8 is pocket-tts's int8 for the flow LM plus int8 in Mimi's decoder transformer (`speedups`),
so the comparison measures both together; the speed line says which Mimi decoder runs. Every
loaded model, fp32 or int8, gets the faster equivalents of `equivalents` and Mimi's caches
without the NaN fill (`mimi_cache`), both the same audio.

Every start ends with a timed generation on the serving path, before `Ready`: it pays the
first-call costs that would otherwise land on the first request, and gives the speed verdict
logged after `Ready` (`advice`). The comparison, when it runs, serves as that warm-up. Once the
default voice is loaded, `warm_up` generates one chunk with it, for the costs of a voice prompt.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..host import release_freed_memory, set_torch_threads, usable_cores
from ..settings import ModelSettings
from .decisions import DecisionStore, host_key
from .rule import Config, best, choose
from .speedups import (
    int8_unavailable,
    is_mimi_decoder_int8,
    quantize_mimi_decoder,
    quiet_quantization,
)
from .timing import (
    FRAMES,
    LONG_TEXT,
    SHORT_TEXT,
    Speed,
    random_state_kept,
    serve,
    time_serving,
)

if TYPE_CHECKING:
    from pocket_tts import TTSModel

_LOGGER = logging.getLogger(__name__)

ROUNDS = 2
"""Interleaved rounds of every configuration when comparing (the spread between them is the
noise a change has to beat)."""
MAX_THREADS = 4
"""The most torch intra-op threads `auto` tries (never more than the usable cores)."""
_FOLDER = "tuning"


@dataclass(frozen=True)
class Tuning:
    """How the model was loaded, why, and how fast it runs here."""

    settings: ModelSettings
    """The model settings with `quantize` resolved (True/False): what voice states are keyed by."""
    threads: int
    """Torch intra-op threads generation uses (pocket-tts sets 1)."""
    speed: Speed
    """This start's measurement of the loaded model, on the serving path."""
    reason: str
    """Where the choice comes from, for the log."""


def candidates(settings: ModelSettings) -> list[Config]:
    """The configurations `settings` leaves open, simplest first (one: nothing to measure).
    int8 is left out where this torch cannot run it (`speedups.int8_unavailable`)."""
    quantize = (False, True) if settings.quantize is None else (settings.quantize,)
    if True in quantize and int8_unavailable() is not None:
        quantize = (False,)
    if settings.threads is not None:
        threads: Sequence[int] = (settings.threads,)
    elif settings.quantize is None:
        threads = sorted({1, min(usable_cores(), MAX_THREADS)})
    else:
        threads = (1,)
    return sorted(Config(count, q) for count in threads for q in quantize)


def load_tuned_model(
    settings: ModelSettings,
    data_dir: Path | None,
    *,
    frames: int = FRAMES,
    rounds: int = ROUNDS,
) -> tuple[TTSModel, Tuning]:
    """Load the model (quantised or not, on how many threads, as the settings say or this host's
    speed decides), warmed up and timed. Runs on the engine thread; takes a few seconds more
    than a plain load when `auto` has to compare, a fraction of a second otherwise."""
    configs = candidates(settings)
    chosen: Config | None = configs[0] if len(configs) == 1 else None
    reason = _flags(settings)
    store = DecisionStore(data_dir / _FOLDER) if data_dir is not None else None
    key = host_key(settings) if chosen is None else {}
    if chosen is None and store is not None:
        saved = store.read(key)
        if saved is not None and not (saved["quantize"] and int8_unavailable()):
            chosen = Config(saved["threads"], saved["quantize"])
            reason = f"auto, saved on {saved['measured']}: {_figures(saved['figures'])}"
    if chosen is None:
        model = _load(settings, False)
        model, chosen, figures = _compare(model, configs, frames, rounds)
        speed = figures[chosen.label]
        reason = f"auto, measured now: {_figures(figures)}"
        if store is not None:
            store.write(key, chosen.quantize, chosen.threads, figures)
    else:
        model = _load(settings, chosen.quantize)
        set_torch_threads(chosen.threads)
        serve(model, SHORT_TEXT, 1)  # first-call costs, kept out of the figure
        speed = time_serving(model, frames)
        _LOGGER.debug("Warm-up: %s", speed)
    set_torch_threads(chosen.threads)
    release_freed_memory()
    if settings.quantize is not False and int8_unavailable() is not None:
        reason += "; no int8 in this torch"
    if chosen.quantize:  # int8 covers Mimi's decoder transformer too, where torch can (`speedups`)
        reason += f"; Mimi's decoder {'int8' if is_mimi_decoder_int8(model) else 'fp32'}"
    resolved = replace(settings, quantize=chosen.quantize)
    return model, Tuning(resolved, chosen.threads, speed, reason)


def warm_up(model: TTSModel, state: dict) -> None:
    """Generate the first chunk with a real voice state, then stop.

    The timed generations use an empty voice; the first request with a voice prompt's longer
    context still paid about 25 ms more CPU than later ones (measured here at full size, 4
    processes each way), this one-chunk run before `Ready` takes that away (about 7 ms left).
    """
    stop = threading.Event()
    with random_state_kept():
        stream = model.generate_audio_stream(state, LONG_TEXT, stop=stop)
        try:
            next(stream, None)
        finally:
            stop.set()
            for _ in stream:
                pass


def _compare(
    model: TTSModel, configs: list[Config], frames: int, rounds: int
) -> tuple[TTSModel, Config, dict[str, Speed]]:
    """Time every configuration on the serving path in interleaved rounds (each round in the
    other order, so that drift hits all alike), choose by `rule`, free the model not chosen.
    Returns the model, the choice and each configuration's figures (best of its rounds)."""
    started, cpu = time.monotonic(), time.process_time()
    variants = {False: model}  # only `auto` compares
    if any(config.quantize for config in configs):
        variants[True] = _int8_copy(model)
    set_torch_threads(1)
    for variant in variants.values():
        serve(variant, SHORT_TEXT, 1)  # first-call costs, kept out of the comparison
    times: dict[Config, list[Speed]] = {config: [] for config in configs}
    for number in range(max(rounds, 1)):
        for config in configs if number % 2 == 0 else reversed(configs):
            set_torch_threads(config.threads)
            speed = time_serving(variants[config.quantize], frames)
            _LOGGER.debug("Timing %s: %s", config.label, speed)
            times[config].append(speed)
    choice = choose(times)
    figures = {config.label: best(speeds) for config, speeds in times.items()}
    _LOGGER.info(
        "Tuned for this host: %s (%s; %s; compared in %.1f s, %.1f s CPU)",
        choice.config.label,
        _figures(figures),
        choice.why,
        time.monotonic() - started,
        time.process_time() - cpu,
    )
    return variants[choice.config.quantize], choice.config, figures


def _int8_copy(model: TTSModel) -> TTSModel:
    from pocket_tts.quantization import RECOMMENDED_CONFIG, apply_dynamic_int8

    int8 = copy.deepcopy(model)
    with quiet_quantization():
        apply_dynamic_int8(int8.flow_lm, RECOMMENDED_CONFIG)
        quantize_mimi_decoder(int8)
    return int8


def _flags(settings: ModelSettings) -> str:
    quantize = {None: "auto", True: "on", False: "off"}[settings.quantize]
    return f"--quantize {quantize}, --threads {settings.threads or 'auto'}"


def _figures(figures: dict[str, Speed]) -> str:
    return "; ".join(f"{name}: {speed}" for name, speed in figures.items())


def _load(settings: ModelSettings, quantize: bool) -> TTSModel:
    from pocket_tts import TTSModel  # takes seconds (torch)

    started = time.monotonic()
    with quiet_quantization():
        if settings.config is not None:
            model = TTSModel.load_model(config=settings.config, quantize=quantize)
        else:
            model = TTSModel.load_model(language=settings.model, quantize=quantize)
        if quantize:
            quantize_mimi_decoder(model)
    from .equivalents import use_equivalents  # imports torch
    from .mimi_cache import skip_mimi_cache_fill

    given = use_equivalents(model)
    if skip_mimi_cache_fill(model):
        given.append("Mimi's caches unfilled")
    _LOGGER.info(
        "Loaded model %s in %.1f s (%s)",
        settings.label,
        time.monotonic() - started,
        ", ".join(given) or "no faster equivalents",
    )
    return model
