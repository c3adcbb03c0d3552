"""Household voices: saved voice states, the voices folder, and nothing else reachable."""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import torch
from pocket_tts import export_model_state
from safetensors.torch import save_file

from testkit import model_factory as mf
from testkit.model_factory import TinyModel, write_voice_wav
from testkit.support import (
    ANOTHER_VOICE,
    AUDIO_STOP,
    ServerProcess,
    describe,
    differing_samples,
    running_server,
    synthesize,
)
from tests.conftest import model_args
from wyoming_pocket_tts.engine.voice_states.store import MAX_AGE_DAYS


def _saying(args: list[str], text: str = "Hello there.", voice: str | None = None) -> bytes:
    """Start a fresh server in this process (no torch import per start), have it say `text`,
    stop it; the audio. A start on the same data folder is a restart: nothing but the folder
    is shared (each start builds its own engine, voices and store)."""

    async def scenario() -> bytes:
        async with running_server(args) as server:
            return (await synthesize(server.port or 0, text, voice)).audio

    return asyncio.run(scenario())


def test_saved_state_is_loaded_on_the_next_start(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    args = model_args(slim_model, {"a": voices["a"]}, "--data-dir", str(tmp_path / "data"))
    audio_first = _saying(args)
    assert "Encoded voice a" in caplog.text
    (saved,) = (tmp_path / "data" / "voice-states").glob("*.safetensors")

    caplog.clear()
    audio_second = _saying(args)
    assert "Loaded voice a from its saved state" in caplog.text
    assert "Encoded voice" not in caplog.text
    assert differing_samples(audio_second, audio_first) == 0  # the same voice, by content

    saved.write_bytes(saved.read_bytes()[:100])  # truncated, as after a power cut
    caplog.clear()
    assert _saying(args)
    assert "Discarding unreadable voice state" in caplog.text
    assert "Encoded voice a" in caplog.text
    assert saved.stat().st_size > 100  # written again


def test_every_audio_prompt_is_saved_whatever_its_suffix(
    slim_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One definition of a prompt: an AIFF recording is cloned, so its state is saved too."""
    import soundfile

    caplog.set_level(logging.DEBUG)
    wav = write_voice_wav(tmp_path / "v.wav", 1.5, seed=3)
    samples, rate = soundfile.read(wav)
    voice = tmp_path / "v.aiff"
    soundfile.write(voice, samples, rate, format="AIFF")
    args = model_args(slim_model, {"v": voice}, "--data-dir", str(tmp_path / "data"))
    assert _saying(args, voice="v")
    assert "Encoded voice v" in caplog.text
    assert list((tmp_path / "data" / "voice-states").glob("*.safetensors"))
    caplog.clear()
    assert _saying(args, voice="v")
    assert "Loaded voice v from its saved state" in caplog.text


def test_changed_audio_gets_a_new_saved_state(
    slim_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    voice = write_voice_wav(tmp_path / "v.wav", 1.5, seed=3)
    args = model_args(slim_model, {"v": voice}, "--data-dir", str(tmp_path / "data"))
    assert _saying(args)
    write_voice_wav(voice, 1.5, seed=4)
    caplog.clear()
    assert _saying(args)
    assert "Encoded voice v" in caplog.text
    assert len(list((tmp_path / "data" / "voice-states").glob("*.safetensors"))) == 2


def test_voices_folder_is_rescanned(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In this process (no torch import for the start): the server's log is `caplog.text`."""
    caplog.set_level(logging.DEBUG)
    folder = tmp_path / "voices"
    folder.mkdir()
    (folder / "broken.wav").write_bytes(b"RIFF, but not really")
    (folder / "notes.txt").write_text("not a voice")
    args = model_args(slim_model, {"a": voices["a"]}, "--debug", "--voices-dir", str(folder))

    async def scenario() -> None:
        async with running_server(args) as server:
            port = server.port or 0

            async def names() -> list[str]:
                return [v.name for v in (await describe(port)).tts[0].voices]

            assert await names() == ["a"]
            write_voice_wav(folder / "grandpa.flac", 1.5, seed=5)
            assert await names() == ["a", "grandpa"]
            reply = await synthesize(port, "Good night.", voice="grandpa")
            assert reply.audio and not reply.errors
            assert "Encoded voice grandpa" in caplog.text
            (folder / "grandpa.flac").unlink()
            assert await names() == ["a"]
            assert caplog.text.count("Skipping voice file") == 1  # reported once, not per describe
            assert "broken.wav" in caplog.text
            # Fixed while running: the same file name becomes a voice, with the new audio's voice.
            write_voice_wav(folder / "broken.wav", 1.5, seed=5)
            assert await names() == ["a", "broken"]
            fixed = await synthesize(port, "Good night.", voice="broken")
            assert not fixed.errors and differing_samples(fixed.audio, reply.audio) == 0  # grandpa

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("name", "subtype"), [("v24.wav", "PCM_24"), ("vf.wav", "FLOAT"), ("v.mp3", "MPEG_LAYER_III")]
)
def test_other_audio_formats_load(slim_model: TinyModel, tmp_path: Path, name: str, subtype: str):
    voice = write_voice_wav(tmp_path / name, 1.5, seed=6, subtype=subtype, sample_rate=44100)
    data = ["--data-dir", str(tmp_path / "data")]
    assert _saying(model_args(slim_model, {"v": voice}, *data), "Testing.", voice="v")


def test_long_prompt_is_truncated(
    slim_model: TinyModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The prompt must be longer than the 30 s kept, and all 30 s are encoded (on the slim
    model: the flow LM's share of the encoding is a quarter of `slim_model`'s)."""
    caplog.set_level(logging.DEBUG)
    voice = write_voice_wav(tmp_path / "long.wav", 31.0, seed=7)
    assert _saying(model_args(slim_model, {"long": voice}, "--data-dir", str(tmp_path / "data")))
    assert "the prompt is 31 s long; using its first 30 s" in caplog.text


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
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    audit_log: list[tuple[str, str]],
) -> None:
    folder = tmp_path / "voices"
    folder.mkdir()
    write_voice_wav(folder / "kid.wav", 1.0, seed=8)
    sentinel = write_voice_wav(tmp_path / "sentinel.wav", 1.0, seed=9)

    async def scenario() -> tuple[bytes, bytes, list[tuple[list[str], float]]]:
        args = model_args(slim_model, {"a": voices["a"]}, "--voices-dir", str(folder))
        async with running_server(args) as server:
            port = server.port or 0
            default = (await synthesize(port, "Hello.")).audio
            kid = (await synthesize(port, "Hello.", voice="kid")).audio
            audit_log.clear()
            results = []
            for name in HOSTILE_NAMES:
                reply = await synthesize(port, "Hello.", voice=name)
                results.append((reply.types, differing_samples(reply.audio, default)))
            return default, kid, results

    default, kid, results = asyncio.run(scenario())
    assert differing_samples(kid, default) > ANOTHER_VOICE  # a voice file would be heard
    for name, (types, differing) in zip(HOSTILE_NAMES, results, strict=True):
        assert types[-1] == AUDIO_STOP and "error" not in types, name
        assert differing == 0, name  # the default voice spoke
    # Normalised, so that `voices/../sentinel.wav` counts as the file outside that it is.
    opened = [os.path.normpath(target) for event, target in audit_log if event == "open"]
    outside = [p for p in opened if not p.startswith((f"{folder}/", "/proc", "/sys", "/dev"))]
    assert not [p for p in outside if "passwd" in p or "sentinel" in p or "x.wav" in p], outside
    assert str(sentinel) not in opened
    connections = [target for event, target in audit_log if event == "socket.connect"]
    assert all(target.startswith("('127.0.0.1'") for target in connections), connections


class _Files(SimpleHTTPRequestHandler):
    """Serves one folder over http://127.0.0.1 and records the paths asked for."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.asked.append(self.path)
        super().do_GET()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def web_folder(tmp_path: Path) -> Iterator[tuple[str, Path, type[_Files]]]:
    """A folder served over http on 127.0.0.1: (base URL, folder, handler class)."""
    folder = tmp_path / "web"
    folder.mkdir()
    handler = type("Files", (_Files,), {"asked": []})
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", folder, handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


HUB_VOICE = "hf://kyutai/tts-voices/alba-mackenna/casual.wav"
"""Where pocket-tts finds the audio of its built-in voice `alba` for a custom model."""


def test_every_kind_of_voice_source_speaks_with_its_own_voice(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    web_folder: tuple[str, Path, type[_Files]],
) -> None:
    """Voice states, URLs, the hub, built-in names, folder rules, all heard by content.

    Faked: the hub is a Hugging Face cache laid out offline under the real repo and file names
    (`HF_HUB_OFFLINE=1`); the web is an http:// server on 127.0.0.1. pocket-tts fetches
    http:// and https:// alike with `requests` into ~/.cache/pocket_tts, so only TLS is not
    exercised. Slow (16-74 s): a process of its own (huggingface_hub reads HF_HOME once, at
    import; pocket-tts downloads into its HOME) that loads eleven voices.
    """
    base_url, web, asked = web_folder
    (web / "b.wav").write_bytes(voices["b"].read_bytes())
    hf_home = tmp_path / "hf"
    alba_audio = write_voice_wav(tmp_path / "alba.wav", 2.0, seed=30)
    mf.place_in_hub(hf_home / "hub", HUB_VOICE, alba_audio)
    model = slim_model.load()
    state_file = tmp_path / "b.safetensors"
    export_model_state(model.get_state_for_audio_prompt(voices["b"]), state_file)
    folder = tmp_path / "voices"
    write_voice_wav(folder / "shadow.wav", 1.5, seed=31)
    same_flac = write_voice_wav(folder / "same.flac", 1.5, seed=32)
    write_voice_wav(folder / "same.wav", 1.5, seed=33)
    (folder / "good.safetensors").write_bytes(state_file.read_bytes())
    save_file({"x": torch.zeros(2)}, str(folder / "notastate.safetensors"))
    (folder / "junk.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{broken}")
    same_copy = tmp_path / "same-copy.flac"
    same_copy.write_bytes(same_flac.read_bytes())
    configured = {
        "a": str(voices["a"]),
        "b": str(voices["b"]),
        "st": str(state_file),
        "web": f"{base_url}/b.wav",
        "alba": "alba",
        "hub": HUB_VOICE,
        "albafile": str(alba_audio),
        "shadow": str(voices["b"]),
        "sameref": str(same_copy),
    }
    args = ["--model-config", str(slim_model.config_path), "--voices-dir", str(folder)]
    for name, source in configured.items():
        args += ["--voice", f"{name}={source}"]
    env = {"HF_HOME": str(hf_home)}
    with ServerProcess(args, tmp_path / "server.log", env=env) as server:
        server.wait_for_log("Ready")
        names = [v.name for v in asyncio.run(describe(server.port)).tts[0].voices]
        audio = {}
        for name in [*configured, "good", "same"]:
            reply = asyncio.run(synthesize(server.port, "Hello there.", voice=name))
            assert not reply.errors, (name, reply.errors)
            audio[name] = reply.audio
        assert server.stop() == 0
    log = server.log

    assert names == [*configured, "good", "same"]  # shadowed and unreadable files left out
    # Who spoke: each group is one voice, heard by content; the groups are different voices.
    groups = [
        ["a"],
        ["b", "st", "web", "good", "shadow"],  # b's audio, its state, its URL; shadow is b
        ["alba", "hub", "albafile"],  # the built-in name on a custom model is its hub audio
        ["same", "sameref"],  # of same.flac and same.wav, the first by name
    ]
    for group in groups:
        for name in group[1:]:
            assert differing_samples(audio[name], audio[group[0]]) == 0, (name, group[0])
    for one, other in itertools.combinations([group[0] for group in groups], 2):
        assert differing_samples(audio[one], audio[other]) > ANOTHER_VOICE, (one, other)
    assert asked.asked == ["/b.wav"]  # downloaded once, into the server's own home
    assert len(list((tmp_path / "server-home" / ".cache" / "pocket_tts").glob("*.wav"))) == 1
    skipped = f"Skipping voice file {folder}"
    assert f"{skipped}/notastate.safetensors: not a pocket-tts voice state" in log
    assert f"{skipped}/junk.safetensors: Error while deserializing header" in log


def test_old_saved_states_and_leftover_temporary_files_are_cleaned_at_start(
    slim_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    states = tmp_path / "data" / "voice-states"
    states.mkdir(parents=True)
    day = 86400
    now = time.time()
    ages = {"old": MAX_AGE_DAYS + 1, "recent": MAX_AGE_DAYS - 1}
    for name, days in ages.items():
        path = states / f"{name}.safetensors"
        path.write_bytes(b"a state")
        os.utime(path, (now - days * day, now - days * day))
    (states / "x1y2.tmp").write_bytes(b"half a state: the power went out")
    data = ["--data-dir", str(tmp_path / "data")]

    async def start_and_stop() -> None:
        async with running_server(model_args(slim_model, {"a": voices["a"]}, *data)):
            pass

    asyncio.run(start_and_stop())
    left = sorted(path.name for path in states.iterdir())
    assert "old.safetensors" not in left and "x1y2.tmp" not in left
    assert "recent.safetensors" in left
    assert len(left) == 2  # and voice a's new state
    assert f"Deleted voice state unused for {MAX_AGE_DAYS} days: {states}/old.safetensors" in (
        caplog.text
    )
