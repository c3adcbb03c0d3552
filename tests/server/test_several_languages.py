"""Several languages from one server: one model per language, loaded when needed, LRU-bounded.

Two tiny random models stand for two languages. They differ in one way that shows in the audio:
the English one never ends speech (its length follows the text exactly), the French one ends at
the first frame it may. So the length of a reply tells which model spoke it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import pytest
from wyoming.client import AsyncTcpClient
from wyoming.tts import Synthesize, SynthesizeVoice

from testkit.model_factory import SAMPLES_PER_FRAME, TinyModel, expected_frames
from testkit.support import Reply, ServerProcess, describe, read_until, running_server, synthesize
from wyoming_pocket_tts.engine.serving import pool as models_module
from wyoming_pocket_tts.settings import ModelSettings

TEXT = "Bonjour, this sentence is spoken in two languages."
GATE = 20.0
"""Seconds the test may hold the French load open (a bound, never reached when it passes)."""


def two_language_args(english: TinyModel, french: TinyModel, voices: dict[str, Path]) -> list[str]:
    return [
        "--model-config", f"en={english.config_path}",
        "--model-config", f"fr={french.config_path}",
        "--voice", f"anna={voices['a']}",
        "--voice", f"fr:mamie={voices['b']}",
    ]  # fmt: skip


LOADING_LOGGER = "wyoming_pocket_tts.engine.model.loading"
"""It logs "Loaded model" once for each model the server loads."""


@pytest.fixture(scope="module")
def english_samples(endless_model: TinyModel) -> int:
    """Samples the endless (English) model makes for TEXT."""
    return expected_frames(endless_model.load(), TEXT) * SAMPLES_PER_FRAME


def spoke_english(samples: int, english_samples: int) -> bool:
    return samples == english_samples


def test_each_voice_is_served_by_its_own_languages_model_loaded_on_first_use(
    endless_model: TinyModel,
    tiny_model: TinyModel,
    voices: dict[str, Path],
    english_samples: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=LOADING_LOGGER)

    async def scenario() -> dict[str, object]:
        args = two_language_args(endless_model, tiny_model, voices)
        async with running_server(args) as server:
            port = server.port or 0
            seen: dict[str, object] = {"loaded_at_start": server.engine.models.loaded()}
            info = await describe(port)
            seen["voices"] = {v.name: (v.languages, v.installed) for v in info.tts[0].voices}
            for name in ("anna", "mamie"):
                seen[name] = len((await synthesize(port, TEXT, voice=name)).audio) // 2
            seen["loaded_after"] = server.engine.models.loaded()
            seen["loads"] = caplog.text.count("Loaded model")
            # No name but a language: that language's default voice. Unknown name: the first's.
            seen["by_language"] = await _samples(port, SynthesizeVoice(language="fr-FR"))
            seen["unknown"] = await _samples(port, SynthesizeVoice(name="nobody"))
            return seen

    seen = asyncio.run(scenario())
    assert seen["voices"] == {"anna": (["en"], True), "mamie": (["fr"], True)}
    assert seen["loaded_at_start"] == ["en"]  # French waits for its first request
    assert seen["anna"] == english_samples
    assert seen["mamie"] != english_samples and seen["mamie"] > 0
    assert seen["loaded_after"] == ["en", "fr"] and seen["loads"] == 2
    assert seen["by_language"] != english_samples
    assert seen["unknown"] == english_samples


async def _samples(port: int, voice: SynthesizeVoice) -> int:
    async with AsyncTcpClient("127.0.0.1", port) as client:
        await client.write_event(Synthesize(text=TEXT, voice=voice).event())
        reply = await read_until(client, "audio-stop")
    assert not reply.errors
    return len(reply.audio) // 2


def test_voices_folder_subfolders_belong_to_their_language(
    endless_model: TinyModel,
    tiny_model: TinyModel,
    voices: dict[str, Path],
    tmp_path: Path,
    english_samples: int,
) -> None:
    folder = tmp_path / "voices"
    (folder / "fr").mkdir(parents=True)
    (folder / "grandpa.wav").write_bytes(voices["a"].read_bytes())
    (folder / "fr" / "mamie_folder.wav").write_bytes(voices["b"].read_bytes())

    async def scenario() -> tuple[dict[str, list[str]], int, int]:
        args = [*two_language_args(endless_model, tiny_model, voices), "--voices-dir", str(folder)]
        async with running_server(args) as server:
            port = server.port or 0
            info = await describe(port)
            languages = {v.name: v.languages for v in info.tts[0].voices}
            grandpa = len((await synthesize(port, TEXT, voice="grandpa")).audio) // 2
            mamie = len((await synthesize(port, TEXT, voice="mamie_folder")).audio) // 2
            return languages, grandpa, mamie

    languages, grandpa, mamie = asyncio.run(scenario())
    assert languages["grandpa"] == ["en"] and languages["mamie_folder"] == ["fr"]
    assert grandpa == english_samples
    assert mamie != english_samples


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_one_model_at_a_time_loads_and_unloads_and_gives_the_memory_back(
    endless_model: TinyModel, tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """Slow (56-96 s on a busy host): the server's memory is measured, so it runs in a process
    of its own (with its torch import), and the six requests load a model each."""
    args = [*two_language_args(endless_model, tiny_model, voices), "--max-models", "1"]
    rss: list[float] = []
    with ServerProcess(args, tmp_path / "server.log") as server:
        server.wait_for_log("Ready")
        for n in range(6):
            reply = asyncio.run(synthesize(server.port, "Short.", voice=("anna", "mamie")[n % 2]))
            assert reply.audio and not reply.errors
            rss.append(_rss_mib(server.process.pid))
        log = server.log
        assert server.stop() == 0
    # English at start, then a load per switch (5), each after unloading the other model.
    assert log.count("Loaded model") == 6
    assert log.count("Unloaded the") == 5
    size = tiny_model.config_path.parent.joinpath("model.safetensors").stat().st_size / 2**20
    # Had every unload kept its model, the last switches would have grown by a model each.
    assert rss[-1] - rss[1] < size, (rss, size)


def test_a_language_whose_model_fails_answers_with_an_error_and_others_keep_serving(
    endless_model: TinyModel, voices: dict[str, Path], tmp_path: Path, english_samples: int
) -> None:
    broken = tmp_path / "german.yaml"
    broken.write_text("flow_lm: this is not a pocket-tts config\n")

    async def scenario() -> tuple[list[str], list[str], dict[str, bool], int]:
        args = [
            "--model-config", f"en={endless_model.config_path}",
            "--model-config", f"de={broken}",
            "--voice", f"anna={voices['a']}",
            "--voice", f"de:opa={voices['b']}",
        ]  # fmt: skip
        async with running_server(args) as server:
            port = server.port or 0
            failed = await synthesize(port, TEXT, voice="opa")
            again = await synthesize(port, TEXT, voice="opa")
            info = await describe(port)
            installed = {v.name: v.installed for v in info.tts[0].voices}
            english = len((await synthesize(port, TEXT, voice="anna")).audio) // 2
            return failed.types, [e.code for e in again.errors], installed, english

    failed, again, installed, english = asyncio.run(scenario())
    assert failed == ["audio-start", "error", "audio-stop"]
    assert again == ["model-unavailable"]
    assert installed == {"anna": True, "opa": False}
    assert english == english_samples


def test_loading_a_second_language_does_not_hold_up_describe(
    endless_model: TinyModel,
    tiny_model: TinyModel,
    voices: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A describe sent while the French model is loading is answered before the load ends.

    The real load is wrapped in a gate the test holds open until its describe is answered, so
    the describe is sent during the load, whatever the machine's speed. Had the load run on the
    event loop, the gate would time out (after GATE seconds) and the describe come after it."""
    real = models_module.load_tuned_model
    loading, release, loaded = threading.Event(), threading.Event(), threading.Event()

    def gated(settings: ModelSettings, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if settings.code != "fr":
            return real(settings, *args, **kwargs)
        loading.set()
        release.wait(GATE)
        try:
            return real(settings, *args, **kwargs)
        finally:
            loaded.set()

    monkeypatch.setattr(models_module, "load_tuned_model", gated)

    async def scenario() -> tuple[bool, int]:
        async with running_server(two_language_args(endless_model, tiny_model, voices)) as server:
            port = server.port or 0
            request = asyncio.create_task(synthesize(port, TEXT, voice="mamie"))
            try:
                assert await asyncio.to_thread(loading.wait, GATE), "the French load never began"
                await asyncio.wait_for(describe(port), 2 * GATE)
                described_during_load = not loaded.is_set()
            finally:
                release.set()
            reply = await request
            return described_during_load, len(reply.audio)

    described_during_load, audio = asyncio.run(scenario())
    assert described_during_load, "describe waited for the French model to load"
    assert audio > 0


def test_preload_loads_every_language_before_ready(
    endless_model: TinyModel,
    tiny_model: TinyModel,
    voices: dict[str, Path],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With `--preload` both models (and their default voices) are ready before `Ready`, so
    the first French request loads nothing. Without it only the first language is: the first
    test of this file sees French loaded only at its first request (`loaded_at_start`)."""
    caplog.set_level(logging.INFO)
    args = [*two_language_args(endless_model, tiny_model, voices), "--preload"]

    async def scenario() -> tuple[str, Reply, str, list[str]]:
        async with running_server(args) as server:
            before_ready = caplog.text.split("Ready", 1)[0]
            reply = await synthesize(server.port or 0, "Short.", voice="mamie")
            return before_ready, reply, caplog.text, server.engine.models.loaded()

    before_ready, reply, after, loaded = asyncio.run(scenario())
    assert reply.audio and not reply.errors
    assert before_ready.count("Loaded model") == 2, before_ready
    assert str(endless_model.config_path) in before_ready
    assert str(tiny_model.config_path) in before_ready
    assert after.count("Loaded model") == 2, "the French request loaded its model again"
    assert loaded == ["en", "fr"]
