"""tests/supervisor.py behaves as the Supervisor's source reads (files named in its docstring)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.supervisor import Invalid, merge_options, mounts, validate_options

SCHEMA = {
    "mode": "list(auto|on|off)",
    "level": "match(^-[0-9]+)",  # no $: re.match anchors the start only
    "count": "int(1,8)",
    "flag": "bool",
    "name": "str?",
    "port": "port",
    "voices": [{"name": "str", "language": "str?"}],
}
BASE = {"mode": "auto", "level": "-20", "count": 2, "flag": False, "port": 80, "voices": []}


@pytest.mark.parametrize(
    ("change", "written"),
    [
        ({"count": "3"}, {"count": 3}),  # vol.Coerce(int)
        ({"flag": "on"}, {"flag": True}),  # vol.Boolean
        ({"flag": 0}, {"flag": False}),
        ({"level": -20}, {"level": "-20"}),  # match compares and writes str(value)
        ({"level": "-20 and more"}, {"level": "-20 and more"}),  # re.match: start only
        ({"colour": "red"}, {}),  # unknown options are dropped
        ({"voices": [{"name": "a", "extra": 1}]}, {"voices": [{"name": "a"}]}),
    ],
)
def test_accepted(change: dict[str, Any], written: dict[str, Any]) -> None:
    result = validate_options(SCHEMA, {**BASE, **change})
    assert result == {**{k: v for k, v in BASE.items() if k in SCHEMA}, **written}


@pytest.mark.parametrize(
    "change",
    [
        {"mode": False},  # list compares str(value): "False"
        {"count": 9},
        {"count": "many"},
        {"name": None},  # None is refused even for str?
        {"name": 3},  # str needs a real string
        {"flag": "maybe"},
        {"level": "20"},
        {"port": 0},
        {"voices": [{"language": "en"}]},  # a nested str without ? is required
        {"voices": {"name": "a"}},
    ],
)
def test_refused(change: dict[str, Any]) -> None:
    with pytest.raises(Invalid):
        validate_options(SCHEMA, {**BASE, **change})


def test_a_missing_option_is_refused_unless_optional() -> None:
    validate_options(SCHEMA, {k: v for k, v in BASE.items()})  # name (str?) missing: fine
    with pytest.raises(Invalid, match="Missing option 'count'"):
        validate_options(SCHEMA, {k: v for k, v in BASE.items() if k != "count"})


def test_saved_options_override_defaults_and_dicts_merge() -> None:
    merged = merge_options({"a": 1, "d": {"x": 1, "y": 2}, "l": [1]}, {"a": 2, "d": {"y": 3}})
    assert merged == {"a": 2, "d": {"x": 1, "y": 3}, "l": [1]}
    assert merge_options({"l": [1, 2]}, {"l": []}) == {"l": []}


def test_map_entries_are_read_only_unless_rw() -> None:
    assert mounts({"map": ["share", "addon_config:rw", "bogus"]}) == {
        "/data": False,
        "/share": True,
        "/config": False,
    }
    assert mounts({"map": [{"type": "share"}, {"type": "app_config", "read_only": False}]}) == {
        "/data": False,
        "/share": True,
        "/config": False,
    }
