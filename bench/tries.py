"""`script/bench --tries`: each speed-up tried for issue 28, beside pocket-tts's defaults.

Every variant is the same random-weight model (pocket-tts's layer shapes), generating through
pocket-tts's own `generate_audio_stream` (its two threads) with a made voice state, as a request
does. Runs are interleaved (the order reversed every round), so drift on a shared host hits all
alike; each figure is a median, and the ratios are to pocket-tts's defaults (fp32, 1 thread):
- first audio: from the call to the first chunk (a short sentence);
- frame time: the steady interval per 80 ms frame (its inverse ratio is the RTF ratio);
- CPU per frame: the whole process's CPU time over a generation, per frame: what the host
  spends, which preemption by other processes does not inflate.

The variants change nothing in pocket-tts's code: they quantise whole torch modules with torch's
public dynamic quantisation (as pocket-tts's own `quantize=True` does), give modules the faster
equivalent classes the server uses (`engine.equivalents`), or wrap its public methods for the
run to set a thread's CPU affinity or torch thread count.
"""

from __future__ import annotations

import copy
import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from testkit.model_factory import build_tiny_model
from wyoming_pocket_tts.engine.model.equivalents import use_equivalents
from wyoming_pocket_tts.engine.tuning.timing import interleaved
from wyoming_pocket_tts.host import set_torch_threads, usable_cores

from .frame_profile import generate, steady_frame_time
from .profile_report import int8_copy

if TYPE_CHECKING:
    from pocket_tts import TTSModel

FRAMES = 25
FIRST_AUDIO_RUNS = 3
"""Short generations per round for first audio (cheap, noisier than the frame time)."""


def quantize_linears(module: torch.nn.Module) -> None:
    """torch's dynamic int8 for every nn.Linear in `module`, in place (pocket-tts's own backend)."""
    from torch.ao.quantization import quantize_dynamic

    quantize_dynamic(module, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)


