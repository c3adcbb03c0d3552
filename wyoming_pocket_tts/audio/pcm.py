"""Conversion of pocket-tts audio (float tensors in [-1, 1]) to the PCM Wyoming carries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch


def to_pcm16(samples: torch.Tensor) -> bytes:
    """Clip to [-1, 1] and encode as signed 16-bit little-endian PCM."""
    array = samples.detach().cpu().numpy().astype(np.float32, copy=False)
    return (np.clip(array, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()
