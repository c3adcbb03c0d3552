"""A voice prompt's audio as pocket-tts's `get_state_for_audio_prompt` prepares it, in numpy
alone (no torch, no scipy): read from any format soundfile decodes, mono, its first
`MAX_PROMPT_SECONDS`, at the model's rate (`audio.resample`, scipy's `resample_poly` as
pocket-tts's `convert_audio` runs it), then ended on a pause (`end_on_pause`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from .resample import resample

_LOGGER = logging.getLogger(__name__)

MAX_PROMPT_SECONDS = 30
"""Longer prompts are cut (pocket-tts's `truncate`): more audio adds cost, not likeness."""


def read_prompt(path: Path, sample_rate: int, name: str) -> np.ndarray:
    """The first `MAX_PROMPT_SECONDS` of `path`, mono, at `sample_rate`: (1, samples) float32,
    as the torch runtime gives it to pocket-tts (`engine.model.runtime`). ValueError if the
    file holds no audio; soundfile's error if it cannot be read."""
    import soundfile

    with soundfile.SoundFile(str(path)) as audio_file:
        limit = MAX_PROMPT_SECONDS * audio_file.samplerate
        if audio_file.frames > limit:
            seconds = audio_file.frames / audio_file.samplerate
            _LOGGER.info("Voice %s: the prompt is %.0f s long; using its first 30 s", name, seconds)
        data = audio_file.read(frames=limit, dtype="float32", always_2d=True)
        rate = audio_file.samplerate
    if data.size == 0:
        raise ValueError(f"{path} holds no audio")
    mono = data.mean(axis=1)[None]
    return mono if rate == sample_rate else resample(mono, rate, sample_rate)


def end_on_pause(
    wav: np.ndarray,
    sample_rate: int,
    pause_sec: float = 0.08,
    fade_sec: float = 0.02,
    floor_db: float = 35.0,
) -> np.ndarray:
    """pocket-tts's `end_on_pause` (`data.audio_utils`) on float32 `wav` (..., samples): the
    trailing silence (20 ms frames more than `floor_db` below the loudest) cut, the last
    `fade_sec` of what remains faded out, `pause_sec` of zeros appended (a prompt that stops on
    speech makes the model continue it; one on a long silence delays the onset)."""
    frame = max(1, int(0.02 * sample_rate))
    n = wav.shape[-1] // frame
    if n == 0:
        return wav
    frames = wav[..., : n * frame].reshape(-1, n, frame).astype(np.float32)
    rms = np.sqrt(np.square(frames).mean(axis=(0, 2), dtype=np.float32))
    db = 20 * np.log10(rms + np.float32(1e-12))
    loud = np.flatnonzero(db > db.max() - np.float32(floor_db))
    end = (int(loud[-1]) + 1) * frame
    kept = np.array(wav[..., :end], np.float32)
    fade = min(int(fade_sec * sample_rate), end)
    kept[..., end - fade :] *= np.linspace(1, 0, fade, dtype=np.float32)
    pause = np.zeros((*wav.shape[:-1], int(pause_sec * sample_rate)), np.float32)
    return np.concatenate([kept, pause], axis=-1)
