"""Reading voice prompts from audio files of any format soundfile decodes, for torch.

pocket-tts reads WAV files with the standard `wave` module, which rejects 32-bit float WAVs (what
many editors export). Every audio prompt is therefore decoded by `audio.prompt_reading` (with
soundfile, mixed to mono, cut to 30 s and resampled in numpy as pocket-tts's `convert_audio`
resamples), the reader the graphs' own voice encoding uses too.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...audio import prompt_reading

if TYPE_CHECKING:
    import torch


def read_prompt(path: Path, sample_rate: int, name: str) -> torch.Tensor:
    """The first 30 s of `path` as a mono [1, samples] tensor at `sample_rate`."""
    import torch

    return torch.from_numpy(prompt_reading.read_prompt(path, sample_rate, name))
