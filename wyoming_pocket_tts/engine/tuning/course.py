"""Where a loaded model is in the course of how it runs: settled, or with work left for idle time.

- settled: nothing left to measure or prepare;
- provisional: `--quantize auto`'s speed decision is measured again when idle (`comparison`);
- exporting: torch serves while the graphs are exported or loaded in the background
  (`onnx.background`); under `--runtime auto` they are compared with torch once ready;
- comparing: `--runtime auto`, the graphs ready: compared with torch when idle.

The engine, the pool, the studio and `/health` read `Course.phase`; `idle.on_idle` moves a model
along its course.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from ..onnx import background
from . import comparison

if TYPE_CHECKING:
    from ..onnx.background import BackgroundExport
    from .comparison import Remeasurement


class Phase(Enum):
    """The four places of a course."""

    SETTLED = "settled"
    PROVISIONAL = "provisional"
    EXPORTING = "exporting"
    COMPARING = "comparing"


@dataclass(frozen=True)
class Course:
    """A model's phase and the work it holds: `measure`, the comparison that may change how it
    runs (provisional, comparing; while exporting, torch's own provisional one, run once the
    export is over); `export` and, under `--runtime auto`, the comparison with torch the graphs
    join once ready (`compare_after`) while exporting."""

    phase: Phase = Phase.SETTLED
    measure: Remeasurement | None = None
    export: BackgroundExport | None = None
    compare_after: Remeasurement | None = None

    @staticmethod
    def provisional(measure: Remeasurement) -> Course:
        return Course(Phase.PROVISIONAL, measure)

    @staticmethod
    def exporting(
        export: BackgroundExport, before: Course, compare_after: Remeasurement | None = None
    ) -> Course:
        """`export` running, the course `before` it kept for after a failed one."""
        return Course(Phase.EXPORTING, before.measure, export, compare_after)

    @staticmethod
    def comparing(measure: Remeasurement) -> Course:
        return Course(Phase.COMPARING, measure)

    def without_export(self) -> Course:
        """The course once the export failed: torch's own, provisional or settled."""
        return Course.provisional(self.measure) if self.measure is not None else Course()

    @property
    def measured_again(self) -> bool:
        """A comparison is still to run when idle (provisional or comparing, not given up)."""
        wants = self.phase in (Phase.PROVISIONAL, Phase.COMPARING)
        return wants and self.measure is not None and self.measure.wanted

    @property
    def idle_after(self) -> float | None:
        """Seconds of idleness after which this course has work, if any: the export's poll, or
        the wait before a comparison."""
        if self.phase is Phase.EXPORTING:
            return background.POLL
        return comparison.REMEASURE_AFTER if self.measured_again else None

    def stop(self) -> None:
        """End the export's child process, if one runs (shutdown, unload): torch stays."""
        if self.export is not None:
            self.export.stop()
