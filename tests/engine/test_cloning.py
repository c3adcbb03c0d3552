"""Cloned voices when the model was loaded without its voice-cloning weights.

The server is started as a user would start it (`--language`, `HF_HUB_OFFLINE=1`) on a Hugging
Face cache laid out by `build_hf_cache`: once with only the weights without voice cloning (the
gated repo absent, as for a user without a token), once with the gated weights. Which voice spoke
is judged by content: the packaged config samples with noise, so the test server seeds torch's
generator before every generation (`RESEEDED`); the same text then gets the same noise whichever
request it is, and only the voice state can make the samples differ.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from testkit.model_factory import DEFAULT_CACHE_NAME, build_hf_cache, write_voice_wav
from testkit.support import (
    AUDIO_STOP,
    Reply,
    ServerProcess,
    describe,
    synthesize,
    synthesize_streamed,
)
from wyoming_pocket_tts.engine.children import voice as voice_child
from wyoming_pocket_tts.engine.voice_states.store import VoiceStateStore
from wyoming_pocket_tts.settings import ModelSettings
from wyoming_pocket_tts.voices.cloning import MODEL_PAGE, VoiceCloningUnavailable

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


RESEEDED = f"""
import torch
from pocket_tts import TTSModel

_generate = TTSModel.generate_audio_stream


def _reseeded(self, *args, **kwargs):
    torch.manual_seed({SEED})
    yield from _generate(self, *args, **kwargs)


TTSModel.generate_audio_stream = _reseeded
"""
"""Server prelude: the same sampling noise for every generation (calibrations included)."""

VOICES = ("alba", "me", "grandma")


def seeded_server(household: Household, env: dict[str, str], tmp: Path) -> ServerProcess:
    """A started server whose generations all draw the same noise (`RESEEDED`)."""
    server = ServerProcess(
        household.args(tmp / "data"), tmp / "server.log", env=env, prelude=RESEEDED
    )
    server.wait_for_log("Ready")
    return server


def samples_of(reply: Reply) -> np.ndarray:
    return np.frombuffer(reply.audio, dtype="<i2").astype(np.int32)


def same_voice(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal up to a rare 1-LSB rounding difference (torch's threads may sum in another order)."""
    return a.shape == b.shape and np.abs(a - b).max() <= 1 and np.mean(a != b) < 0.01


def test_cloned_voices_are_refused_without_the_cloning_weights(
    household: Household, without_cloning: dict[str, str], tmp_path: Path
) -> None:
    """Up to ~35 s on a busy host: a server process of its own (HF_HOME, read at import)."""
    with seeded_server(household, without_cloning, tmp_path) as server:
        replies = {v: asyncio.run(synthesize(server.port, TEXT, voice=v)) for v in VOICES}
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
    log = server.log

    reference = samples_of(replies["alba"])
    assert reference.size and not replies["alba"].errors
    assert "Voice cloning (en): NOT available" in log
    assert "no Hugging Face token is set" in log
    for voice in ("me", "grandma"):
        answer = replies[voice]
        assert answer.types[-1] == AUDIO_STOP and not answer.errors, voice
        assert same_voice(samples_of(answer), reference), f"{voice} was not spoken by alba"
        assert re.search(rf"Voice {voice} cannot load \(.*\): using alba", log), voice
        assert log.count(f"Voice {voice} is not offered") == 1, "told once per voice"
    assert "Encoded voice" not in log
    assert MODEL_PAGE in log and "HF_TOKEN" in log and "hf_token" in log
    saved = sorted(path.suffix for path in (tmp_path / "data" / "voice-states").iterdir())
    assert saved == [".json"], "only the loudness of alba, the built-in voice, may be saved"


def test_cloned_voices_encode_with_the_cloning_weights(
    household: Household, with_cloning: dict[str, str], tmp_path: Path
) -> None:
    """Up to ~35 s on a busy host: a server process of its own, encoding two cloned voices."""
    with seeded_server(household, with_cloning, tmp_path) as server:
        replies = {v: asyncio.run(synthesize(server.port, TEXT, voice=v)) for v in VOICES}
        voices = asyncio.run(describe(server.port)).tts[0].voices
        assert server.stop() == 0
    log = server.log

    assert all(v.installed for v in voices) and len(voices) == 3
    assert "Voice cloning (en): available" in log and "not offered" not in log
    for voice, reply in replies.items():
        assert reply.audio and not reply.errors, voice
    assert "Encoded voice me" in log and "Encoded voice grandma" in log
    cloned, reference = samples_of(replies["me"]), samples_of(replies["alba"])
    assert not same_voice(cloned, reference), "the comparison cannot tell voices"
    assert len(list((tmp_path / "data" / "voice-states").glob("*.safetensors"))) == 2


def test_saved_state_key_tells_the_weights_apart_and_keeps_old_files(tmp_path: Path) -> None:
    store = VoiceStateStore(tmp_path, "model-id")
    capable = store.path_for("fingerprint", True, voice_cloning=True)
    # The name every saved state had before the weights' capability was part of the key.
    old = hashlib.sha256(b"model-id\0fingerprint\0True").hexdigest()[:40] + ".safetensors"
    assert capable.name == old
    assert store.path_for("fingerprint", True, voice_cloning=False) != capable


def test_a_voice_child_says_by_its_exit_code_whether_the_weights_cannot_clone(
    household: Household,
    without_cloning: dict[str, str],
    with_cloning: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The child that encodes a voice for graphs without an encoder (`voice_child.in_child`): on
    the weights without cloning, its exit code (not its text) makes it the clear refusal; on
    the cloning weights, a file that is no audio is a failure with the child's reason."""
    settings = ModelSettings(model=LANGUAGE, config=None)
    for name, value in without_cloning.items():
        monkeypatch.setenv(name, value)  # the child's environment is this process's
    with pytest.raises(VoiceCloningUnavailable):
        voice_child.in_child(settings, household.me, True, "me")
    for name, value in with_cloning.items():
        monkeypatch.setenv(name, value)
    noise = tmp_path / "noise.wav"
    noise.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(voice_child.VoiceEncodingFailed, match="noise"):
        voice_child.in_child(settings, noise, True, "noise")
