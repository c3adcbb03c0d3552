"""Conversion of pocket-tts audio (float tensors in [-1, 1]) to the PCM Wyoming carries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .loudness import apply_gain

if TYPE_CHECKING:
    import torch


def to_pcm16(samples: torch.Tensor | np.ndarray, gain: float | None = None) -> bytes:
    """Encode as signed 16-bit little-endian PCM.

    With a `gain` (the voice's loudness correction), the samples are scaled and peak-limited
    first; without one they are only clipped to [-1, 1], exactly as pocket-tts made them.
    Numpy input is accepted too: the speaking-rate changer (`audio.rate`) works on numpy.
    """
    if gain is None:
        if not isinstance(samples, np.ndarray):
            samples = samples.detach().cpu().numpy()
        array = np.asarray(samples, dtype=np.float32)
    else:
        array = apply_gain(samples, gain)
    return (np.clip(array, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
