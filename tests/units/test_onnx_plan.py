"""The graphs' loop's budgets (`onnx.plan`), as pure functions: pocket-tts 4.0.1's rules
(`TTSModel._TOKENS_PER_SECOND_ESTIMATE` 3, `_GEN_SECONDS_PADDING` 2, 12.5 frames a second; EOS
from frame 6, then the model's frames after it or the guess plus two). The loop's audio against
pocket-tts's own is tests/engine/test_onnx_loop.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wyoming_pocket_tts.engine.onnx.loop_settings import LoopSettings
from wyoming_pocket_tts.engine.onnx.plan import (
    EndOfSpeech,
    frame_budget,
    frames_after_eos,
    grown_slots,
    slot_budget,
)
from wyoming_pocket_tts.engine.onnx.text_prompt import TextSettings
from wyoming_pocket_tts.engine.onnx.voice_arrays import LM_SLOTS

SETTINGS = LoopSettings(
    sample_rate=24000, frame_rate=12.5, mimi_steps_per_latent=16, temperature=0.7,
    noise_clamp=None, eos_threshold=-4.0, frames_after_eos=None, min_frames_before_eos=6,
    tokens_per_second=3.0, padding_seconds=2.0, max_tokens=50, text=TextSettings(False, False),
    tokenizer="tokenizer.model", emb_std=[1.0], emb_mean=[0.0], voice_cloning=False,
)  # fmt: skip


@pytest.mark.parametrize("tokens", [1, 2, 3, 7, 33, 50])
def test_the_frame_budget_is_pocket_tts_bound(tokens: int) -> None:
    assert frame_budget(tokens, SETTINGS) == math.ceil((tokens / 3 + 2) * 12.5)
    assert frame_budget(50, SETTINGS) == 234  # a full 50-token piece


def test_the_slot_budget_holds_voice_prompt_and_frames_within_the_cache() -> None:
    assert slot_budget(375, 50, 234) == 659
    assert slot_budget(0, 5, 46) == 51
    assert slot_budget(900, 50, 234) == LM_SLOTS


def test_caches_grow_to_twice_or_to_the_end_and_never_past_the_cache() -> None:
    assert grown_slots(11, 10) == 20
    assert grown_slots(45, 10) == 45
    assert grown_slots(700, 600) == LM_SLOTS


def test_frames_after_eos_take_the_models_recommendation_else_the_guess_plus_two() -> None:
    assert frames_after_eos(None, 1) == 3
    assert frames_after_eos(None, 3) == 5
    assert frames_after_eos(0, 3) == 0
    assert frames_after_eos(4, 1) == 4


def test_end_of_speech_counts_from_the_first_frame_allowed() -> None:
    """An EOS logit past the threshold before frame 6 is not heard; from frame 6 on, the frames
    after it are spoken, then the piece ends."""
    end = EndOfSpeech(threshold=-4.0, min_frames=6, after=2)
    logits = [0.0, 0.0, -9.0, -9.0, -9.0, -9.0, 0.0, -9.0, -9.0, -9.0]
    ended = [end.ends_at(step, eos) for step, eos in enumerate(logits)]
    assert ended == [False] * 8 + [True, True]
    assert end.seen_at == 6


def test_end_of_speech_compares_in_float32_as_torch_does() -> None:
    """A logit a hair above the threshold in float64 but equal in float32 does not end it."""
    threshold = -4.0
    hair = np.nextafter(threshold, 0.0)  # above in float64, -4.0 in float32
    assert np.float32(hair) == np.float32(threshold)
    end = EndOfSpeech(threshold, min_frames=0, after=0)
    assert not end.ends_at(0, hair)
    assert end.ends_at(1, np.float32(-3.99))


def test_no_end_of_speech_never_ends() -> None:
    end = EndOfSpeech(threshold=1e9, min_frames=6, after=1)
    assert not any(end.ends_at(step, 100.0) for step in range(300))
