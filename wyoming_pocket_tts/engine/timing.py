"""Timing a generation: seconds to the first audio, and the real-time factor after it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pocket_tts import TTSModel

TEXT = "The living room lights are on, and the front door is locked for the night."
"""What the timed generations say (long enough never to end before `FRAMES`)."""
FRAMES = 10
"""Frames (80 ms each) per timed generation: 0.8 s of audio (the comparison times up to 8)."""
SAMPLES_PER_FRAME = 1920


@dataclass(frozen=True)
class Speed:
    """One timed generation."""

    first_audio: float
    """Seconds from the call to the first audio chunk."""
    rtf: float
    """Real-time factor after the first chunk: seconds of audio per second of generation."""

    def __str__(self) -> str:
        return f"first audio {self.first_audio * 1000:.0f} ms, RTF {self.rtf:.2f}x"


def time_generation(model: TTSModel, frames: int, text: str = TEXT) -> Speed:
    """Generate `frames` frames of `text` with an empty voice, as the engine would, and time it."""
    from pocket_tts.modules.stateful_module import init_states

    state = init_states(model.flow_lm, batch_size=1, sequence_length=0)
    stop = threading.Event()
    first_at: float | None = None
    first_samples = samples = 0
    with random_state_kept():
        started = time.perf_counter()
        stream = model.generate_audio_stream(state, text, stop=stop, copy_state=False)
        try:
            for audio in stream:
                if first_at is None:
                    first_at = time.perf_counter()
                    first_samples = audio.shape[-1]
                samples += audio.shape[-1]
                if samples >= frames * SAMPLES_PER_FRAME:
                    break
            ended = time.perf_counter()
        finally:
            stop.set()
            for _ in stream:  # let pocket-tts's two threads finish before anything else runs
                pass
    if first_at is None:
        raise RuntimeError("the model generated no audio")
    steady = (samples - first_samples) / model.sample_rate
    rtf = steady / (ended - first_at) if samples > first_samples else float("nan")
    return Speed(first_at - started, rtf)


@contextmanager
def random_state_kept() -> Iterator[None]:
    """Put torch's random generator back as it was: a generation cut short samples a number of
    frames that varies from run to run, and must not change what later requests sample."""
    import torch

    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)