@contextmanager
def stages_pinned(model: TTSModel) -> Iterator[None]:
    """The LM thread on the first usable core, the Mimi thread on the second, from their first
    frame (the caller's prompt pass stays free)."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        yield
        return
    lm = _per_thread(model.flow_lm, "backbone", lambda: os.sched_setaffinity(0, {cores[0]}))
    mimi = _per_thread(
        model.mimi, "decode_from_latent", lambda: os.sched_setaffinity(0, {cores[1]})
    )
    with lm, mimi:
        yield


@contextmanager
def prompt_threads(model: TTSModel, count: int) -> Iterator[None]:
    """The text prompt's pass (on the caller's thread, while both stages wait) on `count`
    torch threads, the frames on 1."""
    original = model.flow_lm.backbone

    def backbone(input_: torch.Tensor, text_embeddings: torch.Tensor, *args: Any, **kw: Any) -> Any:
        if text_embeddings.shape[1] == 0:
            return original(input_, text_embeddings, *args, **kw)
        set_torch_threads(count)
        try:
            return original(input_, text_embeddings, *args, **kw)
        finally:
            set_torch_threads(1)

    model.flow_lm.backbone = backbone
    try:
        yield
    finally:
        del model.flow_lm.backbone


@contextmanager
def stage_threads(model: TTSModel, lm: int, mimi: int) -> Iterator[None]:
    """Torch threads per stage: each of pocket-tts's threads sets its own count at its first
    frame (OpenMP's count is per thread once set; the prompt pass keeps the caller's)."""
    with (
        _per_thread(model.flow_lm, "backbone", lambda: set_torch_threads(lm)),
        _per_thread(model.mimi, "decode_from_latent", lambda: set_torch_threads(mimi)),
    ):
        yield


@contextmanager
def _per_thread(owner: Any, name: str, once: Callable[[], None]) -> Iterator[None]:
    """Run `once` in each thread at its first frame through `owner.name` (not a prompt pass)."""
    original = getattr(owner, name)
    done = threading.local()

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        prompt = name == "backbone" and args[1].shape[1] > 0
        if not prompt and not getattr(done, "flag", False):
            once()
            done.flag = True
        return original(*args, **kwargs)

    setattr(owner, name, wrapped)
    try:
        yield
    finally:
        delattr(owner, name)


def variants(fp32: TTSModel) -> dict[str, tuple[TTSModel, Callable[[], AbstractContextManager]]]:
    """Each try: (the model it runs, the wrappers it runs under)."""
    int8 = int8_copy(fp32)
    head = copy.deepcopy(int8)
    quantize_linears(head.flow_lm.flow_net)  # pocket-tts's own "flow_net" group
    mimi = copy.deepcopy(int8)
    quantize_linears(mimi.mimi.decoder_transformer)
    equivalents = copy.deepcopy(mimi)
    use_equivalents(equivalents)
    return {
        "pocket-tts defaults (fp32 x1)": (fp32, nullcontext),
        "int8 x1 (server default here)": (int8, nullcontext),
        "int8 + int8 flow head": (head, nullcontext),
        "int8 + int8 Mimi transformer": (mimi, nullcontext),
        "int8 + int8 Mimi transformer + equivalents": (equivalents, nullcontext),
        "int8 + stages pinned to 2 cores": (int8, lambda: stages_pinned(int8)),
        "int8 + prompt pass on 2 threads": (int8, lambda: prompt_threads(int8, 2)),
        "int8 + Mimi stage on 2 threads": (int8, lambda: stage_threads(int8, 1, 2)),
        "int8 + int8 Mimi transformer + pinned": (mimi, lambda: stages_pinned(mimi)),
    }


def measure(size: str, runs: int, root: Path) -> dict[str, Any]:
    from pocket_tts import TTSModel

    files = build_tiny_model(root / "model", size=size, eos=False, link=True)
    fp32 = TTSModel.load_model(config=str(files.config_path))
    set_torch_threads(1)
    tries = variants(fp32)
    if usable_cores() < 2:
        tries = {k: v for k, v in tries.items() if "2" not in k}
    for model, wrap in tries.values():
        with wrap():
            generate(model, 4)  # first-call costs
    first: dict[str, list[float]] = {name: [] for name in tries}
    frame: dict[str, list[float]] = {name: [] for name in tries}
    cpu: dict[str, list[float]] = {name: [] for name in tries}
    loads = [os.getloadavg()[0]]
    names = list(tries)
    for order in interleaved(names, runs):
        for name in order:
            model, wrap = tries[name]
            with wrap():
                for _ in range(FIRST_AUDIO_RUNS):
                    started = time.perf_counter()
                    first[name].append(generate(model, 1)[0][0] - started)
                started_cpu = time.process_time()
                arrivals = generate(model, FRAMES)
                cpu[name].append((time.process_time() - started_cpu) / FRAMES)
                frame[name].append(steady_frame_time(arrivals))
        loads.append(os.getloadavg()[0])
    base = names[0]
    results: dict[str, Any] = {}
    for name in names:
        results[name] = {
            "first_audio_ms": statistics.median(first[name]) * 1000,
            "frame_ms": statistics.median(frame[name]) * 1000,
            "cpu_per_frame_ms": statistics.median(cpu[name]) * 1000,
            "frame_ratio_per_run": [a / b for a, b in zip(frame[name], frame[base], strict=True)],
        }
    return {"size": size, "runs": runs, "tries": results, "load": [min(loads), max(loads)]}


def render(results: dict[str, Any]) -> str:
    tries = results["tries"]
    base = tries[next(iter(tries))]
    int8 = tries[list(tries)[1]]
    lines = [
        f"Model: {results['size']} shapes, random weights; {results['runs']} interleaved rounds "
        f"({FIRST_AUDIO_RUNS} first-audio runs and one {FRAMES}-frame run per variant each), "
        f"medians; 1-minute load average {results['load'][0]:.1f}-{results['load'][1]:.1f} on "
        f"{os.cpu_count()} cores.",
        "",
        "| variant | first audio | vs defaults | vs int8 | RTF vs defaults | RTF vs int8 "
        "| RTF vs int8, per round | CPU per frame | vs int8 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, row in tries.items():
        per_round = ", ".join(
            f"{b / a:.2f}"
            for a, b in zip(row["frame_ratio_per_run"], int8["frame_ratio_per_run"], strict=True)
        )
        lines.append(
            f"| {name} | {row['first_audio_ms']:.0f} ms "
            f"| {row['first_audio_ms'] / base['first_audio_ms']:.2f} "
            f"| {row['first_audio_ms'] / int8['first_audio_ms']:.2f} "
            f"| {base['frame_ms'] / row['frame_ms']:.2f}x "
            f"| {int8['frame_ms'] / row['frame_ms']:.2f}x | {per_round} "
            f"| {row['cpu_per_frame_ms']:.1f} ms "
            f"| {row['cpu_per_frame_ms'] / int8['cpu_per_frame_ms']:.2f} |"
        )
    return "\n".join(lines) + "\n"
