"""Where one frame's time goes: pocket-tts's own threads, profiled while they serve a request.

pocket-tts generates on two threads of its own: the LM thread runs the flow LM (transformer
backbone, then the flow head's steps) once per 80 ms frame and queues the latent; the Mimi thread
decodes queued latents to audio; the caller's thread converts each chunk to PCM. The stages run
in parallel, so the frame time the listener gets (the steady interval between chunks, measured by
the caller) is set by the slower stage, and every thread lives through every frame.

So each thread's time per frame is split into parts that are measured, not inferred:
- the torch ops inside pocket-tts's modules, found by wrapping its public objects for the run
  (`flow_lm.backbone`, `flow_lm.flow_net`, `mimi.decode_from_latent`; the flow LM's `forward`
  marks where each frame starts) and recording every op of every thread with torch's profiler;
- the other ops on the thread, outside those modules: conversion and copying (the input
  projection, EOS head, noise, latent scaling, KV-cache bookkeeping, PCM conversion);
- with no op running, Python and the hand-off: the thread's CPU clock minus its ops' share of
  it is Python; the rest of the time with no op running, the thread was blocked (waiting for
  the other thread's queue, or for the GIL). On a shared host other processes also preempt
  the thread (the kernel's run-queue wait, `/proc/thread-self/schedstat`): that time is spread
  over ops and Python in proportion, and shown apart as "of which, waiting for a core".
Each thread's parts add up to its own cycle; the pacing thread's cycle must equal the caller's
frame time. The test suite checks that on the tiny model. The profiler costs time per op, so the
frame time without it is measured too, in the same run (`profile` alternates them).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch.profiler import ProfilerActivity, record_function

from wyoming_pocket_tts.audio.pcm import to_pcm16
from wyoming_pocket_tts.engine.model.runtime import TorchRuntime
from wyoming_pocket_tts.engine.tuning.timing import LONG_TEXT, SAMPLES_PER_FRAME

if TYPE_CHECKING:
    from pocket_tts import TTSModel

STEP, BACKBONE, HEAD, MIMI, PCM = (
    "frame.lm_step",
    "frame.backbone",
    "frame.flow_head",
    "frame.mimi",
    "frame.pcm",
)
PARTS = ("backbone", "flow head", "Mimi decoder", "conversion and copying", "Python", "hand-off")
"""What a thread's time per frame is split into (see the module docstring)."""
_MODULE_PART = {BACKBONE: "backbone", HEAD: "flow head", MIMI: "Mimi decoder"}
SKIP_FRAMES = 3
"""Frames kept out of the steady window: the first ones pay first-call costs."""


@dataclass
class ThreadFrame:
    """One thread's mean time per frame, by part, in seconds."""

    parts: dict[str, float]
    cycle: float
    """The thread's own time per frame, between its frame marks (what the parts add up to)."""
    preempted: float = 0.0
    """Of it, runnable but waiting for a core (other processes): spread over the parts."""

    @property
    def total(self) -> float:
        return sum(self.parts.values())


@dataclass
class FrameProfile:
    """One profiled generation: the caller's frame time and each pocket-tts thread's parts."""

    frame_time: float
    """Seconds between chunks per frame, steady state, as the caller receives them."""
    lm: ThreadFrame
    mimi: ThreadFrame
    head_steps: float
    """Flow-head calls per frame (pocket-tts's `sampler_decode_steps`)."""
    frames: int
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def pacer(self) -> ThreadFrame:
        """The stage that sets the pace: the one blocked least (the other waits for it)."""
        return min((self.lm, self.mimi), key=lambda thread: thread.parts["hand-off"])


