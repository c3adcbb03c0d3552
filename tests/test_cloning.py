"""Cloned voices when the model was loaded without its voice-cloning weights.

The server is started as a user would start it (`--language`, `HF_HUB_OFFLINE=1`) on a Hugging
Face cache laid out by `build_hf_cache`: once with only the weights without voice cloning (the
gated repo absent, as for a user without a token), once with the gated weights. Which voice spoke
is judged by content: servers are seeded alike (`ServerProcess(seed=...)`), so the first request
of two servers started with the same flags gets the same sampling noise, and only the voice state
can make the samples differ.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from wyoming_pocket_tts.voices.cloning import MODEL_PAGE
from wyoming_pocket_tts.voices.store import VoiceStateStore

from .model_factory import DEFAULT_CACHE_NAME, build_hf_cache, write_voice_wav
from .support import (
    AUDIO_STOP,
    ServerProcess,
    describe,
    synthesize,
    synthesize_streamed,
)

LANGUAGE = "english_2m_2026-10"
TEXT = "Dinner is ready."
SEED = 1234


@dataclass(frozen=True)
class Household:
    """A configured cloned voice (`me`), one in a voices folder (`grandma`), and `alba`."""

    me: Path
    folder: Path

    def args(self, data_dir: Path) -> list[str]:
        return [
            *("--language", LANGUAGE, "--voice", "alba", "--voice", f"me={self.me}"),
            *("--voices-dir", str(self.folder), "--data-dir", str(data_dir)),
        ]


@pytest.fixture(scope="module")
def household(tmp_path_factory: pytest.TempPathFactory) -> Household:
    root = tmp_path_factory.mktemp("household")
    write_voice_wav(root / "voices" / "grandma.wav", 1.5, seed=21)
    return Household(write_voice_wav(root / "me.wav", 1.5, seed=22), root / "voices")


def _hub(tmp_path_factory: pytest.TempPathFactory, voice_cloning: bool) -> dict[str, str]:
    hf_home = tmp_path_factory.mktemp("hf")
    cache = tmp_path_factory.getbasetemp() / DEFAULT_CACHE_NAME
    build_hf_cache(
        hf_home, language=LANGUAGE, voices=("alba",), voice_cloning=voice_cloning, cache_dir=cache
    )
    return {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1", "HF_TOKEN": ""}


@pytest.fixture(scope="module")
def without_cloning(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _hub(tmp_path_factory, voice_cloning=False)


@pytest.fixture(scope="module")
def with_cloning(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _hub(tmp_path_factory, voice_cloning=True)


@dataclass
class FirstRequest:
    """What one freshly started, seeded server answered to its first request."""

    samples: np.ndarray
    types: list[str]
    errors: list[str]
    log: str
    saved: set[str]


def first_request(household: Household, env: dict[str, str], voice: str, tmp: Path) -> FirstRequest:
    """Start a seeded server, ask `voice` to say TEXT, stop it."""
    data = tmp / f"data-{voice}"
    with ServerProcess(household.args(data), tmp / f"{voice}.log", env=env, seed=SEED) as server:
        server.wait_for_log("Ready")
        reply = asyncio.run(synthesize(server.port, TEXT, voice=voice))
        assert server.stop() == 0
    saved = {path.name for path in (data / "voice-states").glob("*")}
    samples = np.frombuffer(reply.audio, dtype="<i2").astype(np.int32)
    errors = [error.text for error in reply.errors]
    return FirstRequest(samples, reply.types, errors, server.log, saved)


def same_voice(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to a rare 1-LSB rounding difference (torch's threads may sum in another order)."""
    print(
        "SAMEVOICE", a.shape, b.shape, a.shape == b.shape and (np.abs(a - b).max(), np.mean(a != b))
    )
    return a.shape == b.shape and np.abs(a - b).max() <= 1 and np.mean(a != b) < 0.01


def test_cloned_voices_are_refused_without_the_cloning_weights(
    household: Household, without_cloning: dict[str, str], tmp_path: Path
) -> None:
    """Four server starts (tens of seconds): each voice's first request is compared on a freshly
    started, seeded server, where no earlier request could have loaded or saved a state."""
    reference = first_request(household, without_cloning, "alba", tmp_path)
    assert reference.samples.size and not reference.errors
    assert "Voice cloning (en): NOT available" in reference.log
    assert "no Hugging Face token is set" in reference.log

    for voice in ("me", "grandma"):
        answer = first_request(household, without_cloning, voice, tmp_path)
        assert answer.types[-1] == AUDIO_STOP and not answer.errors, voice
        assert same_voice(answer.samples, reference.samples), f"{voice} was not spoken by alba"
        assert f"Voice {voice} cannot load" in answer.log and "using alba" in answer.log
        assert "Encoded voice" not in answer.log
        assert answer.saved == reference.saved, f"a state was saved for {voice}"
        assert f"Voice {voice} is not offered" in answer.log
        assert MODEL_PAGE in answer.log and "HF_TOKEN" in answer.log and "hf_token" in answer.log

    with ServerProcess(
        household.args(tmp_path / "data"), tmp_path / "s.log", env=without_cloning
    ) as server:
        server.wait_for_log("Ready")
        for _ in range(3):
            voices = asyncio.run(describe(server.port)).tts[0].voices
            assert {v.name: v.installed for v in voices} == {
                "alba": True,
                "me": False,
                "grandma": False,
            }
        streamed = asyncio.run(synthesize_streamed(server.port, ["Good ", "night."], "grandma"))
        assert streamed.audio and not streamed.errors
        assert streamed.types[-1] == "synthesize-stopped"
        assert server.stop() == 0
    for voice in ("me", "grandma"):
        assert server.log.count(f"Voice {voice} is not offered") == 1, "told once per voice"
    saved = sorted(path.suffix for path in (tmp_path / "data" / "voice-states").iterdir())
    assert saved == [".json"], "only the loudness of alba, the built-in voice, may be saved"


def test_cloned_voices_encode_with_the_cloning_weights(
    household: Household, with_cloning: dict[str, str], tmp_path: Path
) -> None:
    """Three server starts (tens of seconds), for the reason the test above gives."""
    reference = first_request(household, with_cloning, "alba", tmp_path)
    cloned = first_request(household, with_cloning, "me", tmp_path)
    assert "Voice cloning (en): available" in reference.log
    assert "Encoded voice me" in cloned.log and not cloned.errors
    assert not same_voice(cloned.samples, reference.samples), "the comparison cannot tell voices"

    with ServerProcess(
        household.args(tmp_path / "data"), tmp_path / "s.log", env=with_cloning
    ) as server:
        server.wait_for_log("Ready")
        voices = asyncio.run(describe(server.port)).tts[0].voices
        assert all(v.installed for v in voices) and len(voices) == 3
        reply = asyncio.run(synthesize(server.port, TEXT, voice="grandma"))
        assert reply.audio and not reply.errors
        assert server.stop() == 0
    assert "Encoded voice grandma" in server.log and "not offered" not in server.log
    assert len(list((tmp_path / "data" / "voice-states").glob("*.safetensors"))) == 2


def test_saved_state_key_tells_the_weights_apart_and_keeps_old_files(tmp_path: Path) -> None:
    store = VoiceStateStore(tmp_path, "model-id")
    capable = store.path_for("fingerprint", True, voice_cloning=True)
    # The name every saved state had before the weights' capability was part of the key.
    old = hashlib.sha256(b"model-id\0fingerprint\0True").hexdigest()[:40] + ".safetensors"
    assert capable.name == old
    assert store.path_for("fingerprint", True, voice_cloning=False) != capable
