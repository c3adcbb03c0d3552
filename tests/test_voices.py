"""Household voices: saved voice states, the voices folder, and nothing else reachable."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import model_args
from .model_factory import TinyModel, write_voice_wav
from .support import AUDIO_STOP, ServerProcess, describe, running_server, synthesize


def _start(model: TinyModel, voices: dict[str, Path], tmp: Path, *extra: str) -> ServerProcess:
    tmp.mkdir(parents=True, exist_ok=True)
    server = ServerProcess(model_args(model, voices, "--debug", *extra), tmp / "server.log")
    server.wait_for_log("Ready")
    return server


def test_saved_state_is_loaded_on_the_next_start(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    with _start(tiny_model, {"a": voices["a"]}, tmp_path / "1", *data) as first:
        audio_first = asyncio.run(synthesize(first.port, "Hello there.")).audio
        assert "Encoded voice a" in first.log
        assert first.stop() == 0
    (saved,) = (tmp_path / "data" / "voice-states").glob("*.safetensors")

    with _start(tiny_model, {"a": voices["a"]}, tmp_path / "2", *data) as second:
        assert "Loaded voice a from its saved state" in second.log
        assert "Encoded voice" not in second.log
        assert len(asyncio.run(synthesize(second.port, "Hello there.")).audio) == len(audio_first)
        assert second.stop() == 0

    saved.write_bytes(saved.read_bytes()[:100])  # truncated, as after a power cut
    with _start(tiny_model, {"a": voices["a"]}, tmp_path / "3", *data) as third:
        assert "Discarding unreadable voice state" in third.log
        assert "Encoded voice a" in third.log
        assert asyncio.run(synthesize(third.port, "Hello there.")).audio
        assert third.stop() == 0
    assert saved.stat().st_size > 100  # written again


def test_changed_audio_gets_a_new_saved_state(tiny_model: TinyModel, tmp_path: Path) -> None:
    voice = write_voice_wav(tmp_path / "v.wav", 1.5, seed=3)
    data = ["--data-dir", str(tmp_path / "data")]
    with _start(tiny_model, {"v": voice}, tmp_path / "1", *data) as server:
        assert server.stop() == 0
    write_voice_wav(voice, 1.5, seed=4)
    with _start(tiny_model, {"v": voice}, tmp_path / "2", *data) as server:
        assert "Encoded voice v" in server.log
        assert server.stop() == 0
    assert len(list((tmp_path / "data" / "voice-states").glob("*.safetensors"))) == 2


def test_voices_folder_is_rescanned(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "voices"
    folder.mkdir()
    (folder / "broken.wav").write_bytes(b"RIFF, but not really")
    (folder / "notes.txt").write_text("not a voice")
    args = ["--voices-dir", str(folder)]
    with _start(tiny_model, {"a": voices["a"]}, tmp_path, *args) as server:

        def names() -> list[str]:
            return [v.name for v in asyncio.run(describe(server.port)).tts[0].voices]

        assert names() == ["a"]
        write_voice_wav(folder / "grandpa.flac", 1.5, seed=5)
        assert names() == ["a", "grandpa"]
        reply = asyncio.run(synthesize(server.port, "Good night.", voice="grandpa"))
        assert reply.audio and not reply.errors
        assert "Encoded voice grandpa" in server.log
        (folder / "grandpa.flac").unlink()
        assert names() == ["a"]
        assert server.log.count("Skipping voice file") == 1  # reported once, not per describe
        assert "broken.wav" in server.log
        assert server.stop() == 0


@pytest.mark.parametrize(
    ("name", "subtype"), [("v24.wav", "PCM_24"), ("vf.wav", "FLOAT"), ("v.mp3", "MPEG_LAYER_III")]
)
def test_other_audio_formats_load(tiny_model: TinyModel, tmp_path: Path, name: str, subtype: str):
    voice = write_voice_wav(tmp_path / name, 1.5, seed=6, subtype=subtype, sample_rate=44100)
    with _start(tiny_model, {"v": voice}, tmp_path) as server:
        assert asyncio.run(synthesize(server.port, "Testing.", voice="v")).audio
        assert server.stop() == 0


def test_long_prompt_is_truncated(tiny_model: TinyModel, tmp_path: Path) -> None:
    voice = write_voice_wav(tmp_path / "long.wav", 31.0, seed=7)
    with _start(tiny_model, {"long": voice}, tmp_path) as server:
        assert "the prompt is 31 s long; using its first 30 s" in server.log
        assert server.stop() == 0


HOSTILE_NAMES = [
    "../../etc/passwd",
    "/etc/passwd",
    "sentinel",
    "../sentinel.wav",
    "http://127.0.0.2:9/x.wav",
    "https://example.com/x.wav",
    "hf://kyutai/tts-voices/alba-mackenna/casual.wav",
    "alba",
    "x" * 5000,
]


@pytest.fixture
def audit_log() -> Iterator[list[tuple[str, str]]]:
    """Files opened and sockets connected by this process while the test runs (audit hooks)."""
    events: list[tuple[str, str]] = []
    active = True

    def hook(event: str, args: tuple) -> None:
        if active and event in ("open", "socket.connect") and args:
            events.append((event, str(args[0] if event == "open" else args[1])))

    sys.addaudithook(hook)  # cannot be removed: made inert after the test
    yield events
    active = False


def test_hostile_voice_names_reach_nothing(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    audit_log: list[tuple[str, str]],
) -> None:
    folder = tmp_path / "voices"
    folder.mkdir()
    write_voice_wav(folder / "kid.wav", 1.0, seed=8)
    sentinel = write_voice_wav(tmp_path / "sentinel.wav", 1.0, seed=9)

    async def scenario() -> list[tuple[list[str], int]]:
        args = model_args(tiny_model, {"a": voices["a"]}, "--voices-dir", str(folder))
        async with running_server(args) as server:
            port = server.port or 0
            default = len((await synthesize(port, "Hello.")).audio)
            audit_log.clear()
            results = []
            for name in HOSTILE_NAMES:
                reply = await synthesize(port, "Hello.", voice=name)
                results.append((reply.types, len(reply.audio) - default))
            return results

    results = asyncio.run(scenario())
    for types, audio_difference in results:
        assert types[-1] == AUDIO_STOP and "error" not in types
        assert audio_difference == 0  # the default voice spoke
    opened = [target for event, target in audit_log if event == "open"]
    outside = [p for p in opened if not p.startswith((str(folder), "/proc", "/sys", "/dev"))]
    assert not [p for p in outside if "passwd" in p or "sentinel" in p or "x.wav" in p], outside
    connections = [target for event, target in audit_log if event == "socket.connect"]
    assert all(target.startswith("('127.0.0.1'") for target in connections), connections
    assert sentinel.exists()
