"""The voice studio's pure parts, on real files: voice changes, default choices, sample checks
and pronunciations."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import math
import tempfile
from pathlib import Path

import aiohttp
import numpy as np
import pytest
import soundfile

from testkit.model_factory import TinyModel, write_voice_wav
from tests.conftest import model_args
from tests.studio_support import running_studio
from wyoming_pocket_tts.audio import sample_check
from wyoming_pocket_tts.audio.sample_check import SampleRefused
from wyoming_pocket_tts.engine.tuning.timing import Speed
from wyoming_pocket_tts.http.auth import KEY_BYTES, KEY_FILE, install_key
from wyoming_pocket_tts.http.studio import StudioSettings
from wyoming_pocket_tts.settings import VoiceSpec
from wyoming_pocket_tts.text.pronunciations import (
    Lexicon,
    PronunciationError,
    Pronunciations,
    parse,
)
from wyoming_pocket_tts.text.sentences import SentenceSplitter
from wyoming_pocket_tts.text.speech import prepare_for_speech
from wyoming_pocket_tts.voices.catalog import VoiceCatalog
from wyoming_pocket_tts.voices.choices import DefaultChoices
from wyoming_pocket_tts.voices.manage import VoiceEditError, VoiceManager

BUILTIN = VoiceSpec(name="alba", source="alba", code="en")


def _catalog(folder: Path, data: Path, languages: tuple[str, ...] = ("en", "fr")) -> VoiceCatalog:
    voices = [BUILTIN, VoiceSpec(name="marius", source="marius", code="fr")]
    return VoiceCatalog(voices, [folder], languages, DefaultChoices(data))


def _wav_bytes(seconds: float) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        return write_voice_wav(Path(folder) / "v.wav", seconds, seed=3).read_bytes()


def _speech(seconds: float = 12.0) -> tuple[np.ndarray, int]:
    audio, rate = soundfile.read(io.BytesIO(_wav_bytes(seconds)), dtype="float32")
    return audio, rate


def test_a_saved_voice_is_listed_in_its_language_folder(tmp_path: Path) -> None:
    folder, data = tmp_path / "voices", tmp_path / "data"
    folder.mkdir()
    catalog = _catalog(folder, data)
    manager = VoiceManager(catalog, folder)
    audio, rate = _speech()
    manager.save("grandma", "en", audio, rate)
    manager.save("mamie", "fr", audio, rate)
    assert (folder / "grandma.wav").is_file() and (folder / "fr" / "mamie.wav").is_file()
    names = {spec.name: spec.code for spec in catalog.voices}
    assert names["grandma"] == "en" and names["mamie"] == "fr"
    assert not [p for p in folder.rglob("*") if p.suffix == ".tmp"]


@pytest.mark.parametrize("name", ["../evil", "a/b", ".hidden", "", "x" * 41, "a.b", "/etc/passwd"])
def test_a_name_that_is_not_a_plain_word_is_refused(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "voices"
    folder.mkdir()
    manager = VoiceManager(_catalog(folder, tmp_path / "data"), folder)
    audio, rate = _speech(3.0)
    with pytest.raises(VoiceEditError) as refused:
        manager.save(name, "en", audio, rate)
    assert refused.value.code == "invalid-name"
    assert list(tmp_path.rglob("*.wav")) == []


def test_rename_delete_and_read_only_voices(tmp_path: Path) -> None:
    folder = tmp_path / "voices"
    folder.mkdir()
    catalog = _catalog(folder, tmp_path / "data")
    manager = VoiceManager(catalog, folder)
    audio, rate = _speech(3.0)
    manager.save("one", "en", audio, rate)
    with pytest.raises(VoiceEditError, match="already"):
        manager.save("ONE", "en", audio, rate)
    with pytest.raises(VoiceEditError, match="already"):
        manager.rename("one", "alba")
    manager.rename("one", "two")
    assert [p.name for p in folder.iterdir()] == ["two.wav"]
    with pytest.raises(VoiceEditError) as read_only:
        manager.delete("alba")
    assert read_only.value.code == "read-only-voice"
    manager.delete("two")
    assert list(folder.iterdir()) == []
    with pytest.raises(VoiceEditError) as unknown:
        manager.delete("two")
    assert unknown.value.code == "unknown-voice"


def test_a_chosen_default_survives_a_restart_and_is_listed_first(tmp_path: Path) -> None:
    folder, data = tmp_path / "voices", tmp_path / "data"
    folder.mkdir()
    catalog = _catalog(folder, data)
    manager = VoiceManager(catalog, folder)
    audio, rate = _speech(3.0)
    manager.save("grandma", "en", audio, rate)
    assert catalog.default.name == "alba"
    manager.choose_default("en", "grandma")
    with pytest.raises(VoiceEditError):
        manager.choose_default("fr", "grandma")
    again = _catalog(folder, data)  # a restart: a new catalog over the same folders
    assert again.default.name == "grandma"
    assert again.voices[0].name == "grandma"
    assert again.resolve(None, "en").name == "grandma"
    assert again.default_for("fr").name == "marius"
    VoiceManager(again, folder).rename("grandma", "nana")
    assert _catalog(folder, data).default.name == "nana"
    VoiceManager(again, folder).delete("nana")
    assert _catalog(folder, data).default.name == "alba"


def test_sample_checks_measure_a_voice_recording() -> None:
    audio, rate, channels = sample_check.decode(_wav_bytes(12.0))
    report = sample_check.check(audio, rate, channels)
    verdicts = {check.name: check.verdict for check in report.checks}
    assert verdicts["length"] == "good" and verdicts["clipping"] == "good"
    assert verdicts["level"] == "good"
    assert report.usable
    assert 0 <= report.trim_start < report.trim_end <= report.seconds


def test_sample_checks_find_clipping_silence_and_shortness() -> None:
    rate = 24000
    clipped = np.clip(np.sin(np.linspace(0, 2000, rate * 12)) * 3, -1, 1).astype("float32")
    assert not sample_check.check(clipped, rate).usable
    silent = np.zeros(rate * 12, dtype="float32")
    assert {c.name: c.verdict for c in sample_check.check(silent, rate).checks}["level"] == "bad"
    assert not sample_check.check(np.ones(rate, dtype="float32") * 0.1, rate).usable


def test_non_audio_long_and_huge_uploads_are_refused() -> None:
    with pytest.raises(SampleRefused) as not_audio:
        sample_check.decode(b"RIFF....WAVEfmt this is not audio at all" * 10)
    assert not_audio.value.code == "not-audio"
    long = io.BytesIO()
    soundfile.write(long, np.zeros(8000 * 61, dtype="float32"), 8000, format="WAV")
    with pytest.raises(SampleRefused) as too_long:
        sample_check.decode(long.getvalue())
    assert too_long.value.code == "too-long"
    with pytest.raises(SampleRefused) as too_large:
        sample_check.decode(b"\0" * (sample_check.MAX_BYTES + 1))
    assert too_large.value.code == "too-large"


def test_pronunciations_apply_before_numbers_as_whole_words() -> None:
    lexicon = Lexicon((("Nguyen", "Win"), ("3M", "three em"), ("New York", "Noo Yawk")))
    assert lexicon.apply("Mr nguyen of 3M in New York, not Nguyenville.") == (
        "Mr Win of three em in Noo Yawk, not Nguyenville."
    )
    prepared = prepare_for_speech("3M sold 3 units.", "en", pronounce=lexicon.apply)
    assert prepared.startswith("three em") and "three units" in prepared
    splitter = SentenceSplitter(True, "en", True, lexicon.apply)
    sentences = splitter.add("Ask Nguyen. ") + splitter.finish()
    assert sentences == ["Ask Win."]


def test_pronunciation_files_are_plain_text_read_again_when_changed(tmp_path: Path) -> None:
    store = Pronunciations(tmp_path)
    store.replace("en", [["Siobhan", "Shivawn"]])
    path = tmp_path / "pronunciations" / "en.txt"
    assert "Siobhan -> Shivawn" in path.read_text()
    path.write_text("# by hand\nAoife -> Eefa\nnot an entry\n")
    assert store.lexicon("en").entries == (("Aoife", "Eefa"),)
    assert Pronunciations(tmp_path).lexicon("en").apply("Aoife") == "Eefa"
    assert parse("a->b\n->c\nd->") == [("a", "b")]
    for bad in ([["a -> b", "c"]], [["a", ""]], [["a"]], [["x\ny", "z"]]):
        with pytest.raises(PronunciationError):
            store.replace("en", bad)
    with pytest.raises(PronunciationError):
        store.replace("../../etc", [["a", "b"]])
    assert Pronunciations(tmp_path).lexicon("../x").entries == ()


def test_status_is_valid_json_when_the_speed_was_not_measured(
    tiny_model: TinyModel, voices: dict[str, Path], tmp_path: Path
) -> None:
    """A model whose speech ended with its first chunk has no RTF (NaN): the status must still
    be JSON a browser reads (JSON has no NaN). The NaN is put in the loaded model's measured
    speed by hand; how a tiny random model ends its speech is not a thing a test can pin."""

    def strict(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    async def scenario() -> dict:
        settings = StudioSettings(voices_dir=tmp_path / "voices")
        args = model_args(tiny_model, {"a": voices["a"]}, "--data-dir", str(tmp_path / "data"))
        async with running_studio(args, settings) as studio, aiohttp.ClientSession() as session:
            engine = studio.server.service.engine
            loaded = engine.models.peek(engine.settings.default_model.code)
            assert loaded is not None
            speed = Speed(loaded.tuning.speed.first_audio, math.nan)
            loaded.tuning = dataclasses.replace(loaded.tuning, speed=speed)
            async with session.get(studio.url + "studio/api/status") as response:
                assert response.status == 200
                return json.loads(await response.text(), parse_constant=strict)

    (model,) = asyncio.run(scenario())["models"]
    assert model["rtf"] is None and model["verdict"] == "not measured"
    assert "RTF not measured" in str(Speed(0.05, math.nan))


def test_the_cookie_secret_is_kept_remade_when_damaged_and_never_fails_a_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`auth.install_key`: made once and read back the same; a damaged file is made again; a
    folder that cannot hold it (under a plain file) gives a secret of the process, with a
    warning, instead of a start that fails."""
    folder = tmp_path / "data"
    first = install_key(folder)
    assert len(first) == KEY_BYTES and install_key(folder) == first
    (folder / KEY_FILE).write_text("not hex", encoding="ascii")
    remade = install_key(folder)
    assert len(remade) == KEY_BYTES and remade != first and install_key(folder) == remade
    (tmp_path / "plain").write_text("", encoding="utf-8")
    assert len(install_key(tmp_path / "plain" / "data")) == KEY_BYTES
    assert "lasts until a restart" in caplog.text
