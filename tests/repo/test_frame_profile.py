"""`script/bench --profile` on the tiny model: a frame's parts add up to the frame time.

The frame time is measured where the listener gets it (the caller's steady interval between
chunks); the parts are measured inside pocket-tts's own threads (torch's profiler, the threads'
CPU clocks). The slower stage sets the pace, so its parts must add up to the frame time. No
speed is asserted: the machine is shared.
"""

from __future__ import annotations

import contextlib
import math

import pytest
from pocket_tts import TTSModel

from bench import hardware
from bench.frame_profile import (
    PARTS,
    FrameProfile,
    generate,
    instrumented,
    profile_frames,
    summarize,
)
from bench.profile_report import render
from testkit.model_factory import TinyModel

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TOLERANCE = 0.10
"""How far the slower stage's parts may add up from the caller's frame time (relative): its
window starts and ends a frame or two apart from the caller's. Measured here (2 cores, load
average 4-5): within 3% at 40 frames, within 6% at 24."""
FRAMES = 40


@pytest.fixture(scope="module")
def model(endless_model: TinyModel) -> TTSModel:
    loaded = endless_model.load()
    generate(loaded, 3)  # first-call costs
    return loaded


ATTEMPTS = 3
"""Another process taking a core mid-window skews one run's sum (seen: 8.7 against 10.0 ms while
the full suite ran beside it); a part left out skews every run the same way."""


def _off_by(profile: FrameProfile) -> float:
    """How far the pacing stage's parts are from the caller's frame time (relative)."""
    return abs(profile.pacer.total - profile.frame_time) / profile.frame_time


def test_parts_add_up_to_the_frame_time(model: TTSModel) -> None:
    runs = []
    for _ in range(ATTEMPTS):
        runs.append(profile_frames(model, FRAMES))
        if _off_by(runs[-1]) <= TOLERANCE:
            break
    profile = min(runs, key=_off_by)
    for thread in (profile.lm, profile.mimi):  # each thread's parts cover its whole cycle...
        assert set(thread.parts) == set(PARTS)
        assert abs(thread.total - thread.cycle) <= TOLERANCE * thread.cycle, thread
    pacer = profile.pacer  # ...and the slower stage's cycle is the frame the caller gets
    assert abs(pacer.total - profile.frame_time) <= TOLERANCE * profile.frame_time, (
        f"parts {pacer.parts} add up to {pacer.total * 1000:.1f} ms, "
        f"frame time {profile.frame_time * 1000:.1f} ms"
    )
    # Every stage's own work is found, on its own thread, and nowhere else.
    assert profile.lm.parts["backbone"] > 0 and profile.lm.parts["flow head"] > 0
    assert profile.lm.parts["Mimi decoder"] == 0
    assert profile.mimi.parts["Mimi decoder"] > 0
    assert profile.mimi.parts["backbone"] == profile.mimi.parts["flow head"] == 0
    assert profile.head_steps == model.sampler_decode_steps
    for thread in (profile.lm, profile.mimi):
        assert all(value >= 0 for value in thread.parts.values()), thread.parts


def test_the_profiled_model_is_left_as_it_was(model: TTSModel) -> None:
    """The wrappers come off: afterwards the model's methods are its class's again."""
    with instrumented(model):
        assert "backbone" in vars(model.flow_lm)
    wrapped = [
        (model.flow_lm, "forward"),
        (model.flow_lm, "backbone"),
        (model.flow_lm.flow_net, "forward"),
        (model.mimi, "decode_from_latent"),
    ]
    for owner, name in wrapped:
        assert name not in vars(owner)


def steady_profile(model: TTSModel) -> FrameProfile:
    """A profile of `FRAMES` frames with a steady window: the test model's LM runs far ahead
    of Mimi, and on a loaded host Mimi may decode every frame after its first in one chunk,
    which leaves no window (`ValueError`); tried `ATTEMPTS` times."""
    for _ in range(ATTEMPTS - 1):
        with contextlib.suppress(ValueError):
            return profile_frames(model, FRAMES)
    return profile_frames(model, FRAMES)


def test_host_limits_are_measured_and_printed_beside_the_parts(model: TTSModel) -> None:
    limits = hardware.limits(model, {"fp32": model})
    for key in ("bandwidth_gb_s", "core_gflop_s", "lm_mflop", "mimi_mflop"):
        assert math.isfinite(limits[key]) and limits[key] > 0, key
    floors = limits["floors"]["fp32"]
    assert floors["frame_floor_ms"] == max(floors["lm_floor_ms"], floors["mimi_floor_ms"]) > 0
    summary = summarize([steady_profile(model)], [0.02])
    table = render(
        {
            "size": "tiny",
            "runs": 1,
            "frames": FRAMES,
            "limits": limits,
            "configs": {"fp32 x1": summary},
            "load_average": {"min": 1.0, "max": 1.0},
        }
    )
    for row in ("LM thread: backbone", "flow head (1 step)", "Mimi thread: Mimi decoder"):
        assert row in table
    assert f"{limits['bandwidth_gb_s']:.1f} GB/s" in table and "frame time / floor" in table
