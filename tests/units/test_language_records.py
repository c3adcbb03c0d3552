"""One record per language: complete for all seven, the one reading of a code, and a code
nobody knows refused at start instead of read as English."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from pocket_tts import TTSModel

from testkit.model_factory import TinyModel
from testkit.support import isolated_env, running_server, synthesize
from tests.conftest import model_args
from wyoming_pocket_tts.engine.voice_states.calibration import calibration_phrase
from wyoming_pocket_tts.languages import (
    RECORDS,
    LanguageRecord,
    UnknownLanguage,
    known,
    of_model,
    record,
)
from wyoming_pocket_tts.pocket import builtin_models
from wyoming_pocket_tts.text.numbers import LANGUAGES, reader

ROOT = Path(__file__).resolve().parents[2]


def speaking(entry: LanguageRecord) -> list[str]:
    """The pocket-tts built-in models that speak `entry`'s language."""
    return [model for model in builtin_models() if entry.speaks(model)]


SEVEN = {"en", "fr", "de", "it", "pt", "es", "nl"}


def test_every_language_has_a_complete_record() -> None:
    assert set(RECORDS) == SEVEN == set(LANGUAGES)
    phrases = [r.calibration for r in RECORDS.values()]
    assert len(set(phrases)) == len(phrases), "each language measures with its own phrase"
    for code, entry in RECORDS.items():
        models = speaking(entry)
        assert entry.code == code and re.fullmatch(r"[a-z]{2}", code)
        assert entry.name in models, (code, models)  # pocket-tts ships its model
        assert all(of_model(model).code == code for model in models)
        assert len(entry.calibration.split()) >= 8, code
        assert LANGUAGES[code].code == code and LANGUAGES[code].abbreviations, code
        assert not re.search(r"[0-9]", reader(code).read("21")), code
    every_model = {model for entry in RECORDS.values() for model in speaking(entry)}
    assert every_model == set(builtin_models()), "every built-in model has its language"


def test_the_add_on_offers_what_the_records_hold() -> None:
    """config.yaml's hand-written lists, read back: each language's code and models."""
    schema = yaml.safe_load((ROOT / "pocket-tts" / "config.yaml").read_text())["schema"]

    def choices(value: str) -> set[str]:
        match = re.fullmatch(r"list\((.*)\)\??", value.strip())
        assert match, value
        return set(match.group(1).split("|"))

    models = {model for entry in RECORDS.values() for model in speaking(entry)}
    assert choices(schema["language"]) == models
    voice_languages = choices(schema["voices"][0]["language"])
    assert voice_languages == {
        choice for entry in RECORDS.values() for choice in [entry.code, *speaking(entry)]
    }
    assert schema["max_models"] == f"int(1,{len(RECORDS)})"


@pytest.mark.parametrize(
    ("code", "base"), [("fr-CA", "fr"), ("pt_BR", "pt"), (" DE ", "de"), ("nl-BE", "nl")]
)
def test_a_code_is_read_by_its_language(code: str, base: str) -> None:
    assert record(code) is RECORDS[base]
    assert calibration_phrase(code) == RECORDS[base].calibration


@pytest.mark.parametrize("code", ["sv", "xx-YY", "", "english"])
def test_a_code_nobody_knows_is_an_error_not_english(code: str) -> None:
    assert known(code) is None
    with pytest.raises(UnknownLanguage, match="unknown language"):
        record(code)


@pytest.mark.parametrize(
    "flags",
    [["--language-code", "sv"], ["--model-config", "sv={config}"]],
    ids=["language-code", "model-config"],
)
def test_an_unknown_language_code_at_start_is_a_clear_error(
    flags: list[str], tiny_model: TinyModel, tmp_path: Path
) -> None:
    args = [flag.format(config=tiny_model.config_path) for flag in flags]
    if "--model-config" not in flags:
        args += ["--model-config", str(tiny_model.config_path)]
    started = subprocess.run(
        [sys.executable, "-m", "wyoming_pocket_tts", "--uri", "tcp://127.0.0.1:0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(tmp_path / "home"),
    )
    assert started.returncode == 2, started.stderr
    assert "unknown language 'sv'" in started.stderr and "en, fr, de" in started.stderr


@pytest.mark.timeout(300)
def test_a_regional_code_calibrates_with_its_languages_phrase(
    tiny_model: TinyModel,
    voices: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Through the real server: `--language-code fr-CA` with loudness on hands pocket-tts the
    French calibration phrase (the English one before the language record). A data folder of
    its own, so that no gain another test saved for the voice skips the calibration."""
    spoken: list[str] = []
    lock = threading.Lock()
    generate = TTSModel.generate_audio_stream

    def recording(self: TTSModel, state: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        with lock:
            spoken.append(text)
        return generate(self, state, text, *args, **kwargs)

    monkeypatch.setattr(TTSModel, "generate_audio_stream", recording)

    async def scenario() -> None:
        args = model_args(tiny_model, {"a": voices["a"]}, "--language-code", "fr-CA")
        async with running_server(
            [*args, "--loudness", "-20", "--data-dir", str(tmp_path)]
        ) as server:
            assert not (await synthesize(server.port or 0, "Bonjour.")).errors

    asyncio.run(scenario())
    assert RECORDS["fr"].calibration in spoken
    assert RECORDS["en"].calibration not in spoken
