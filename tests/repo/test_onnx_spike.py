"""The spike's go/no-go rule (`bench.onnx_spike.decide`), on injected frame times: issue 41's
bar is a 1.3x better frame time for ONNX Runtime in fp32 (at either thread count) or in int8 at
1 thread, judged on the median of the per-round ratios (rounds are interleaved)."""

from __future__ import annotations

from typing import Any

import pytest

from bench.onnx_report import GO_RATIO, decide


def results(frames: dict[str, list[float]]) -> dict[str, Any]:
    """Rounds with only frame times, every side at torch's 40 ms unless given."""
    sides = [f"{name} x{n}" for n in (1, 2) for name in ("torch fp32", "torch int8")]
    sides += [f"onnx {precision} x{n}" for n in (1, 2) for precision in ("fp32", "int8")]
    rounds = {side: [{"frame": time} for time in frames.get(side, [0.040] * 3)] for side in sides}
    return {"rounds": rounds}


@pytest.mark.parametrize(
    ("side", "frames", "go"),
    [
        ("onnx fp32 x1", [0.030, 0.030, 0.030], True),  # 1.33x
        ("onnx fp32 x2", [0.030, 0.030, 0.030], True),
        ("onnx int8 x1", [0.030, 0.030, 0.030], True),
        ("onnx int8 x2", [0.010, 0.010, 0.010], False),  # int8 counts at 1 thread only
        ("onnx fp32 x1", [0.032, 0.032, 0.032], False),  # 1.25x
        ("onnx fp32 x1", [0.020, 0.035, 0.035], False),  # one lucky round: median 1.14x
    ],
)
def test_the_bar_is_the_median_per_round_ratio(side: str, frames: list[float], go: bool) -> None:
    decided, lines = decide(results({side: frames}))
    assert decided is go
    assert len(lines) == 3 and all("against torch" in line for line in lines)


def test_the_ratio_is_taken_round_by_round() -> None:
    """Sides are compared within a round (measured in the same minute): a burst of load in one
    round does not decide. Medians of each side's frame times would give 0.67x here."""
    torch_fp32 = [0.040, 0.040, 0.080]
    onnx_fp32 = [0.030, 0.060, 0.060]  # 1.33x, 0.67x (a burst), 1.33x
    decided, lines = decide(results({"torch fp32 x1": torch_fp32, "onnx fp32 x1": onnx_fp32}))
    assert decided
    assert f"frame time {40 / 30:.2f}x (rounds 0.67-1.33x)" in lines[0]
    assert GO_RATIO == 1.3