@dataclass
class _Marks:
    """CPU clock of each thread at every wrapped call, read by the thread itself."""

    cpu: dict[str, list[tuple[float, int, float]]] = field(default_factory=dict)
    """Per wrapped name and call: the calling thread's CPU seconds, the frames in the call, and
    the thread's seconds spent runnable but waiting for a core."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, frames: int) -> None:
        entry = (time.thread_time(), frames, _run_queue_wait())
        with self.lock:
            self.cpu.setdefault(name, []).append(entry)


def _run_queue_wait() -> float:
    """Seconds this thread has waited for a core while runnable (Linux schedstat; else 0)."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as file:
            return int(file.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


@contextmanager
def instrumented(model: TTSModel, marks: _Marks | None = None) -> Iterator[None]:
    """Wrap the model's public objects for the run: each call is a named profiler range (and a
    CPU-clock mark); the wrappers are removed afterwards, the model code is unchanged."""
    flow_lm, mimi = model.flow_lm, model.mimi
    targets: list[tuple[Any, str, str]] = [
        (flow_lm, "forward", STEP),
        (flow_lm, "backbone", BACKBONE),
        (flow_lm.flow_net, "forward", HEAD),
        (mimi, "decode_from_latent", MIMI),
    ]
    for owner, attribute, name in targets:
        setattr(owner, attribute, _timed(getattr(owner, attribute), name, marks))
    try:
        yield
    finally:
        for owner, attribute, _ in targets:
            delattr(owner, attribute)  # the class's method shows through again


def _timed(function: Callable[..., Any], name: str, marks: _Marks | None) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        if marks is not None:
            latent = args[0] if args and isinstance(args[0], torch.Tensor) else None
            marks.add(name, latent.shape[1] if latent is not None and latent.dim() == 3 else 1)
        with record_function(name):
            return function(*args, **kwargs)

    return timed


def generate(model: TTSModel, frames: int, profiled: bool = False) -> list[tuple[float, int]]:
    """Serve `LONG_TEXT` as the engine does, up to `frames` frames; each chunk's arrival
    (perf_counter) and samples. Generation is stopped there, as a hang-up stops it."""
    state = _voice(model)
    stop = threading.Event()
    arrivals: list[tuple[float, int]] = []
    stream = model.generate_audio_stream(state, LONG_TEXT, stop=stop)
    try:
        for audio in stream:
            if profiled:
                with record_function(PCM):
                    to_pcm16(audio, None)
            else:
                to_pcm16(audio, None)
            arrivals.append((time.perf_counter(), audio.shape[-1]))
            if sum(n for _, n in arrivals) >= frames * SAMPLES_PER_FRAME:
                break
    finally:
        stop.set()
        for _ in stream:
            pass
    return arrivals


_VOICES: dict[int, tuple[TTSModel, dict]] = {}


def _voice(model: TTSModel) -> dict:
    """An empty voice state made once per model, as a server keeps its voices: making one
    unpacks every int8 attention weight (pocket-tts's `init_state` reads `in_proj.weight()`),
    which requests with a cached voice never pay."""
    kept = _VOICES.get(id(model))
    if kept is None or kept[0] is not model:
        kept = _VOICES[id(model)] = (model, TorchRuntime(model, False).empty_state())
    return kept[1]


def steady_frame_time(arrivals: list[tuple[float, int]]) -> float:
    """Seconds per frame between the first chunk after `SKIP_FRAMES` frames and the last."""
    start, frames = _steady_start(arrivals)
    return (arrivals[-1][0] - arrivals[start][0]) / frames


def _steady_start(arrivals: list[tuple[float, int]]) -> tuple[int, int]:
    """Index of the chunk that opens the steady window, and the frames after it."""
    done = 0
    for index, (_, samples) in enumerate(arrivals):
        done += samples // SAMPLES_PER_FRAME
        if done >= SKIP_FRAMES and index < len(arrivals) - 1:
            later = sum(n for _, n in arrivals[index + 1 :]) // SAMPLES_PER_FRAME
            return index, later
    raise ValueError(f"too few frames for a steady window: {done}")


def profile_frames(model: TTSModel, frames: int) -> FrameProfile:
    """Generate `frames` frames under torch's profiler (all threads) and split the time."""
    marks = _Marks()
    config = torch.profiler._ExperimentalConfig(profile_all_threads=True)
    with (
        instrumented(model, marks),
        torch.profiler.profile(
            activities=[ProfilerActivity.CPU], experimental_config=config
        ) as profiler,
    ):
        arrivals = generate(model, frames, profiled=True)
    return _split(list(profiler.events()), marks, arrivals)


def _split(events: list[Any], marks: _Marks, arrivals: list[tuple[float, int]]) -> FrameProfile:
    by_name: dict[str, list[Any]] = {}
    for event in events:
        by_name.setdefault(event.name, []).append(event)
    step_thread = by_name[STEP][-1].thread  # the first step (the text prompt) is the caller's
    steps = sorted(
        (e for e in by_name[STEP] if e.thread == step_thread), key=lambda e: e.time_range.start
    )
    decodes = sorted(by_name[MIMI], key=lambda e: e.time_range.start)
    step_cpu = marks.cpu[STEP][-len(steps) :]
    mimi_cpu = marks.cpu[MIMI]
    ops = _top_level_ops(events)
    first, last = SKIP_FRAMES, len(steps) - 1
    lm = _thread_frame(
        ops[step_thread],
        steps[first].time_range.start,
        steps[last].time_range.start,
        step_cpu[last][0] - step_cpu[first][0],
        step_cpu[last][2] - step_cpu[first][2],
        last - first,
    )
    frames_per_decode = [frames for _, frames, _ in mimi_cpu]
    opened = _decode_opening(frames_per_decode, SKIP_FRAMES)
    mimi_frames = sum(frames_per_decode[opened:-1])
    mimi = _thread_frame(
        ops[decodes[0].thread],
        decodes[opened].time_range.start,
        decodes[-1].time_range.start,
        mimi_cpu[-1][0] - mimi_cpu[opened][0],
        mimi_cpu[-1][2] - mimi_cpu[opened][2],
        mimi_frames,
    )
    head_calls = sum(1 for e in by_name[HEAD] if e.thread == step_thread)
    pcm = by_name[PCM]
    return FrameProfile(
        frame_time=steady_frame_time(arrivals),
        lm=lm,
        mimi=mimi,
        head_steps=head_calls / len(steps),
        frames=len(steps),
        extra={"pcm": sum(e.time_range.elapsed_us() for e in pcm) / 1e6 / len(arrivals)},
    )


def _decode_opening(frames: list[int], skip: int) -> int:
    """First call whose frames start after `skip` frames (the steady window opens there)."""
    done = 0
    for index, count in enumerate(frames):
        if done >= skip:
            return min(index, len(frames) - 2)
        done += count
    return max(len(frames) - 2, 0)


def _top_level_ops(events: list[Any]) -> dict[int, list[tuple[float, float, str | None]]]:
    """Per thread: every torch op not inside another op, with the wrapped module it ran in."""
    result: dict[int, list[tuple[float, float, str | None]]] = {}
    for event in events:
        if event.is_user_annotation or event.name.startswith("frame."):
            continue
        parent, module = event.cpu_parent, None
        nested = False
        while parent is not None:
            if parent.name.startswith("frame."):
                module = module or (parent.name if parent.name != STEP else None)
            else:
                nested = True
                break
            parent = parent.cpu_parent
        if nested:
            continue
        result.setdefault(event.thread, []).append(
            (event.time_range.start, event.time_range.end, module)
        )
    return result


def _thread_frame(
    ops: list[tuple[float, float, str | None]],
    start: float,
    end: float,
    cpu: float,
    preempted: float,
    frames: int,
) -> ThreadFrame:
    """Split one thread's window [start, end) (profiler µs) into the parts, per frame."""
    wall = (end - start) / 1e6
    in_ops: dict[str, float] = {part: 0.0 for part in PARTS[:4]}
    busy = 0.0  # every op, counted apart from the parts: a part left out cannot hide
    for op_start, op_end, module in ops:
        overlap = (min(op_end, end) - max(op_start, start)) / 1e6
        if overlap > 0:
            busy += overlap
            in_ops[_MODULE_PART.get(module or "", "conversion and copying")] += overlap
    idle = max(wall - busy, 0.0)  # no op running on this thread
    share = preempted / (preempted + cpu) if preempted + cpu > 0 else 0.0  # of runnable time
    python_cpu = max(cpu - busy * (1 - share), 0.0)  # CPU clock minus the ops' share of it
    python = min(python_cpu / (1 - share) if share < 1 else idle, idle)
    parts = {**in_ops, "Python": python, "hand-off": idle - python}
    return ThreadFrame({k: v / frames for k, v in parts.items()}, wall / frames, preempted / frames)


def summarize(profiles: list[FrameProfile], plain: list[float]) -> dict[str, Any]:
    """Medians over runs, in milliseconds."""

    def median(values: list[float]) -> float:
        return statistics.median(values) * 1000

    def thread(name: str) -> dict[str, float]:
        frames = [getattr(p, name) for p in profiles]
        return {
            **{part: median([f.parts[part] for f in frames]) for part in PARTS},
            "cycle": median([f.cycle for f in frames]),
            "preempted": median([f.preempted for f in frames]),
            "total": median([f.total for f in frames]),
        }

    return {
        "frame_time_ms": median([p.frame_time for p in profiles]),
        "frame_time_unprofiled_ms": median(plain),
        "head_steps": profiles[0].head_steps,
        "pacer": statistics.mode(["lm" if p.pacer is p.lm else "mimi" for p in profiles]),
        "lm": thread("lm"),
        "mimi": thread("mimi"),
        "pcm_ms": median([p.extra["pcm"] for p in profiles]),
        "runs": len(profiles),
    }
