"""The add-on's options a household can find and trust: every option shown in the UI (or DOCS.md
says how to show it), UI texts that say what the code does, the watchdog, and the options of a
household's year (`unload_after`, `retry_graphs`, a mirror and a proxy) mapped to the server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.supervisor import validate_options
from wyoming_pocket_tts import addon
from wyoming_pocket_tts.addon import option_environment, options_to_argv
from wyoming_pocket_tts.cli import parse_settings
from wyoming_pocket_tts.cli_checks import HTTP_TOKEN_ENV

ADDON = Path(__file__).resolve().parents[2] / "pocket-tts"
DOCS = (ADDON / "DOCS.md").read_text(encoding="utf-8")
SHOW_HIDDEN = "Show unused optional configuration options"
RE_WATCHDOG = re.compile(
    r"^(?:(?P<s_prefix>https?|tcp)|\[PROTO:(?P<t_proto>\w+)\])"
    r":\/\/\[HOST\]:(?:\[PORT:)?(?P<t_port>\d+)\]?(?P<s_suffix>.*)$"
)
"""The Supervisor's (`supervisor/addons/addon.py`): a watchdog URL it cannot parse is ignored."""
RANGE = re.compile(r"^(int|float)\((-?[\d.]+),(-?[\d.]+)\)\??$")


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    return dict(yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def texts() -> dict[str, dict[str, str]]:
    translations = yaml.safe_load((ADDON / "translations" / "en.yaml").read_text("utf-8"))
    return dict(translations["configuration"])


def _section(option: str) -> str:
    return DOCS.split(f"### Option: `{option}`\n", 1)[1].split("\n### ", 1)[0]


def _flat(text: str) -> str:
    """`text` as one line of words, without markdown's code marks."""
    return " ".join(text.replace("`", "").split())


def test_every_option_is_shown_or_docs_say_how_to_show_it(config: dict[str, Any]) -> None:
    """Home Assistant hides an optional schema key absent from `options:`."""
    hidden = set(config["schema"]) - set(config["options"])
    for option in hidden:
        assert SHOW_HIDDEN in _section(option), f"{option} is hidden and DOCS.md does not say so"
    assert not hidden, f"hidden: {sorted(hidden)}"  # every option is shown today


def test_the_defaults_pass_the_supervisors_check(config: dict[str, Any]) -> None:
    """An empty default is what the schema accepts (None is refused even for `?` types)."""
    assert validate_options(config["schema"], config["options"]) == config["options"]
    empty = [key for key, value in config["options"].items() if value == ""]
    assert set(empty) == {
        "voice",
        "hf_token",
        "http_token",
        "http_cors",
        "hf_endpoint",
        "https_proxy",
    }


def test_the_watchdog_checks_the_wyoming_port(config: dict[str, Any]) -> None:
    match = RE_WATCHDOG.match(config["watchdog"])
    assert match and match.group("s_prefix") == "tcp"
    assert f"{match.group('t_port')}/tcp" in config["ports"]
    assert addon.ADDON_URI.endswith(f":{match.group('t_port')}")  # what the server listens on


def test_ranges_in_the_ui_texts_are_the_schemas(
    config: dict[str, Any], texts: dict[str, dict[str, str]]
) -> None:
    checked, missing = [], []
    for key, kind in config["schema"].items():
        match = RANGE.match(str(kind))
        if not match:
            continue
        low, high = (f"{float(bound):g}" for bound in match.group(2, 3))
        for where, text in (("en.yaml", texts[key]["description"]), ("DOCS.md", _section(key))):
            stated = re.findall(r"\(?(-?[\d.]+) to (-?[\d.]+)", _flat(text))
            if (low, high) not in {(f"{float(a):g}", f"{float(b):g}") for a, b in stated}:
                missing.append(f"{where} does not state {key}'s range {low} to {high}")
        checked.append(key)
    assert not missing
    assert "unload_after" in checked and "max_models" in checked


def test_an_empty_voice_is_the_first_of_the_voices_as_both_texts_say(
    texts: dict[str, dict[str, str]],
) -> None:
    words = "Leave empty to use the first of your voices, or, without any, the model's own"
    assert words in _flat(texts["voice"]["description"])
    assert _flat(words.replace("Leave empty", "Leave it empty")) in _flat(_section("voice"))
    voices = [{"name": "mamie", "source": "a.wav"}, {"name": "papi", "source": "b.wav"}]
    argv = options_to_argv({"voice": "", "voices": voices})
    assert argv[:2] == ["--voice", "mamie=a.wav"]
    assert options_to_argv({"voice": ""}) == []  # no voice: the model's own default


def test_the_texts_of_empty_options_say_what_empty_means(
    config: dict[str, Any], texts: dict[str, dict[str, str]]
) -> None:
    for key, value in config["options"].items():
        if value == "" and key != "hf_token":  # the token's text says when it is needed
            assert "empty" in texts[key]["description"].lower(), key


def test_unload_after_maps_to_the_flag_in_minutes() -> None:
    assert options_to_argv({"unload_after": 0}) == []
    assert options_to_argv({"unload_after": 30}) == ["--unload-after", "30"]
    assert parse_settings(options_to_argv({"unload_after": 30})).engine.unload_after == 1800
    assert parse_settings([]).engine.unload_after is None


def test_retry_graphs_maps_to_the_flag() -> None:
    assert options_to_argv({"retry_graphs": False}) == []
    assert options_to_argv({"retry_graphs": True}) == ["--retry-graphs"]
    assert parse_settings(["--retry-graphs"]).engine.retry_graphs is True


def test_network_options_become_environment_variables_off_the_command_line() -> None:
    options = {
        "hf_endpoint": " https://hf-mirror.example ",
        "https_proxy": "http://proxy.lan:3128",
        "hf_token": "hf_secret",
        "http_api": True,
        "http_token": "key",
    }
    assert option_environment(options) == {
        "HF_ENDPOINT": "https://hf-mirror.example",
        "HTTPS_PROXY": "http://proxy.lan:3128",
        "HF_TOKEN": "hf_secret",
        HTTP_TOKEN_ENV: "key",
    }
    assert options_to_argv(options) == options_to_argv({"http_api": True})
    empty = {"hf_endpoint": "", "https_proxy": "  ", "hf_token": "", "http_token": "key"}
    assert option_environment(empty) == {}  # and the key only with the API on
