"""`script/bench --profile`: one frame's time by part, per configuration, beside the host's floor.

One process loads the model (pocket-tts's layer shapes, random weights), pocket-tts's int8 copy
and the server's (`server`: Mimi's decoder transformer int8 too, and the faster equivalents of
`engine.equivalents`), then profiles each at 1 and
2 torch threads, interleaved run by run so that drift on a
shared host hits all alike (`frame_profile`). The host's memory bandwidth and one core's
arithmetic rate are measured first (`hardware`): the floor per frame is the slower stage's
weight reads or arithmetic, whichever is longer, so the gap to the limit is a number.
"""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.tuning.timing import interleaved
from wyoming_pocket_tts.host import set_torch_threads, usable_cores

from . import hardware
from .frame_profile import PARTS, generate, profile_frames, steady_frame_time, summarize

if TYPE_CHECKING:
    from pocket_tts import TTSModel

FRAMES = 30
"""Frames per profiled generation (2.4 s of audio): the first `SKIP_FRAMES` are left out."""


def int8_copy(model: TTSModel) -> TTSModel:
    """pocket-tts's own int8 (what `--quantize on` loads), applied to a copy."""
    from pocket_tts.quantization import RECOMMENDED_CONFIG, apply_dynamic_int8

    quantized = copy.deepcopy(model)
    apply_dynamic_int8(quantized.flow_lm, RECOMMENDED_CONFIG)
    return quantized


def server_int8_copy(model: TTSModel) -> TTSModel:
    """What the server runs as int8: pocket-tts's, plus Mimi's decoder transformer (`model.int8`)
    and the equivalents (`equivalents`)."""
    from wyoming_pocket_tts.engine.model.equivalents import use_equivalents
    from wyoming_pocket_tts.engine.model.int8 import quantize_mimi_decoder

    quantized = int8_copy(model)
    quantize_mimi_decoder(quantized)
    use_equivalents(quantized)
    return quantized


def measure(size: str, runs: int, root: Path, frames: int = FRAMES) -> dict[str, Any]:
    """Every configuration profiled `runs` times, interleaved, with the host's limits."""
    from pocket_tts import TTSModel

    model_files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    fp32 = TTSModel.load_model(config=str(model_files.config_path))
    variants = {"fp32": fp32, "int8": int8_copy(fp32), "server": server_int8_copy(fp32)}
    threads = sorted({1, min(usable_cores(), 2)})
    configs = [(name, count) for count in threads for name in variants]
    loads = [os.getloadavg()[0]]
    limits = hardware.limits(fp32, variants)
    set_torch_threads(1)
    for model in variants.values():
        generate(model, 4)  # first-call costs, kept out
    profiles: dict[str, list] = {label(*config): [] for config in configs}
    plain: dict[str, list[float]] = {label(*config): [] for config in configs}
    for order in interleaved(configs, runs):
        for name, count in order:
            set_torch_threads(count)
            profiles[label(name, count)].append(profile_frames(variants[name], frames))
            plain[label(name, count)].append(steady_frame_time(generate(variants[name], frames)))
        loads.append(os.getloadavg()[0])
    set_torch_threads(1)
    return {
        "size": size,
        "runs": runs,
        "frames": frames,
        "limits": limits,
        "configs": {key: summarize(profiles[key], plain[key]) for key in profiles},
        "load_average": {"min": min(loads), "max": max(loads)},
        "measured": time.strftime("%Y-%m-%d %H:%M"),
    }


def label(variant: str, threads: int) -> str:
    return f"{variant} x{threads}"


def render(results: dict[str, Any]) -> str:
    """A Markdown table: one column per configuration, ms per frame by part."""
    configs = results["configs"]
    limits = results["limits"]
    names = list(configs)
    lines = [
        f"Model: {results['size']} shapes, random weights; {results['runs']} interleaved runs "
        f"of {results['frames']} frames per configuration, medians in ms per 80 ms frame; "
        f"1-minute load average {results['load_average']['min']:.1f}-"
        f"{results['load_average']['max']:.1f} on {os.cpu_count()} cores.",
        f"Host: memory bandwidth {limits['bandwidth_gb_s']:.1f} GB/s (one core, copy), "
        f"{limits['core_gflop_s']:.0f} GFLOP/s fp32 per core (matrix product); per frame the "
        f"flow LM does {limits['lm_mflop']:.0f} MFLOP, Mimi {limits['mimi_mflop']:.0f} MFLOP.",
        "",
        "| ms per frame | " + " | ".join(names) + " |",
        "| --- |" + " --- |" * len(names),
    ]

    def row(title: str, values: list[str]) -> None:
        lines.append(f"| {title} | " + " | ".join(values) + " |")

    row(
        "frame time, no profiler",
        [f"{c['frame_time_unprofiled_ms']:.1f}" for c in configs.values()],
    )
    row("frame time, profiled", [f"{c['frame_time_ms']:.1f}" for c in configs.values()])
    row(
        "the profiler's own cost (in Python below)",
        [f"{c['frame_time_ms'] - c['frame_time_unprofiled_ms']:.1f}" for c in configs.values()],
    )
    for thread, title in (("lm", "LM thread"), ("mimi", "Mimi thread")):
        for part in PARTS:
            if all(c[thread][part] < 0.005 for c in configs.values()):
                continue  # a part this thread never runs
            name = part
            if part == "flow head":
                steps = configs[names[0]]["head_steps"]
                name = f"flow head ({steps:g} step{'s' if steps != 1 else ''})"
            row(f"{title}: {name}", [f"{c[thread][part]:.2f}" for c in configs.values()])
        row(
            f"{title}: sum (its own cycle)",
            [f"**{c[thread]['total']:.1f}**" for c in configs.values()],
        )
        row(
            f"{title}: of which, waiting for a core",
            [f"{c[thread]['preempted']:.1f}" for c in configs.values()],
        )
    row("PCM conversion per chunk (caller)", [f"{c['pcm_ms']:.2f}" for c in configs.values()])
    row("slower stage", [c["pacer"] for c in configs.values()])
    floors = [limits["floors"][name.split(" ")[0]] for name in names]
    row(
        "floor: LM (weights / bandwidth or FLOP / core)",
        [f"{f['lm_floor_ms']:.1f}" for f in floors],
    )
    row("floor: Mimi", [f"{f['mimi_floor_ms']:.1f}" for f in floors])
    row(
        "frame time / floor (stages on 2 cores)",
        [
            f"{c['frame_time_unprofiled_ms'] / f['frame_floor_ms']:.1f}x"
            for c, f in zip(configs.values(), floors, strict=True)
        ],
    )
    lines += [
        "",
        "Hand-off: blocked with no op running (the other thread's queue, the GIL). Waiting for "
        "a core: runnable while other processes ran, spread over the parts above. LM weights "
        + ", ".join(f"{n} {f['lm_weight_mb']:.0f} MB" for n, f in limits["floors"].items())
        + f"; measured {results.get('measured', '?')}.",
    ]
    return "\n".join(lines) + "\n"
