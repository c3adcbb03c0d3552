"""`--help`, the flag table of docs/command-line.md and the add-on's options, held to one source.

The source is the server's parser (`cli.build_parser`), whose defaults come from the settings'
dataclasses. Each flag with a default must state it, the same, in its `--help` line and in its
row of docs/command-line.md; each add-on option that maps to such a flag must default to it in
config.yaml, and its text (translations/en.yaml) and DOCS.md section must not state another.
`--data-dir`'s help and row must name the same folders and files. A flag with no help line
fails too.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.addon.test_addon_options import _flat, _section
from wyoming_pocket_tts.addon import OPTIONS, options_to_argv
from wyoming_pocket_tts.cli import build_parser
from wyoming_pocket_tts.settings import ModelSettings

ROOT = Path(__file__).resolve().parents[2]
COMMAND_LINE = ROOT / "docs" / "command-line.md"
ADDON = ROOT / "pocket-tts"

NONE_MEANS = {
    "--language": ModelSettings().model,
    "--threads": "auto",
    "--unload-after": "0",
    "--http-port": "off",
}
"""Flags whose parser default is None, and what that None means (decided after parsing)."""

STATED = re.compile(
    r"\bdefault(?::\s+`?([^`\s,;)]+)`?|\s+`([^`]+)`|\s+(-?\d[\d.]*))|`?([^`\s(]+)`?\s+\(default\)"
)
"""`default: X`, `` default `X` ``, `default 2` or `` `X` (default) ``: the forms a default is
stated in, in `--help` and in the docs (`default voice` states none)."""

SAMPLES = {"language": "french", "loudness": "-18", "quantize": "on"}
"""A value other than the default, for the add-on's free-text options that map to a flag."""


def _normal(value: str) -> str:
    """One spelling per value: numbers as `%g`, the home folder as `~`."""
    value = value.replace(str(Path.home()), "~").rstrip(".:")
    try:
        return f"{float(value):g}"
    except ValueError:
        return value


def stated_defaults(text: str) -> set[str]:
    """Every default `text` states."""
    found = STATED.findall(text.replace(str(Path.home()), "~"))
    return {_normal(next(value for value in forms if value)) for forms in found}


def _parser(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # --data-dir's default under ~
    return build_parser()


def _flags(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings[0] not in ("-h", "--version")]


def help_line(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's help as `--help` prints it, unwrapped."""
    return parser._get_formatter()._expand_help(action)


def doc_row(flag: str) -> str:
    """The row of docs/command-line.md's flag table whose first column names `flag`."""
    for line in COMMAND_LINE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `--") and flag in re.findall(r"`(--[\w-]+)", line.split(" | ")[0]):
            return line.split(" | ", 1)[1]
    raise AssertionError(f"{flag} has no row in docs/command-line.md")


def default_of(action: argparse.Action) -> str | None:
    """The flag's default as the docs should state it, or None for a flag without one."""
    if action.default is None or action.default is False or action.default == []:
        return NONE_MEANS.get(action.option_strings[0])
    return _normal(str(action.default))


def test_every_flag_has_a_help_line(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = _parser(monkeypatch)
    assert [a.option_strings[0] for a in _flags(parser) if not a.help] == []


def test_help_and_the_flag_table_state_each_default_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = _parser(monkeypatch)
    wrong, checked = [], []
    for action in _flags(parser):
        flag, default = action.option_strings[0], default_of(action)
        if default is None:
            continue
        checked.append(flag)
        for where, text in (("--help", help_line(parser, action)), ("docs", doc_row(flag))):
            if default not in stated_defaults(text):
                wrong.append(f"{where} of {flag} states {stated_defaults(text)}, not {default}")
    assert wrong == []
    assert {"--uri", "--voice-cache-size", "--max-text-chars", "--data-dir", "--threads"} <= set(
        checked
    )


def test_data_dir_names_the_same_contents_in_help_and_docs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = _parser(monkeypatch)
    (action,) = (a for a in _flags(parser) if a.option_strings[0] == "--data-dir")
    contents = re.compile(r"\b([a-z-]+/|[a-z-]+\.json)")
    in_help = set(contents.findall(help_line(parser, action).split("(default:", 1)[0]))
    row = doc_row("--data-dir").split("; default", 1)[0]
    assert in_help == set(contents.findall(row))
    assert {"voice-states/", "tuning/", "graphs/", "pronunciations/"} <= in_help


def _addon_flag(key: str, value: Any) -> str | None:
    """The flag the add-on option `key` sets, found by giving it a value other than `value`."""
    if isinstance(value, (bool, list)) or value == "":
        return None
    if isinstance(value, str):
        sample = SAMPLES.get(key) or next((c for c in OPTIONS[key].choices if c != value), None)
    else:
        sample = value + 1
    return None if sample is None else options_to_argv({key: sample})[0]


def test_addon_options_default_to_their_flags_and_state_no_other_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = _parser(monkeypatch)
    defaults = {a.option_strings[0]: default_of(a) for a in _flags(parser)}
    options = yaml.safe_load((ADDON / "config.yaml").read_text(encoding="utf-8"))["options"]
    texts = yaml.safe_load((ADDON / "translations" / "en.yaml").read_text(encoding="utf-8"))
    wrong, checked = [], []
    for key, value in options.items():
        flag = _addon_flag(key, value)
        if flag is None:  # a switch, a list, an empty text, or the add-on's own voices folder
            continue
        default = defaults[flag]
        checked.append(key)
        if _normal(str(value)) != default:
            wrong.append(f"config.yaml: {key} defaults to {value}, {flag} to {default}")
        description = texts["configuration"][key]["description"]
        for where, text in (("en.yaml", description), ("DOCS.md", _flat(_section(key)))):
            if stated_defaults(text) - {default}:
                wrong.append(f"{where}: {key} states {stated_defaults(text)}, {flag} {default}")
    assert wrong == []
    assert {"max_models", "voice_cache_size", "loudness", "runtime", "threads"} <= set(checked)
