"""One reply's audio as the household shaped it: lead-in, pauses, rate and a tail, as PCM.

The engine thread owns one `ReplyShaper` per reply and calls it in the order audio is due:
`begin` before each generation (a sentence or a pocket-tts chunk), `audio` for every chunk
pocket-tts yields, `end` after the generation, and `pause` for an SSML break; the reply's
`tail` once it is whole. Each returns the PCM bytes to send now (maybe empty). The first bytes
of the reply carry the lead-in silence, and a reply that sent audio ends with the trailing one;
every generation after the first is preceded by the sentence pause unless an explicit pause
already separates them.

Each generation's last 5 ms fade out, as each one's first 5 ms fade in (pocket-tts and the
graphs' loop do that): a generation stops wherever its last frame left the waveform, and what
follows it starts at zero (the next generation, a pause, the trailing silence, the reply's end),
so without the fade every sentence would end on a step, a click. The shaper holds each
generation's last 5 ms back until the next chunk or `end` (the first audio leaves no later).
Speed 1.0 leaves every other sample exactly as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..settings import MAX_SPEED, MIN_SPEED, SAMPLE_RATE, SpeechSettings
from .pcm import to_pcm16
from .rate import SpeedChanger
from .silence import silence

if TYPE_CHECKING:
    import torch

FADE_OUT_MS = 5
"""How long each generation's end fades out: pocket-tts's fade-in (`sample_rate // 200`)."""


class ReplyShaper:
    """Lead-in, pauses, rate and tail for one reply; not thread-safe (the engine thread's, or
    the scheduler's under its lock once the engine is done with the reply)."""

    def __init__(
        self,
        speech: SpeechSettings,
        speed: float,
        gain: float | None = None,
        sample_rate: int = SAMPLE_RATE,
    ) -> None:
        """`speed`: the voice's (`SpeechSettings.speed_for`); `gain`: its loudness gain."""
        self._speech = speech
        self._speed = speed
        self.gain = gain
        """Loudness gain of the voice speaking now (the engine sets it per generation)."""
        self._sample_rate = sample_rate
        self._lead_due = speech.lead_silence_ms > 0
        self._sent = False  # any audio of this reply went out
        self._generations = 0
        self._paused = False  # an explicit pause since the last generation
        self._changer: SpeedChanger | None = None
        self._fade_out = np.linspace(1, 0, sample_rate * FADE_OUT_MS // 1000, dtype=np.float32)
        self._held = np.zeros(0, dtype=np.float32)  # the generation's last samples so far

    def begin(self, rate: float = 1.0) -> bytes:
        """A generation starts; `rate` is its SSML `<prosody rate>` factor. Returns the
        sentence pause due before it."""
        self._changer = None
        self._held = np.zeros(0, dtype=np.float32)  # a stopped generation's end is not heard
        speed = min(MAX_SPEED, max(MIN_SPEED, self._speed * rate))
        if speed != 1.0:
            self._changer = SpeedChanger(speed, self._sample_rate)
        due = self._generations > 0 and not self._paused
        self._generations += 1
        self._paused = False
        return self._out(silence(self._speech.sentence_pause_ms, self._sample_rate) if due else b"")

    def audio(self, samples: torch.Tensor | np.ndarray) -> bytes:
        """A chunk from pocket-tts: its PCM at the reply's rate (maybe empty while the rate
        changer gathers its look-ahead)."""
        if not isinstance(samples, np.ndarray):
            samples = samples.detach().cpu().numpy()
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self._changer is not None:
            samples = self._changer.process(samples)
        held = np.concatenate((self._held, samples))
        keep = held.size - self._fade_out.size
        if keep <= 0:
            self._held = held
            return b""
        self._held = held[keep:]
        return self._out(to_pcm16(held[:keep], self.gain))

    def end(self) -> bytes:
        """The generation ended: the rest the rate changer held, and its last 5 ms faded out."""
        changer, self._changer = self._changer, None
        rest = changer.flush() if changer is not None else np.zeros(0, dtype=np.float32)
        last = np.concatenate((self._held, rest))
        self._held = np.zeros(0, dtype=np.float32)
        if not last.size:
            return b""
        fade = self._fade_out[-last.size :]
        last[-fade.size :] *= fade
        return self._out(to_pcm16(last, self.gain))

    def pause(self, ms: int) -> bytes:
        """An explicit pause (SSML `<break>`, `<p>`): that much silence, instead of the
        sentence pause."""
        self._paused = True
        return self._out(silence(ms, self._sample_rate))

    def tail(self) -> bytes:
        """The reply is whole (not stopped): the trailing silence, if it sent any audio."""
        if not self._sent:
            return b""
        self._sent = False  # once
        return silence(self._speech.trail_silence_ms, self._sample_rate)

    def _out(self, pcm: bytes) -> bytes:
        self._sent = self._sent or bool(pcm)
        if self._lead_due and pcm:
            self._lead_due = False
            return silence(self._speech.lead_silence_ms, self._sample_rate) + pcm
        return pcm
