"""The graphs' loop's budgets, as pure functions: how many frames a text piece may run, how many
cache slots its request needs and how they grow, and when end of speech ends it.

Each is pocket-tts's rule (4.0.1, `TTSModel.generate_audio_stream` and `_generate`), kept apart
from the loop that runs the graphs (`onnx.loop`) so that it is tested once
(tests/units/test_onnx_plan.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .loop_settings import LoopSettings
from .voice_arrays import LM_SLOTS


def frame_budget(tokens: int, settings: LoopSettings) -> int:
    """The most frames a text piece of `tokens` tokens generates (pocket-tts's bound)."""
    seconds = tokens / settings.tokens_per_second + settings.padding_seconds
    return math.ceil(seconds * settings.frame_rate)


def slot_budget(used: int, tokens: int, frames: int) -> int:
    """Slots one text piece's LM caches need: the voice state's `used` steps, then its text
    prompt's `tokens` steps, then a step per frame, at most `frames` (its longest generation);
    never more than `LM_SLOTS`."""
    return min(used + tokens + frames, LM_SLOTS)


def grown_slots(end: int, slots: int) -> int:
    """The slots caches of `slots` grow to when a run must write up to step `end` (past them):
    twice as many, or `end`, at most `LM_SLOTS` (`CacheFull` is the caller's past it)."""
    return min(LM_SLOTS, max(end, 2 * slots))


def frames_after_eos(recommended: int | None, guess: int) -> int:
    """Frames still spoken after end of speech: the model's recommendation, else pocket-tts's
    guess for the text (`onnx.text_prompt.prepare_text_prompt`) plus two."""
    return recommended if recommended is not None else guess + 2


@dataclass
class EndOfSpeech:
    """pocket-tts's end-of-speech countdown over one text piece's frames: the EOS logit counts
    from frame `min_frames` on; once past `threshold` (compared in float32, as torch does),
    `after` more frames are spoken."""

    threshold: float
    min_frames: int
    after: int
    seen_at: int | None = None
    """The frame whose EOS logit first passed the threshold, once it has."""

    def ends_at(self, step: int, eos: float | np.floating) -> bool:
        """Whether frame `step`, whose EOS logit is `eos`, is past the end (not spoken)."""
        passed = np.float32(eos) > np.float32(self.threshold)
        if self.seen_at is None and step >= self.min_frames and passed:
            self.seen_at = step
        return self.seen_at is not None and step >= self.seen_at + self.after
