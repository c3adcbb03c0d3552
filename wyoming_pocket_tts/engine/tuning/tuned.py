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
int8 is pocket-tts's int8 for the flow LM plus int8 in Mimi's decoder transformer (`model.int8`),
so the comparison measures both together; the speed line says which Mimi decoder runs. Every
loaded model, fp32 or int8, gets the faster equivalents of `equivalents` and Mimi's caches
without the NaN fill (`model.mimi_cache`), both the same audio.

Where torch is not installed (no `[torch]` extra), none of that runs: `auto` and `onnx` serve the
graphs, built first where none are cached (`_without_torch`, `onnx.first_build`). With torch,
`--runtime onnx` runs ONNX Runtime graphs instead (`onnx.cache`), and `--runtime auto` chooses
between them and torch by the same rule: a start without its saved decision serves on torch
while the graphs are exported or loaded in the background (`onnx.background`), and the engine
times both when idle (the model's `course`, moved along by `idle`).

Every start ends with a timed generation on the serving path, before `Ready`: it pays the
first-call costs that would otherwise land on the first request, and gives the speed verdict
logged after `Ready` (`tuning.verdict`). The comparison, when it runs, serves as that warm-up.
Once the default voice is loaded, `warm_up` generates one chunk with it, for the costs of a voice
prompt.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...host import release_freed_memory, set_torch_threads, usable_cores
from ...settings import ModelSettings
from ..chunking import chunks
from ..model.int8 import (
    int8_copy,
    int8_unavailable,
    is_mimi_decoder_int8,
)
from ..model.loading import load_model
from ..model.runtime import TorchRuntime
from ..onnx.background import BackgroundExport
from ..onnx.cache import graph_folder, graphs_label, lean_model, needs_export, warn_torch
from ..onnx.first_build import GraphsUnavailable, graphs_now
from ..runtime import RuntimeKind, generation
from . import timing
from .comparison import Remeasurement, compare, figures_text
from .course import Course
from .decisions import DecisionStore, host_key
from .rule import Choice, Config, Variant
from .timing import (
    LONG_TEXT,
    SHORT_TEXT,
    Abandoned,
    Speed,
    random_state_kept,
    serve,
    time_serving,
)

if TYPE_CHECKING:
    from pocket_tts import TTSModel

    from ..runtime import Runtime

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
    confidence: str = "set by the flags"
    """How sure the choice is (`rule.Choice.confidence`), or that the flags made it."""
    course: Course = field(default=Course(), compare=False)
    """Where it is in the course of how it runs (`course`): settled, or with idle work left."""
    int8_refused: str | None = None
    """Why int8 graphs were asked and fp32 ones serve (`onnx.int8_gate`), else None."""

    @property
    def provisional(self) -> bool:
        """The decision may change when measured again (provisional, or compared with torch)."""
        return self.course.measure is not None


def candidates(settings: ModelSettings) -> list[Config]:
    """The configurations `settings` leaves open, simplest first (one: nothing to measure).
    int8 is left out where this torch cannot run it (`model.int8.int8_unavailable`)."""
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


def load_tuned_model(settings: ModelSettings, data_dir: Path | None) -> tuple[Runtime, Tuning]:
    """Load the model (quantised or not, on how many threads, as the settings say or this host's
    speed decides), warmed up and timed over `timing.FRAMES` frames. Runs on the engine thread;
    takes a few seconds more than a plain load when `auto` has to compare, a fraction of a
    second otherwise."""
    if not RuntimeKind.TORCH.installed:
        return _without_torch(settings, data_dir)
    if settings.runtime is None:
        return _load_auto(settings, data_dir)
    export: BackgroundExport | None = None
    if settings.runtime is RuntimeKind.ONNX:
        int8, threads = settings.quantize is True, settings.threads or 1
        if needs_export(settings, data_dir, int8):
            export = BackgroundExport(settings, data_dir, int8, threads)
        else:
            onnx = _load_onnx(settings, data_dir)
            if onnx is not None:
                return onnx
        settings = replace(settings, runtime=RuntimeKind.TORCH)
    model, tuning = _load_torch(settings, data_dir)
    if export is not None:  # after the torch model's timing, which it would disturb
        export.start()
        tuning = replace(tuning, course=Course.exporting(export, tuning.course))
    return model, tuning


def _without_torch(settings: ModelSettings, data_dir: Path | None) -> tuple[Runtime, Tuning]:
    """No torch installed (`--runtime auto` or `onnx`; `torch` is refused by the CLI): the
    graphs, built first where none are cached (`onnx.first_build`), int8 unless `--quantize
    off` (nothing to measure it against; `int8_gate` refuses it where it drifts), timed as
    `--runtime onnx` times them. `GraphsUnavailable` says why they cannot serve."""
    int8, threads = settings.quantize is not False, settings.threads or 1
    settings = replace(settings, runtime=RuntimeKind.ONNX)
    started = time.monotonic()
    model = graphs_now(settings, data_dir, int8, threads)
    _LOGGER.info(
        "Loaded model %s in %.1f s (%s; torch is not installed)",
        settings.label, time.monotonic() - started, graphs_label(model.int8),
    )  # fmt: skip
    served = on_graphs(model, settings, graphs_label(model.int8), model.int8, threads)
    if served is None:
        raise GraphsUnavailable("the graphs do not run here (the warning above says why)")
    return served


def _load_auto(settings: ModelSettings, data_dir: Path | None) -> tuple[Runtime, Tuning]:
    """`--runtime auto`: the runtime a settled saved decision names; else torch as `--runtime
    torch` decides, with the graphs exported (or loaded) in the background and compared with
    it when the engine is idle (`idle`): an export takes far longer than a start may.
    The graphs run at the precision torch serves at (`--quantize`, or what `auto` measured:
    ONNX Runtime's int8 holds torch int8's drift, tests/engine/test_int8_graphs.py), on 1
    thread unless `--threads`."""
    store = DecisionStore(data_dir / _FOLDER) if data_dir is not None else None
    key = host_key(settings, onnx=True)
    saved = store.read(key) if store is not None else None
    chosen = None
    if saved is not None and not saved["provisional"]:
        chosen = Config.saved(saved)
        if chosen.runtime is RuntimeKind.ONNX and needs_export(settings, data_dir, chosen.quantize):
            chosen = None  # its graphs are gone: minutes to export them again
    if saved is not None and chosen is not None:
        fixed = replace(settings, quantize=chosen.quantize, threads=chosen.threads)
        reason = f"--runtime auto, saved on {saved['measured']}: {figures_text(saved['figures'])}"
        fixed = replace(fixed, runtime=chosen.runtime)
        loaded = (
            _load_onnx(fixed, data_dir)
            if chosen.runtime is RuntimeKind.ONNX
            else _load_torch(fixed, data_dir)
        )
        if loaded is not None:
            model, tuning = loaded
            return model, replace(tuning, reason=reason, confidence=_saved_confidence(saved))
    model, tuning = _load_torch(replace(settings, runtime=RuntimeKind.TORCH), data_dir)
    serving = Config(tuning.threads, bool(tuning.settings.quantize))
    graphs = Config(settings.threads or 1, serving.quantize, RuntimeKind.ONNX)
    export = BackgroundExport(
        replace(settings, runtime=RuntimeKind.ONNX), data_dir, graphs.quantize, graphs.threads
    )
    export.start()  # after the torch model's timing, which it would disturb
    variants: dict[Variant, Runtime] = {serving.variant: model}
    runtimes = Remeasurement(variants, [serving, graphs], timing.FRAMES, ROUNDS, store, key)
    return model, replace(tuning, course=Course.exporting(export, tuning.course, runtimes))


def _load_torch(settings: ModelSettings, data_dir: Path | None) -> tuple[Runtime, Tuning]:
    configs = candidates(settings)
    chosen: Config | None = configs[0] if len(configs) == 1 else None
    reason, confidence = _flags(settings), Tuning.confidence
    store = DecisionStore(data_dir / _FOLDER) if data_dir is not None else None
    key = host_key(settings) if chosen is None else {}
    course = Course()
    speed: Speed | None = None
    saved = store.read(key) if chosen is None and store is not None else None
    if saved is not None and saved["quantize"] and int8_unavailable():
        saved = None
    if saved is not None:
        chosen = Config(saved["threads"], saved["quantize"])
        reason = f"auto, saved on {saved['measured']}: {figures_text(saved['figures'])}"
        confidence = _saved_confidence(saved)
    if chosen is None or (saved is not None and saved["provisional"]):
        variants = _variants(load_model(settings, False), configs)
        if chosen is None:
            comparison = compare(variants, configs, timing.FRAMES, ROUNDS)
            choice = comparison.choice
            _LOGGER.info("Tuned for this host: %s (%s)", choice.config.label, comparison.summary())
            chosen, confidence = choice.config, choice.confidence
            speed = comparison.figures[chosen.label]  # the comparison was the warm-up
            reason = f"auto, measured now: {figures_text(comparison.figures)}"
            if store is not None:
                store.write(key, choice, comparison.figures)
            provisional = choice.provisional
        else:
            provisional = True
        model = variants[chosen.variant]
        if provisional:  # both variants stay loaded until a comparison settles it
            kept: dict[Variant, Runtime] = {**variants}
            measure = Remeasurement(kept, configs, timing.FRAMES, ROUNDS, store, key)
            course = Course.provisional(measure)
            reason += "; provisional: measured again when idle"
        del variants
    else:
        model = TorchRuntime(load_model(settings, chosen.quantize), chosen.quantize)
    set_torch_threads(chosen.threads)
    if speed is None:
        serve(model, SHORT_TEXT, 1)  # first-call costs, kept out of the figure
        speed = time_serving(model, timing.FRAMES)
        _LOGGER.debug("Warm-up: %s", speed)
    release_freed_memory()
    if settings.quantize is not False and int8_unavailable() is not None:
        reason += "; no int8 in this torch"
    # int8 covers Mimi's decoder transformer too, where torch can (`model.int8`)
    if chosen.quantize:
        reason += f"; Mimi's decoder {'int8' if is_mimi_decoder_int8(model.model) else 'fp32'}"
    resolved = replace(settings, quantize=chosen.quantize)
    return model, Tuning(resolved, chosen.threads, speed, reason, confidence, course)


def warm_up(model: Runtime, state: dict) -> None:
    """Generate the first chunk with a real voice state, then stop.

    The timed generations use an empty voice; the first request with a voice prompt's longer
    context still paid about 25 ms more CPU than later ones (measured here at full size, 4
    processes each way), this one-chunk run before `Ready` takes that away (about 7 ms left).
    """
    with random_state_kept(), generation(model, state, chunks(model, LONG_TEXT)[0]) as stream:
        next(stream, None)


def _variants(model: TTSModel, configs: list[Config]) -> dict[Variant, TorchRuntime]:
    """The fp32 model and, if a configuration runs int8, an int8 copy; both warmed up (their
    first-call costs kept out of the comparison)."""
    fp32, int8 = Config(1, False).variant, Config(1, True).variant
    variants = {fp32: TorchRuntime(model, False)}
    if any(config.quantize for config in configs):
        variants[int8] = TorchRuntime(int8_copy(model), True)
    set_torch_threads(1)
    for variant in variants.values():
        serve(variant, SHORT_TEXT, 1)
    return variants


def _saved_confidence(saved: dict[str, Any]) -> str:
    config = Config.saved(saved)
    choice = Choice(config, "", saved["gain"], saved["noise"], saved["provisional"])
    return choice.confidence


def _flags(settings: ModelSettings) -> str:
    quantize = {None: "auto", True: "on", False: "off"}[settings.quantize]
    return f"--quantize {quantize}, --threads {settings.threads or 'auto'}"


def _load_onnx(settings: ModelSettings, data_dir: Path | None) -> tuple[Runtime, Tuning] | None:
    """The model on its cached graphs alone (`onnx.lean`: torch is never imported), warmed up
    and timed; None when they cannot run here (a warning line said why). The precision is the
    settings' (`--runtime onnx` measures nothing, so fp32 unless `--quantize on`; `auto` passes
    what it measured); 1 thread unless `--threads` says otherwise (the spike's fastest on a
    2-core host)."""
    int8 = settings.quantize is True
    threads = settings.threads or 1
    started = time.monotonic()
    if data_dir is None:  # no cache: never here (`needs_export`)
        return None
    model = lean_model(settings, graph_folder(data_dir, settings), int8, threads)
    if model is None:
        return None
    int8 = model.int8  # fp32 where the gate refused int8 here
    runs = graphs_label(int8)
    _LOGGER.info(
        "Loaded model %s in %.1f s (%s, on the graphs alone: no torch in this process)",
        settings.label,
        time.monotonic() - started,
        runs,
    )
    return on_graphs(model, settings, runs, int8, threads)


def on_graphs(
    model: Runtime,
    settings: ModelSettings,
    runs: str,
    int8: bool,
    threads: int,
    cancel: threading.Event | None = None,
) -> tuple[Runtime, Tuning] | None:
    """A model running its graphs, warmed up and timed; None if it does not run (one warning
    line). `Abandoned` once `cancel` is set."""
    set_torch_threads(threads)
    try:
        serve(model, SHORT_TEXT, 1, cancel)  # first-call costs, kept out of the figure
        speed = time_serving(model, timing.FRAMES, cancel)
    except Abandoned:
        raise
    except Exception as error:  # a graph that loads but does not run: torch serves
        warn_torch(settings.code, error)
        return None
    release_freed_memory()
    resolved = replace(settings, quantize=int8, runtime=RuntimeKind.ONNX)
    reason = f"--runtime onnx: {runs} x{threads}"
    refusal: str | None = getattr(model, "int8_refused", None)
    if refusal is not None:
        reason += f"; {refusal}"
    return model, Tuning(resolved, threads, speed, reason, int8_refused=refusal)
