"""A loaded model moved along its course (`course`) while the engine is idle.

Exporting: once the graphs are ready they are warmed up and timed, then serve (`--runtime onnx`)
or join the comparison with torch (`--runtime auto`); a failed export leaves torch settled.
Provisional or comparing: the comparison runs again and its choice serves. A request arriving
(`cancel`) abandons the step; the next idle moment begins it again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .comparison import Comparison, Remeasurement, figures_text
from .course import Course, Phase
from .timing import Abandoned
from .tuned import Tuning, on_graphs

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)

_NEXT_START = (
    "; torch leaves the process at the next start, which serves on the cached graphs alone"
)


@dataclass(frozen=True)
class Moved:
    """What an idle step changed: the tuning, and the model that serves from now on (its voice
    states start over where the runtime or precision changed), or None: the same model; `news`
    is the log's line for it."""

    tuning: Tuning
    model: Runtime | None = None
    news: str = ""

    def tell(self) -> None:
        """Log the news; called once the move is applied, so the log never runs ahead of what
        `/health` and `describe` say."""
        if self.news:
            _LOGGER.info("%s", self.news)


def on_idle(tuning: Tuning, cancel: threading.Event) -> Moved | None:
    """The idle work of `tuning`'s course, run on the engine thread; None when nothing changed
    (no work, the export not done yet, or `cancel` set meanwhile)."""
    course = tuning.course
    if course.phase is Phase.EXPORTING:
        return _after_export(tuning, cancel)
    if course.measured_again:
        return _measured_again(tuning, cancel)
    return None


def _after_export(tuning: Tuning, cancel: threading.Event) -> Moved | None:
    export = tuning.course.export
    assert export is not None
    if not export.done.is_set():
        return None
    timed = None
    if export.model is not None:
        try:
            timed = on_graphs(
                export.model, export.settings, export.runs, export.int8, export.threads,
                cancel=cancel,
            )  # fmt: skip
        except Abandoned:
            return None
    if timed is None:  # the export failed (its warning said why): torch stays, as it ran
        return Moved(replace(tuning, course=tuning.course.without_export()))
    model, on_them = timed
    code, compare_after = export.settings.code, tuning.course.compare_after
    if compare_after is not None:
        news = f"The {code} model's graphs run ({on_them.speed}): compared with torch now"
        course = _with_graphs(compare_after, model)
        return Moved(replace(tuning, course=course), news=f"{news} (--runtime auto)")
    news = f"The {code} model now runs on ONNX Runtime ({export.runs}){_NEXT_START}"
    return Moved(on_them, model, news)


def _with_graphs(measure: Remeasurement, model: Runtime) -> Course:
    """`--runtime auto` once the export is done: `model` (on the graphs) joins the comparison
    with torch, run when idle."""
    configs = measure.configs
    index = next(n for n, config in enumerate(configs) if config.runtime is model.kind)
    # at the precision the graphs run: fp32 where the gate refused int8 here
    configs[index] = graphs = replace(configs[index], quantize=model.int8)
    measure.variants[graphs.variant] = model
    return Course.comparing(measure)


def _measured_again(tuning: Tuning, cancel: threading.Event) -> Moved | None:
    measure = tuning.course.measure
    assert measure is not None
    result = measure.run(cancel)
    if result is None:
        return None
    model, now = _retuned(tuning, measure, result)
    runtime = result.choice.config.runtime
    if runtime is tuning.settings.runtime:
        return Moved(now, model)
    news = f"The {now.settings.code} model now runs on {runtime.name_in_logs}"
    after = _NEXT_START if runtime.without_torch else ""
    return Moved(now, model, f"{news} (chosen by --runtime auto){after}")


def _retuned(
    tuning: Tuning, measure: Remeasurement, comparison: Comparison
) -> tuple[Runtime, Tuning]:
    """The model and tuning a re-measurement (`comparison`) leads to: its choice, still in the
    same phase (the variants kept) or settled (the one not chosen let go)."""
    choice = comparison.choice
    course = tuning.course if choice.provisional and measure.wanted else Course()
    model = measure.variants[choice.config.variant]
    reason = f"auto, measured again when idle: {figures_text(comparison.figures)}"
    if course.phase is not Phase.SETTLED:
        reason += "; provisional: measured again when idle"
    runtime = choice.config.runtime
    resolved = replace(tuning.settings, quantize=choice.config.quantize, runtime=runtime)
    speed = comparison.figures[choice.config.label]
    refusal = getattr(model, "int8_refused", None)
    return model, Tuning(
        resolved, choice.config.threads, speed, reason, choice.confidence, course,
        int8_refused=refusal,
    )  # fmt: skip
