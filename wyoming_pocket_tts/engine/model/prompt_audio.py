"""Reading voice prompts from audio files of any format soundfile decodes (the torch runtime's).

pocket-tts reads WAV files with the standard `wave` module, which rejects 32-bit float WAVs (what
many editors export). Every audio prompt is therefore decoded here with soundfile, mixed to mono,
cut to `MAX_PROMPT_SECONDS` and resampled with pocket-tts's own `convert_audio`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

_LOGGER = logging.getLogger(__name__)

MAX_PROMPT_SECONDS = 30
"""Longer prompts are cut (pocket-tts's `truncate`): more audio adds cost, not likeness."""


def read_prompt(path: Path, sample_rate: int, name: str) -> torch.Tensor:
    """The first `MAX_PROMPT_SECONDS` of `path` as a mono [1, samples] tensor at `sample_rate`."""
    import soundfile
    import torch
    from pocket_tts.data.audio_utils import convert_audio

    with soundfile.SoundFile(str(path)) as audio_file:
        limit = MAX_PROMPT_SECONDS * audio_file.samplerate
        if audio_file.frames > limit:
            seconds = audio_file.frames / audio_file.samplerate
            _LOGGER.info("Voice %s: the prompt is %.0f s long; using its first 30 s", name, seconds)
        data = audio_file.read(frames=limit, dtype="float32", always_2d=True)
        rate = audio_file.samplerate
    if data.size == 0:
        raise ValueError(f"{path} holds no audio")
    mono = torch.from_numpy(data.mean(axis=1)).unsqueeze(0)
    return convert_audio(mono, rate, sample_rate, 1)
