"""Every voice at the target loudness from its first chunk, no clipping, gains kept across restarts.

With random weights the output level does not follow the prompt (three prompts 40 dB apart come out
equally loud), so these tests check the level against the target itself, measured with BS.1770
(the server's own measure, `integrated_loudness`) on the PCM the client receives. Each such figure
is also held to pyloudnorm's (the measure up to 0.9) within issue 62's 0.1 LU: real model output
beside the synthetic signals of tests/units/test_loudness_measure.py.
"""

from __future__ import annotations

import asyncio
import logging
import math
import shutil
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile
from pocket_tts import TTSModel

from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import Reply, faded_out, running_server, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.audio.loudness import (
    CEILING,
    KNEE,
    apply_gain,
    gain_for,
    integrated_loudness,
    limit_peaks,
)
from wyoming_pocket_tts.audio.pcm import to_pcm16

RATE = 24000
TEXT = "Turn off the kitchen light."
LONG_TEXT = "Good morning, the coffee is ready and it will rain this afternoon."


def samples_of(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32767.0


def measured(samples: np.ndarray) -> float:
    """`integrated_loudness`, after checking it against pyloudnorm's figure (0.1 LU)."""
    loudness = integrated_loudness(samples, RATE)
    assert loudness == pytest.approx(pyloudnorm.Meter(RATE).integrated_loudness(samples), abs=0.1)
    return loudness


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three prompts of one synthetic speaker, at 0, -20 and -40 dB (a second each: encoding
    time grows with the prompt, and nothing here depends on its length)."""
    folder = tmp_path_factory.mktemp("prompts")
    source = write_voice_wav(folder / "source.wav", 1.0, seed=31)
    audio, rate = soundfile.read(source, dtype="float32")
    voices = {}
    for name, db in (("loud", 0), ("middle", -20), ("quiet", -40)):
        voices[name] = folder / f"{name}.wav"
        soundfile.write(voices[name], audio * 10 ** (db / 20), rate, subtype="FLOAT")
    return voices


def _replies(
    args: list[str], names: list[str], caplog: pytest.LogCaptureFixture
) -> dict[str, Reply]:
    """Start a fresh server in this process (a restart when `args` name the same data folder:
    nothing else is shared), have each voice say TEXT, stop it. Its log is `caplog.text`."""

    async def scenario() -> dict[str, Reply]:
        async with running_server(args) as server:
            return {name: await synthesize(server.port or 0, TEXT, voice=name) for name in names}

    caplog.clear()
    replies = asyncio.run(scenario())
    for name, reply in replies.items():
        assert reply.audio and not reply.errors, name
    return replies


def _levels(replies: dict[str, Reply]) -> dict[str, float]:
    return {name: measured(samples_of(r.audio)) for name, r in replies.items()}


def test_voices_reach_the_target_and_restarts_keep_their_gains(
    slim_model: TinyModel,
    prompts: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three starts on one data folder, in this process (no torch import per start)."""
    caplog.set_level(logging.INFO)
    data = ["--data-dir", str(tmp_path / "data"), "--voice-cache-size", "4"]

    def args(voices: dict[str, Path], loudness: str) -> list[str]:
        return model_args(slim_model, voices, *data, "--loudness", loudness)

    levels = _levels(_replies(args(prompts, "-20"), list(prompts), caplog))
    assert caplog.text.count("Calibrated voice") == 3
    assert all(abs(level + 20) <= 1 for level in levels.values()), levels

    # A .safetensors voice state (here: one the server saved) is measured once too.
    (saved, *_) = sorted((tmp_path / "data" / "voice-states").glob("*.safetensors"))
    state = shutil.copy(saved, tmp_path / "state.safetensors")
    voices = {**prompts, "state": Path(state)}
    levels = _levels(_replies(args(voices, "-14"), list(voices), caplog))
    assert caplog.text.count("Calibrated voice") == 1 and "Calibrated voice state" in caplog.text
    assert all(abs(level + 14) <= 1 for level in levels.values()), levels

    replies = _replies(args(voices, "-5"), list(voices), caplog)
    assert "Calibrated voice" not in caplog.text, "stored loudness must be reused"
    for reply in replies.values():
        pcm = np.frombuffer(reply.audio, dtype="<i2")
        assert np.abs(pcm.astype(np.int32)).max() < 32767, "a sample reached full scale"
        assert measured(samples_of(reply.audio)) > -12  # the gain was applied


def _fingerprint(state: object) -> float:
    """A number that tells voice states apart (the sum of their tensors)."""
    if isinstance(state, dict):
        return sum(_fingerprint(value) for value in state.values())
    if hasattr(state, "double"):
        return float(state.double().sum())  # type: ignore[attr-defined]
    return 0.0


def test_voices_of_different_raw_loudness_each_get_their_own_gain(
    slim_model: TinyModel,
    voices: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Random weights speak every voice equally loud, so a spy on the real
    `generate_audio_stream` makes the second voice state it sees 10 dB quieter, in calibration
    and in speech alike; both must still come out at the target. A data folder of its own: a
    gain another test measured and saved would skip the calibration the spy must see."""
    real = TTSModel.generate_audio_stream
    seen: list[float] = []

    def spy(self: TTSModel, state: dict, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        fingerprint = round(_fingerprint(state), 3)
        if fingerprint not in seen:
            seen.append(fingerprint)
        factor = 10 ** (-10 / 20) if seen.index(fingerprint) == 1 else 1.0
        for chunk in real(self, state, *args, **kwargs):  # type: ignore[arg-type]
            yield chunk * factor

    monkeypatch.setattr(TTSModel, "generate_audio_stream", spy)

    async def levels() -> dict[str, float]:
        args = model_args(slim_model, voices, "--loudness", "-20", "--data-dir", str(tmp_path))
        async with running_server(args) as server:
            replies = {n: await synthesize(server.port or 0, TEXT, voice=n) for n in ("a", "b")}
        return {n: measured(samples_of(r.audio)) for n, r in replies.items()}

    found = asyncio.run(levels())
    assert len(seen) >= 2, "two voice states were used"
    assert all(abs(level + 20) <= 1 for level in found.values()), found


def test_the_first_half_second_is_as_loud_as_the_rest(
    endless_model: TinyModel, voices: dict[str, Path]
) -> None:
    """The gain is known before the first chunk: nothing is learned while speaking (at the
    default target, -20 LUFS)."""

    async def scenario() -> Reply:
        async with running_server(model_args(endless_model, voices)) as server:
            return await synthesize(server.port or 0, LONG_TEXT, voice="a")

    audio = samples_of(asyncio.run(scenario()).audio)
    first, rest = audio[: RATE // 2], audio[RATE // 2 :]
    assert rest.size >= 2 * RATE, "the endless model speaks seconds for this text"
    assert abs(measured(rest) + 20) <= 1
    assert abs(measured(first) - measured(rest)) <= 1.5


def test_loudness_off_leaves_pocket_tts_samples_untouched(
    slim_model: TinyModel, voices: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spy on the real `generate_audio_stream` records what pocket-tts yields to the engine;
    the client must receive exactly those samples as 16-bit PCM, but for the generation's last
    5 ms faded out (and not with loudness on)."""
    produced: list[np.ndarray] = []
    real = TTSModel.generate_audio_stream

    def spy(self: TTSModel, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for chunk in real(self, *args, **kwargs):  # type: ignore[arg-type]
            # Random weights never reach the limiter's knee: make every chunk peak at 0.95.
            chunk = chunk * (0.95 / max(float(chunk.abs().max()), 1e-6))
            produced.append(chunk.detach().numpy().copy())
            yield chunk

    monkeypatch.setattr(TTSModel, "generate_audio_stream", spy)

    async def received(loudness: str) -> tuple[bytes, bytes]:
        async with running_server(model_args(slim_model, voices, "--loudness", loudness)) as server:
            produced.clear()
            reply = await synthesize(server.port or 0, TEXT, voice="b")
            raw = faded_out(np.concatenate(produced))  # one generation
            return reply.audio, (np.clip(raw, -1, 1) * 32767.0).astype("<i2").tobytes()

    audio, untouched = asyncio.run(received("off"))
    assert audio == untouched
    assert np.abs(np.frombuffer(audio, "<i2")).max() > KNEE * 32767, "the limiter was not reached"
    audio, untouched = asyncio.run(received("-20"))
    assert len(audio) == len(untouched) and audio != untouched


# Pure functions: the limiter and the gain.


def test_limiter_keeps_every_sample_below_full_scale_and_quiet_ones_unchanged() -> None:
    rng = np.random.default_rng(0)
    speech = (rng.standard_normal(48000) * 0.1).astype(np.float32)
    loud = apply_gain(speech, 30.0)
    assert np.abs(loud).max() < 1.0 and np.abs(loud).max() <= CEILING
    quiet = np.abs(speech * 30.0) <= KNEE
    assert np.array_equal(loud[quiet], (speech * np.float32(30.0))[quiet])
    ramp = np.linspace(-50, 50, 10001, dtype=np.float32)
    assert np.all(np.diff(limit_peaks(ramp)) > -1e-7), "the curve must be monotonic"
    assert to_pcm16(np.full(10, 10.0, np.float32), 1.0) != b"\xff\x7f" * 10  # type: ignore[arg-type]


def test_gain_for_rejects_silence_and_absurd_levels(caplog: pytest.LogCaptureFixture) -> None:
    assert integrated_loudness(np.zeros(RATE), RATE) == -math.inf
    assert gain_for(-math.inf, -20, "mute") == 1.0
    assert gain_for(-95.0, -20, "whisper") == 1.0
    assert caplog.text.count("left as it is") == 2 and "mute" in caplog.text
    assert gain_for(-26.0, -20, "ok") == pytest.approx(10 ** (6 / 20))
