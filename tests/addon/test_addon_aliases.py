"""The add-on's `voice_aliases` option: its schema, its flags, and the settings they reach."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.supervisor import Invalid, merge_options, validate_options
from wyoming_pocket_tts import addon
from wyoming_pocket_tts.addon import OptionsError, options_to_argv
from wyoming_pocket_tts.cli import parse_settings, refusal

from .test_addon import load_yaml, served  # noqa: F401  (served: the fixture)

ALIASES = [{"name": " nova ", "voice": " grandma "}, {"name": "alloy", "voice": "alba"}]


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return load_yaml("config.yaml")


def test_each_alias_is_one_flag_and_reaches_the_settings() -> None:
    argv = options_to_argv({"http_api": True, "voice_aliases": ALIASES})
    assert argv[-4:] == ["--voice-alias", "nova=grandma", "--voice-alias", "alloy=alba"]
    http = parse_settings(argv).http
    assert http.voice_aliases == (("nova", "grandma"), ("alloy", "alba"))


def test_the_default_options_map_no_alias(config: dict[str, Any]) -> None:
    assert config["options"]["voice_aliases"] == []
    options = {**config["options"], "voices_dir": ""}
    assert "--voice-alias" not in options_to_argv(options)
    assert parse_settings(options_to_argv(options)).http.voice_aliases == ()


@pytest.mark.parametrize(
    "aliases",
    [
        [{"name": "nova"}],
        [{"name": "nova", "voice": 3}],
        ["nova=grandma"],
        [{"name": "a", "voice": "b", "x": "c"}],
    ],
)
def test_a_wrong_shape_is_refused(aliases: list[Any]) -> None:
    with pytest.raises(OptionsError, match="voice_aliases"):
        options_to_argv({"voice_aliases": aliases})


def test_the_schema_takes_names_and_voices_and_refuses_what_the_flag_cannot_carry(
    config: dict[str, Any],
) -> None:
    accepted = validate_options(
        config["schema"], merge_options(config["options"], {"voice_aliases": ALIASES})
    )
    assert accepted["voice_aliases"] == ALIASES
    for bad in (
        {"name": "a=b", "voice": "x"},
        {"name": "", "voice": "x"},
        {"name": "n", "voice": " "},
    ):
        with pytest.raises(Invalid):
            validate_options(
                config["schema"], merge_options(config["options"], {"voice_aliases": [bad]})
            )


def test_a_name_mapped_twice_is_dropped_with_one_line_and_the_server_starts(
    tmp_path: Path,
    served: list[list[str]],  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    twice = [{"name": "nova", "voice": "alba"}, {"name": "nova", "voice": "marius"}]
    assert refusal(options_to_argv({"http_api": True, "voice_aliases": twice})) is not None
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"http_api": True, "voice_aliases": twice}), encoding="utf-8")
    assert addon.main(["--options", str(options), "--data-dir", str(tmp_path)]) == 0
    assert "--voice-alias" not in served[0]
    assert (
        "Option 'voice_aliases': --voice-alias nova: mapped twice; ignored"
        in capsys.readouterr().err
    )
