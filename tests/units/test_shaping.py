"""ReplyShaper: lead-in, sentence pauses, SSML breaks and rate over one reply's chunks, on
numpy signals and on the real chunks a tiny random Pocket-TTS model yields."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import FADE_SAMPLES as FADE
from testkit.support import faded_out
from wyoming_pocket_tts.audio.pcm import to_pcm16
from wyoming_pocket_tts.audio.rate import change_speed
from wyoming_pocket_tts.audio.shaping import ReplyShaper
from wyoming_pocket_tts.settings import SpeechSettings

SR = 24000
CHUNK = 1920


def chunks(seconds: float = 1.0, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    signal = (0.2 * np.sin(np.arange(int(SR * seconds)) * 0.05) + rng.normal(0, 0.01)).astype(
        np.float32
    )
    return [signal[i : i + CHUNK] for i in range(0, signal.size, CHUNK)]


def speak(shaper: ReplyShaper, pieces: list[np.ndarray], rate: float = 1.0) -> list[bytes]:
    """One generation: begin, every chunk, end; the bytes of each call."""
    return [shaper.begin(rate), *(shaper.audio(piece) for piece in pieces), shaper.end()]


def test_defaults_leave_the_samples_as_they_were_but_each_generations_last_5_ms() -> None:
    pieces = chunks()
    shaper = ReplyShaper(SpeechSettings(), speed=1.0)
    out = speak(shaper, pieces) + speak(shaper, pieces)
    assert b"".join(out) == to_pcm16(faded_out(np.concatenate(pieces))) * 2


@pytest.mark.parametrize("speed", [1.0, 1.3])
def test_each_generation_ends_on_a_5_ms_ramp_down_to_zero(speed: float) -> None:
    """A generation stops wherever its waveform is; the next one (or the pause) starts at 0."""
    steady = [np.full(CHUNK, 0.5, dtype=np.float32)] * 3
    shaper = ReplyShaper(SpeechSettings(), speed=speed)
    out = np.frombuffer(b"".join(speak(shaper, steady)), "<i2")
    assert out[-1] == 0
    expected = np.frombuffer(to_pcm16(np.float32(0.5) * np.linspace(1, 0, FADE)), "<i2")
    assert np.abs(out[-FADE:].astype(int) - expected).max() <= 1  # WSOLA's sums round
    assert out[-FADE - 1] >= 16383 - 1  # the ramp only


def test_a_generation_shorter_than_the_fade_still_ends_at_zero() -> None:
    shaper = ReplyShaper(SpeechSettings(), speed=1.0)
    assert shaper.begin() == b"" and shaper.audio(np.full(50, 0.5, np.float32)) == b""
    expected = np.float32(0.5) * np.linspace(1, 0, FADE, dtype=np.float32)[-50:]
    assert shaper.end() == to_pcm16(expected)


def test_lead_in_rides_on_the_first_chunk_only() -> None:
    pieces = chunks()
    shaper = ReplyShaper(SpeechSettings(lead_silence_ms=250), speed=1.0, gain=2.0)
    out = speak(shaper, pieces)
    assert out[0] == b""  # no extra event before the audio
    lead = bytes(2 * 6000)
    assert out[1] == lead + to_pcm16(pieces[0][:-FADE], 2.0)  # its last 5 ms wait for the end
    assert out[2] == to_pcm16(np.concatenate((pieces[0][-FADE:], pieces[1][:-FADE])), 2.0)


def test_tail_once_after_a_reply_that_sent_audio() -> None:
    shaper = ReplyShaper(SpeechSettings(trail_silence_ms=250), speed=1.0)
    assert shaper.tail() == b""  # nothing was said: no silence to pad
    shaper.begin()
    assert shaper.audio(np.full(480, 0.1, dtype=np.float32))
    assert shaper.tail() == bytes(2 * 6000)
    assert shaper.tail() == b""


def test_sentence_pause_between_generations_unless_a_break_separates_them() -> None:
    pieces = chunks(0.2)
    shaper = ReplyShaper(SpeechSettings(sentence_pause_ms=300), speed=1.0)
    pause = bytes(2 * 7200)
    assert speak(shaper, pieces)[0] == b""
    assert speak(shaper, pieces)[0] == pause
    assert shaper.pause(1000) == bytes(2 * SR)
    assert speak(shaper, pieces)[0] == b""  # the break is the pause


def test_rate_per_generation_matches_the_whole_signal_change() -> None:
    pieces = chunks(2.0)
    shaper = ReplyShaper(SpeechSettings(speed=1.25), speed=1.25)
    out = b"".join(speak(shaper, pieces))
    whole = change_speed(np.concatenate(pieces), 1.25, SR)
    assert out == to_pcm16(faded_out(whole))


@pytest.mark.parametrize(("speed", "rate", "factor"), [(1.6, 1.5, 2.0), (0.8, 0.5, 0.5)])
def test_prosody_rate_multiplies_the_voice_speed_within_bounds(
    speed: float, rate: float, factor: float
) -> None:
    pieces = chunks(1.0)
    shaper = ReplyShaper(SpeechSettings(), speed=speed)
    samples = len(b"".join(speak(shaper, pieces, rate))) // 2
    assert samples == round(SR / factor)


def test_real_pocket_tts_chunks_are_stretched_and_led_in(
    tiny_model: TinyModel, tmp_path: Path
) -> None:
    """The tiny model's own chunks (random weights: the content is noise, the framing real)."""
    model = tiny_model.load()
    state = model.get_state_for_audio_prompt(write_voice_wav(tmp_path / "v.wav", 1.0))
    pieces = [chunk.numpy() for chunk in model.generate_audio_stream(state, "Hello there.")]
    samples = sum(piece.size for piece in pieces)
    assert pieces and samples > 0
    shaper = ReplyShaper(SpeechSettings(lead_silence_ms=100), speed=0.8)
    out = speak(shaper, pieces)
    first = next(part for part in out if part)
    assert first[: 2 * 2400] == bytes(2 * 2400)
    assert len(b"".join(out)) // 2 == 2400 + round(samples / 0.8)
