"""The rule `--quantize auto` decides by: what the listener of a voice assistant gets.

The listener waits for the first audio; after it, the reply only has to stay ahead of playback.
So the rule looks at first audio first, and at the real-time factor (RTF) only as a floor:

1. **Comfortably real time.** A configuration counts only if its RTF is at least `REAL_TIME`
   (1.5x) and at least `SHARE_OF_BEST` (half) of the best RTF measured. When nothing reaches
   1.5x, the configurations within `MIN_MARGIN` of the best RTF count: a slow host needs speed
   most.
2. **The baseline** is the simplest configuration that counts, in `Config` order: fewest
   threads first (cores left to the rest of the host), fp32 before int8 (exact before close),
   ONNX Runtime's graphs before torch (a third of the memory, and from the next start no torch
   in the process: `onnx.lean`), so torch must beat the graphs beyond the noise to serve.
3. **A change wins beyond the noise or not at all.** The configuration that counts with the
   lowest first audio replaces the baseline only if its best first audio, raised by the margin,
   is still below the baseline's best. The margin is `MIN_MARGIN` (10%) or the spread measured
   between rounds of either configuration, whichever is larger.

4. **Noise does not pick the baseline.** When the fastest beats the baseline by more than
   `MIN_MARGIN` but not beyond the spread between rounds, the measurements cannot separate the
   two. The decision is then *provisional*: the fastest serves (its best round is the least
   disturbed figure there is, and keeping the baseline would lock in the slower choice on a
   bursty first start), and the server measures again when idle (`remeasure`) until a
   measurement settles it either way.

Half of the best, not 80%: in issue 30's own figures int8 x1 reached 3.59x against int8 x2's
4.58x (78%) with half the first audio; both are far above real time. Each figure is the best of
its rounds (noise on a shared host only ever slows); the spread between rounds is the noise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..runtime import RuntimeKind
from .timing import Speed

REAL_TIME = 1.5
"""RTF a configuration needs to count: real time with room for a busy moment."""
SHARE_OF_BEST = 0.5
"""...and this share of the best RTF measured, so a fast host keeps some headroom."""
MIN_MARGIN = 0.10
"""Least relative first-audio gain that moves away from the baseline."""


@dataclass(frozen=True)
class Config:
    """One way to run the model: threads, int8 or fp32, torch or ONNX Runtime graphs. They sort
    simplest first: fewest threads, fp32 before int8, the graphs before torch (see the module)."""

    threads: int
    quantize: bool
    runtime: RuntimeKind = RuntimeKind.TORCH

    @classmethod
    def saved(cls, record: Mapping[str, object]) -> Config:
        """The configuration a saved decision names (`decisions`: `onnx` true for the graphs)."""
        runtime = RuntimeKind.ONNX if record["onnx"] else RuntimeKind.TORCH
        return cls(int(record["threads"]), bool(record["quantize"]), runtime)  # type: ignore[call-overload]

    def __lt__(self, other: Config) -> bool:
        return self._simplicity < other._simplicity

    @property
    def _simplicity(self) -> tuple[int, bool, int]:
        return self.threads, self.quantize, PREFERENCE.index(self.runtime)

    @property
    def label(self) -> str:
        """`int8 x1`, `fp32 x2`, `onnx fp32 x1`: how logs and saved decisions name it."""
        return f"{self.runtime.label}{'int8' if self.quantize else 'fp32'} x{self.threads}"

    @property
    def variant(self) -> Variant:
        """Which loaded model it runs (runtime, `quantize`): threads are set per call."""
        return self.runtime, self.quantize


Variant = tuple[RuntimeKind, bool]
"""A loaded model of a comparison: its runtime and precision."""

PREFERENCE = (RuntimeKind.ONNX, RuntimeKind.TORCH)
"""At equal figures, the runtime kept: the graphs before torch (see the module)."""


@dataclass(frozen=True)
class Choice:
    """The configuration chosen and why."""

    config: Config
    why: str
    """One phrase for the log: the floor applied and the margin a change had to beat."""
    gain: float = 0.0
    """How much sooner the fastest configuration's first audio was than the baseline's
    (relative); 0 when the baseline stays (no gain beyond `MIN_MARGIN`)."""
    noise: float = 0.0
    """The margin it had to beat: `MIN_MARGIN` or the spread between rounds, the larger."""
    provisional: bool = False
    """The measurements could not separate the choices: a gain beyond `MIN_MARGIN` but
    inside the noise (see the module)."""

    @property
    def confidence(self) -> str:
        """In words, for the log and the status page."""
        if not self.gain:
            return f"settled: no configuration {MIN_MARGIN:.0%} sooner"
        verdict = "provisional" if self.provisional else "settled"
        relation = "within" if self.provisional else "beyond"
        return f"{verdict}: {self.gain:.0%} sooner, {relation} the {self.noise:.0%} noise"


def best(speeds: Sequence[Speed]) -> Speed:
    """The least disturbed round of each figure: noise on a shared host only ever slows."""
    return Speed(min(s.first_audio for s in speeds), max(s.rtf for s in speeds))


def spread(speeds: Sequence[Speed]) -> float:
    """Relative spread of first audio between rounds of one configuration (0 with one round)."""
    times = [s.first_audio for s in speeds]
    return max(times) / min(times) - 1 if min(times) > 0 else 0.0


def real_time_floor(best_rtf: float) -> float:
    """The RTF a configuration needs to count, given the best RTF measured."""
    return max(min(REAL_TIME, best_rtf / (1 + MIN_MARGIN)), SHARE_OF_BEST * best_rtf)


def choose(rounds: Mapping[Config, Sequence[Speed]]) -> Choice:
    """The configuration a voice assistant's listener is best served by (see the module)."""
    figures = {config: best(speeds) for config, speeds in rounds.items()}
    rtfs = [speed.rtf for speed in figures.values() if not math.isnan(speed.rtf)]
    floor = real_time_floor(max(rtfs, default=0.0))
    counting = sorted(config for config, speed in figures.items() if speed.rtf >= floor)
    counting = counting or sorted(figures)  # no RTF measured at all: first audio alone
    baseline = counting[0]
    fastest = min(counting, key=lambda config: figures[config].first_audio)
    margin = max(MIN_MARGIN, spread(rounds[baseline]), spread(rounds[fastest]))
    sooner, later = figures[fastest].first_audio, figures[baseline].first_audio
    gains = sooner * (1 + MIN_MARGIN) < later
    provisional = gains and not sooner * (1 + margin) < later
    gain = later / sooner - 1 if gains else 0.0
    why = f"lowest first audio among RTF >= {floor:.2f}x, beyond a {margin:.0%} margin"
    return Choice(fastest if gains else baseline, why, gain, margin, provisional)
