"""Issue 50's levers 1 and 4 in the graphs' loop (`onnx.loop`, `onnx.runners`): each request's
LM caches sized to what it needs (the exported graph's slot axis is dynamic, attention reads no
more), grown if a request runs past them; and a request's frames on reused IO bindings.

The graphs are the endless model's (no end of speech), exported once for this module
(`tests/engine/conftest.py`); `test_onnx_loop`'s helpers draw pocket-tts's noise, so the audio
is compared with pocket-tts's own `generate_audio_stream` sample for sample.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.frame_levers import FreshLMRunner, FreshMimiRunner
from testkit.model_factory import TinyModel
from tests.engine.test_onnx_loop import (
    FP32_TOLERANCE,
    INT8_TOLERANCE,
    loop_model,
    pocket,
    relative,
    speak,
)
from wyoming_pocket_tts.engine.onnx import loop
from wyoming_pocket_tts.engine.onnx.loop import GraphSpeech
from wyoming_pocket_tts.engine.onnx.plan import frame_budget, grown_slots, slot_budget
from wyoming_pocket_tts.engine.onnx.voice_arrays import lm_caches, offset_of
from wyoming_pocket_tts.engine.voice_states.state_file import read_state

pytestmark = [pytest.mark.usefixtures("one_torch_thread"), pytest.mark.timeout(600)]

LONG_FRAMES = 300
"""Frames compared over two text pieces (the first runs to its longest generation, 234 frames,
so its caches are written to their last slot)."""
PIECES = (
    "The living room lights are on and the front door is locked for the night, the heating "
    "is down to eighteen degrees, the dishwasher has finished, the garage door is closed, "
    "and the porch light will turn off at midnight. Tomorrow it will rain in the morning."
)


class Recorded:
    """Every LM run of a model: (the caches' slots, offset, steps)."""

    def __init__(self, model: GraphSpeech) -> None:
        self.runs: list[tuple[int, int, int]] = []
        run = model.lm.run

        def recorded(caches: list[np.ndarray], offset: int, embeddings: Any, noise: Any) -> Any:
            self.runs.append((caches[0].shape[2], offset, embeddings.shape[1]))
            return run(caches, offset, embeddings, noise)

        model.lm.run = recorded  # type: ignore[method-assign]

    def growths(self) -> int:
        """How often a run found its request's caches larger than the run before it did."""
        return sum(
            after[0] > before[0] and after[2] == 1
            for before, after in zip(self.runs, self.runs[1:], strict=False)
        )

    def pieces(self) -> list[list[tuple[int, int, int]]]:
        """The runs by text piece: each starts with its prompt and first frame (more than one
        step)."""
        pieces: list[list[tuple[int, int, int]]] = []
        for run in self.runs:
            if run[2] > 1:
                pieces.append([])
            pieces[-1].append(run)
        return pieces


@pytest.mark.parametrize(("int8", "tolerance"), [(False, FP32_TOLERANCE), (True, INT8_TOLERANCE)])
def test_request_sized_caches_speak_as_pocket_tts_over_300_frames(
    endless_model: TinyModel, graphs: Path, voice_file: Path, int8: bool, tolerance: float
) -> None:
    """A voice and two text pieces, 300 frames: pocket-tts's audio, each piece on caches of
    exactly its voice, prompt and longest generation (never grown; the first piece, spoken to
    its end, writes their last slot)."""
    reference = pocket(endless_model)
    expected = speak(reference, reference.get_state_for_audio_prompt(voice_file), PIECES,
                     LONG_FRAMES)  # fmt: skip
    model = loop_model(graphs, int8)
    state = read_state(voice_file)
    recorded = Recorded(model)
    got = speak(model, state, PIECES, LONG_FRAMES)
    assert relative(got, expected) < tolerance
    if not int8:
        assert relative(got, expected) < FP32_TOLERANCE / 10
    assert recorded.growths() == 0
    pieces = recorded.pieces()
    assert len(pieces) >= 2
    used = offset_of(state, model.graphs.lm_names)
    for runs in pieces:
        slots, offset, steps = runs[0]
        tokens = steps - 1  # the prompt and the first frame run as one
        assert offset == used
        assert slots == slot_budget(used, tokens, frame_budget(tokens, model.settings)) < 1000
        assert {run[0] for run in runs} == {slots}
    slots, _, steps = pieces[0][0]
    assert len(pieces[0]) == frame_budget(steps - 1, model.settings)
    assert pieces[0][-1][1] + 1 == slots  # its last frame wrote the last slot


def test_a_request_past_its_first_allocation_grows_and_speaks_alike(
    graphs: Path, voice_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Caches allocated too short (three frames' room) grow as the request runs on, and the
    audio is the same as on caches of the request's size."""
    model = loop_model(graphs)
    state = read_state(voice_file)
    sized = Recorded(model)
    expected = speak(model, state, frames=40)
    assert sized.growths() == 0
    monkeypatch.setattr(loop, "slot_budget", lambda used, tokens, frames: used + tokens + 3)
    short = loop_model(graphs)
    grown = Recorded(short)
    got = speak(short, state, frames=40)
    assert grown.growths() >= 1
    assert relative(got, expected) < FP32_TOLERANCE / 10


def test_the_cache_grows_only_past_its_last_slot(graphs: Path, voice_file: Path) -> None:
    """At the edge: a run that ends on the caches' last slot leaves them; one step more grows
    them, keeps what was written, and gives the same outputs."""
    model = loop_model(graphs)
    state = read_state(voice_file)
    names, lm = model.graphs.lm_names, model.lm
    used = offset_of(state, names)
    embedding = model.frame.embed(np.full((1, 1, lm.ldim), np.nan, np.float32))
    noise = np.zeros((1, lm.ldim), np.float32)
    exact = lm_caches(state, names, used + 1)
    before = [cache.copy() for cache in exact]
    latent, eos = lm.run(exact, used, embedding, noise)
    assert exact[0].shape[2] == used + 1
    assert np.array_equal(exact[0][:, :, :used], before[0][:, :, :used])
    assert np.abs(exact[0][:, :, used]).sum() > 0  # the last slot written
    short = lm_caches(state, names, used)
    grown_latent, grown_eos = lm.run(short, used, embedding, noise)
    assert short[0].shape[2] == grown_slots(used + 1, used) > used
    for grown, fitted in zip(short, exact, strict=True):
        assert np.allclose(grown[:, :, : used + 1], fitted, rtol=0, atol=1e-6)
        assert not grown[:, :, used + 1 :].any()
    assert np.allclose(grown_latent, latent, rtol=1e-5, atol=1e-6)
    assert abs(float(grown_eos) - float(eos)) < 1e-5


@pytest.mark.parametrize("int8", [False, True])
def test_reused_bindings_give_the_audio_of_fresh_ones(
    graphs: Path, voice_file: Path, int8: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two requests in a row on one model (new caches, new Mimi state), the second grown: the
    frames on reused bindings give exactly the audio of a new binding per run."""
    fresh = loop_model(graphs, int8)
    fresh.lm = FreshLMRunner(fresh.graphs.lm(int8), 1)
    fresh.mimi = FreshMimiRunner(fresh.graphs.mimi(int8), fresh.mimi.steps, 1)
    reused = loop_model(graphs, int8)
    grown = Recorded(reused)
    state = read_state(voice_file)
    expected = speak(fresh, state, PIECES, 20)
    assert np.array_equal(speak(reused, state, PIECES, 20), expected)
    monkeypatch.setattr(loop, "slot_budget", lambda used, tokens, frames: used + tokens + 3)
    expected = speak(fresh, state, "Turn on the lights.", 20)
    assert np.array_equal(speak(reused, state, "Turn on the lights.", 20), expected)
    assert grown.growths() >= 1


def test_the_sessions_threads_do_not_spin(graphs: Path) -> None:
    """The LM's and Mimi's sessions are made with spinning off (measured: a spinning LM pool
    takes the core Mimi's stage needs)."""
    model = loop_model(graphs)
    for runner in (model.lm, model.mimi):
        options = runner.session.get_session_options()
        assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
