"""Issue 41's go/no-go rule and the table of `script/bench --onnx` (`bench.onnx_spike` measures).

Apart from the measurement so that the rule is read, and tested, without torch's sides or
ONNX Runtime.
"""

from __future__ import annotations

import statistics
from typing import Any

THREADS = (1, 2)
"""Torch and ONNX Runtime thread counts of every side."""

GO_RATIO = 1.3
"""Issue 41's bar: ONNX Runtime's frame time at least this much better (fp32, or int8 x1)."""


def _ratios(rounds: dict[str, list[dict[str, float]]], base: str, other: str) -> list[float]:
    """Per round, the base's frame time over the other's (above 1: the other is faster)."""
    return [b["frame"] / o["frame"] for b, o in zip(rounds[base], rounds[other], strict=True)]


def decide(results: dict[str, Any]) -> tuple[bool, list[str]]:
    """Issue 41's rule: go if ONNX Runtime's frame time is at least `GO_RATIO` better than the
    server's torch path for fp32 (at either thread count) or for int8 at 1 thread; the medians
    of the per-round ratios, and what each comparison gave."""
    rounds = results["rounds"]
    pairs = [(f"torch fp32 x{n}", f"onnx fp32 x{n}") for n in THREADS]
    pairs.append(("torch int8 x1", "onnx int8 x1"))
    lines, go = [], False
    for base, other in pairs:
        ratios = _ratios(rounds, base, other)
        median = statistics.median(ratios)
        go = go or median >= GO_RATIO
        lines.append(
            f"{other} against {base}: frame time {median:.2f}x "
            f"(rounds {min(ratios):.2f}-{max(ratios):.2f}x)"
        )
    return go, lines


def render(results: dict[str, Any]) -> str:
    rounds, audio = results["rounds"], results["audio"]
    ms = 1000.0
    lines = [
        f"One process, `{results['size']}` shapes (random weights), {results['runs']} "
        f"interleaved rounds, medians (frame time: min-max over the rounds); {results['frames']}"
        " frames per generation. Audio: the same latents decoded, against torch fp32 x1; latent: "
        "the LM's next latent from the same inputs.",
        "",
        "| side | LM step | Mimi step | frame | CPU per frame | first audio "
        "| audio rel. RMS | audio max abs | latent rel. RMS |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, figures in rounds.items():

        def median(key: str, figures: list[dict[str, float]] = figures) -> float:
            return statistics.median(f[key] for f in figures) * ms

        frames = [f["frame"] * ms for f in figures]
        check = audio.get(name.rsplit(" x", 1)[0], {})
        lines.append(
            f"| {name} | {median('lm_step'):.1f} ms | {median('mimi_step'):.1f} ms "
            f"| {median('frame'):.1f} ms ({min(frames):.1f}-{max(frames):.1f}) "
            f"| {median('cpu_per_frame'):.1f} ms | {median('first_audio'):.0f} ms "
            f"| {check.get('audio_rel_rms', float('nan')):.1e} "
            f"| {check.get('audio_max_abs', float('nan')):.1e} "
            f"| {check.get('latent_rel_rms', float('nan')):.1e} |"
        )
    go, why = decide(results)
    sizes = ", ".join(f"{name} {mib:.0f} MiB" for name, mib in results["graph_mib"].items())
    lines += [
        "",
        *[f"- {line}" for line in why],
        f"- Decision: {'GO' if go else 'NO-GO'} (bar: {GO_RATIO}x for fp32, or int8 x1).",
        f"- Export {results['export_seconds']:.0f} s, int8 quantisation "
        f"{results['quantize_seconds']:.0f} s; graphs: {sizes}.",
        f"- torchao: {results['torchao']}.",
        f"- Load average over the rounds: "
        f"{', '.join(f'{load:.1f}' for load in results['load_average'])}.",
        f"- Versions: {', '.join(f'{k} {v}' for k, v in results['versions'].items())}.",
    ]
    return "\n".join(lines) + "\n"
