"""Timing the configurations `--quantize auto` chooses between, at the first start and again
when idle while the decision is provisional.

A comparison times every configuration on the serving path (`timing`) in interleaved rounds,
each round in the other order so that drift hits all alike, and chooses by `rule`. When the
rule's choice is provisional (the noise between rounds hid the gain), the server keeps both
loaded variants (fp32 and int8) and a `Remeasurement`: once no request has been in its care for
`REMEASURE_AFTER` seconds, the engine thread runs the comparison again. A request arriving
meanwhile cancels it within a frame (the engine serves the request; the next idle period starts
the comparison over), so no listener waits for a measurement. A settled result frees the
variant not chosen; a run of `MAX_REMEASURES` still-provisional results stops trying until the
next start (a host that is never quiet keeps the fastest).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...host import set_torch_threads, torch_threads
from .decisions import DecisionStore
from .rule import Choice, Config, Variant, best, choose
from .timing import Abandoned, Speed, interleaved, time_serving

if TYPE_CHECKING:
    from ..runtime import Runtime

_LOGGER = logging.getLogger(__name__)

REMEASURE_AFTER = 60.0
"""Seconds with no request in care before a provisional decision is measured again."""
MAX_REMEASURES = 3
"""Completed re-measurements per start that may stay provisional before the server stops."""


@dataclass(frozen=True)
class Comparison:
    """One comparison's outcome."""

    choice: Choice
    figures: dict[str, Speed]
    """Each configuration's figures (the best of its rounds), by label."""
    seconds: float
    cpu: float
    """Wall-clock and process CPU seconds it took."""

    def summary(self) -> str:
        """The figures, the rule's reason and the verdict, for the log."""
        return (
            f"{figures_text(self.figures)}; {self.choice.why}; {self.choice.confidence}; "
            f"compared in {self.seconds:.1f} s, {self.cpu:.1f} s CPU"
        )


def compare(
    variants: Mapping[Variant, Runtime],
    configs: list[Config],
    frames: int,
    rounds: int,
    cancel: threading.Event | None = None,
) -> Comparison:
    """Time every configuration (`variants[config.variant]` on `config.threads` threads) in
    interleaved rounds and choose; raises `Abandoned` once `cancel` is set."""
    started, cpu = time.monotonic(), time.process_time()
    times: dict[Config, list[Speed]] = {config: [] for config in configs}
    for order in interleaved(configs, max(rounds, 1)):
        for config in order:
            set_torch_threads(config.threads)
            speed = time_serving(variants[config.variant], frames, cancel)
            _LOGGER.debug("Timing %s: %s", config.label, speed)
            times[config].append(speed)
    figures = {config.label: best(speeds) for config, speeds in times.items()}
    seconds = time.monotonic() - started
    return Comparison(choose(times), figures, seconds, time.process_time() - cpu)


def figures_text(figures: Mapping[str, Speed]) -> str:
    """`fp32 x1: first audio 120 ms, RTF 3.08x; int8 x1: ...`"""
    return "; ".join(f"{name}: {speed}" for name, speed in figures.items())


@dataclass
class Remeasurement:
    """A provisional decision's next comparison, with the variants it needs kept loaded."""

    variants: dict[Variant, Runtime]
    configs: list[Config]
    frames: int
    rounds: int
    store: DecisionStore | None
    key: dict[str, str]
    completed: int = field(default=0)
    """Comparisons run to the end when idle, this start."""

    @property
    def wanted(self) -> bool:
        return self.completed < MAX_REMEASURES

    def run(self, cancel: threading.Event) -> Comparison | None:
        """Compare again (the engine thread, idle); None if `cancel` cut it short. Torch's
        thread count is put back either way; the result is saved."""
        _LOGGER.info("Measuring again while idle: the speed decision is provisional")
        threads = torch_threads()
        try:
            comparison = compare(self.variants, self.configs, self.frames, self.rounds, cancel)
        except Abandoned:
            _LOGGER.info("Measurement abandoned: a request came; again at the next idle time")
            return None
        finally:
            set_torch_threads(threads)
        self.completed += 1
        if self.store is not None:
            self.store.write(self.key, comparison.choice, comparison.figures)
        choice = comparison.choice
        _LOGGER.info(
            "Measured again while idle: %s (%s)", choice.config.label, comparison.summary()
        )
        if comparison.choice.provisional and not self.wanted:
            _LOGGER.info(
                "Still provisional after %d measurements: kept until the next start",
                self.completed,
            )
        return comparison
