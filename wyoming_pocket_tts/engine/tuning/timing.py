"""Timing generations the way requests are served: first audio, and the real-time factor.

Each timed text goes through the engine's path: cut into pieces as the engine cuts it
(`chunking`), one pocket-tts `generate_audio_stream` per piece with its own two threads and a
copied voice state, every chunk converted to 16-bit PCM. Two real sentences: `SHORT_TEXT`, the
length a reply's first audio comes from, timed to its first chunk; and `LONG_TEXT`, a few
seconds, whose steady rate after its first chunk is the real-time factor (RTF). The voice is
empty: the voices are not loaded yet when the model is tuned (`warm_up` covers a real one).
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from ...audio.pcm import to_pcm16
from ..chunking import chunks
from ..runtime import Runtime, generation

T = TypeVar("T")

SHORT_TEXT = "Okay, the kitchen lights are on."
"""A first sentence of a typical reply: the listener waits for its first audio."""
LONG_TEXT = "The living room lights are on, and the front door is locked for the night."
"""A sentence of a few seconds: its rate after the first chunk is the real-time factor."""
FRAMES = 20
"""Most frames (80 ms each) timed of `LONG_TEXT`: 1.6 s of its ~4 s of speech (random weights
never end it), enough for a steady rate while the whole comparison fits a first start."""
SAMPLES_PER_FRAME = 1920


@dataclass(frozen=True)
class Speed:
    """One timed generation."""

    first_audio: float
    """Seconds from the call to the first audio chunk."""
    rtf: float
    """Real-time factor after the first chunk: seconds of audio per second of generation; NaN
    when the speech ended with its first chunk (nothing after it to time)."""

    @property
    def rtf_known(self) -> bool:
        return not math.isnan(self.rtf)

    def __str__(self) -> str:
        rtf = f"RTF {self.rtf:.2f}x" if self.rtf_known else "RTF not measured"
        return f"first audio {self.first_audio * 1000:.0f} ms, {rtf}"


class Abandoned(Exception):
    """A timed generation was cut short by its `cancel` event (a request came)."""


def interleaved(items: Sequence[T], rounds: int) -> Iterator[list[T]]:
    """Each round's order: `items` as given, then reversed, and so on (A B, B A, ...), so that
    a drift in the host's load falls on every item alike."""
    for number in range(rounds):
        yield list(items) if number % 2 == 0 else list(reversed(items))


def time_serving(model: Runtime, frames: int, cancel: threading.Event | None = None) -> Speed:
    """First audio of `SHORT_TEXT` and RTF of `LONG_TEXT` (at most `frames` frames), served."""
    first_audio, _ = serve(model, SHORT_TEXT, 1, cancel)
    _, rtf = serve(model, LONG_TEXT, max(frames, 2), cancel)
    return Speed(first_audio, rtf)


def serve(
    model: Runtime, text: str, frames: int, cancel: threading.Event | None = None
) -> tuple[float, float]:
    """Speak `text` as the engine would, up to `frames` frames: (seconds to the first audio,
    RTF after the first chunk, NaN if there was none after it). Once `cancel` is set the
    generation stops within a frame and `Abandoned` is raised."""
    state = model.empty_state()
    limit = frames * SAMPLES_PER_FRAME
    first_at: float | None = None
    first_samples = samples = 0
    with random_state_kept():
        started = time.perf_counter()
        for piece in chunks(model, text):
            with generation(model, state, piece) as stream:
                for audio in stream:
                    if cancel is not None and cancel.is_set():
                        raise Abandoned
                    to_pcm16(audio, None)
                    if first_at is None:
                        first_at = time.perf_counter()
                        first_samples = audio.shape[-1]
                    samples += audio.shape[-1]
                    if samples >= limit:
                        break
                ended = time.perf_counter()
            if cancel is not None and cancel.is_set():
                raise Abandoned
            if samples >= limit:
                break
    if first_at is None:
        raise RuntimeError("the model generated no audio")
    steady = (samples - first_samples) / model.sample_rate
    rtf = steady / (ended - first_at) if samples > first_samples else math.nan
    return first_at - started, rtf


@contextmanager
def random_state_kept() -> Iterator[None]:
    """Put torch's random generator back as it was: a generation cut short samples a number of
    frames that varies from run to run, and must not change what later requests sample. (The
    graphs' own loop draws from a generator of its own, seeded by nothing: nothing to keep.)"""
    torch = sys.modules.get("torch")
    if torch is None:  # never imported: nothing has drawn from it
        yield
        return
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)
