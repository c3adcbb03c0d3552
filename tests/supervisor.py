"""The Home Assistant Supervisor's rules for an add-on's options and folders, re-implemented.

Read in the Supervisor's source (github.com/home-assistant/supervisor, commit 090ef31e, 2026-08):
- `supervisor/apps/options.py` (`AppOptions`): how saved options are checked against the schema
  before every start (`App.write_options` in `supervisor/apps/app.py`), and what is written to
  /data/options.json: the validated values. Unknown keys are dropped with a warning; `None` is
  refused even for `?` types; a missing key is refused unless its type ends in `?`; `str` and
  `password` need a real string; `int`/`float` are coerced; `bool` is voluptuous' `Boolean`
  ("on", "yes", 1 ... are true); `list(...)` and `match(...)` compare `str(value)` (so a saved
  `false` is the string "False") and store that string; `match` is `re.match` (anchored at the
  start only).
- `supervisor/apps/app.py` (`_OPTIONS_MERGER`, `App.options`, `test_update_schema`): the options
  checked are config.yaml's defaults deep-merged with the user's saved options (dicts merge,
  anything else is replaced by the saved value); an update keeps the saved options, and a start
  with options the new schema refuses fails (`AppConfigurationInvalidError`).
- `supervisor/apps/validate.py` (`_migrate_app_config`, `RE_VOLUME`, `_SCHEMA_APP_CONFIG`): a
  `map:` string `TYPE[:rw|:ro]` is mounted read-only unless it ends in `:rw`; the dict form's
  `read_only` defaults to true.
- `supervisor/validate.py` (`network_port`): the `port` type, an int from 1 to 65535.
- `supervisor/docker/app.py` (`DockerApp.mounts`) and `supervisor/docker/const.py`: /data is
  always mounted writable; `addon_config`/`app_config` at /config and `share` at /share unless a
  `path` is given.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path, PurePath
from typing import Any

RE_SCHEMA_ELEMENT = re.compile(
    r"^(?:"
    r"|bool"
    r"|email"
    r"|url"
    r"|port"
    r"|device(?:\((?P<filter>subsystem=[a-z]+)\))?"
    r"|str(?:\((?P<s_min>\d+)?,(?P<s_max>\d+)?\))?"
    r"|password(?:\((?P<p_min>\d+)?,(?P<p_max>\d+)?\))?"
    r"|int(?:\((?P<i_min>-?\d+)?,(?P<i_max>-?\d+)?\))?"
    r"|float(?:\((?P<f_min>-?\d*\.?\d+)?,(?P<f_max>-?\d*\.?\d+)?\))?"
    r"|match\((?P<match>.*)\)"
    r"|list\((?P<list>.+)\)"
    r")\??$"
)
"""The option types the Supervisor knows (`supervisor/apps/options.py`, RE_SCHEMA_ELEMENT)."""

RE_VOLUME = re.compile(
    r"^(data|config|ssl|local_apps|addons|backup|share|media|homeassistant_config"
    r"|all_app_configs|all_addon_configs|app_config|addon_config)(?::(rw|ro))?$"
)
"""`supervisor/apps/validate.py`, RE_VOLUME."""

TARGETS = {"data": "/data", "addon_config": "/config", "app_config": "/config", "share": "/share"}
"""Where `supervisor/docker/app.py` mounts each folder type the add-on may map (others unused)."""

_TRUE = ("1", "true", "yes", "on", "enable")
_FALSE = ("0", "false", "no", "off", "disable")


class Invalid(ValueError):
    """The Supervisor would refuse these options (and so not start the add-on)."""


def merge_options(defaults: dict[str, Any], saved: dict[str, Any]) -> dict[str, Any]:
    """config.yaml's defaults deep-merged with saved options (`_OPTIONS_MERGER`)."""
    merged = copy.deepcopy(defaults)
    for key, value in saved.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_options(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def validate_options(schema: dict[str, Any], options: Any) -> dict[str, Any]:
    """What the Supervisor writes to options.json for `options`; raises Invalid if it refuses."""
    if not isinstance(options, dict):
        raise Invalid("options must be a dict")
    return _validate_dict(schema, options, "root")


def _validate_dict(schema: dict[str, Any], data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise Invalid(f"Invalid dict for option '{where}'")
    validated = {
        key: _element(schema[key], value, key) for key, value in data.items() if key in schema
    }
    for missing in set(schema) - set(validated):
        typ = schema[missing]
        if isinstance(typ, list) and typ:
            typ = typ[0]
        if not (isinstance(typ, str) and typ.endswith("?")):
            raise Invalid(f"Missing option '{missing}' in {where}")
    return validated


def _element(typ: Any, value: Any, key: str) -> Any:
    if isinstance(typ, list):
        if not isinstance(value, list):
            raise Invalid(f"Invalid list for option '{key}'")
        return [_element(typ[0], item, key) for item in value]
    if isinstance(typ, dict):
        return _validate_dict(typ, value, key)
    return _single(typ, value, key)


def _single(typ: str, value: Any, key: str) -> Any:
    if value is None:
        raise Invalid(f"Missing required option '{key}'")
    match = RE_SCHEMA_ELEMENT.match(typ)
    if not match:
        raise Invalid(f"Unknown type '{typ}'")
    bounds = {
        name[2:]: float(match.group(name))
        for name in ("i_min", "i_max", "f_min", "f_max", "s_min", "s_max", "p_min", "p_max")
        if match.group(name)
    }
    if typ.startswith(("str", "password")):
        if not isinstance(value, str):
            raise Invalid(f"option '{key}': expected str")
        _in_range(len(value), bounds, key)
        return value
    if typ.startswith(("int", "float")):
        kind = int if typ.startswith("int") else float
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise Invalid(f"option '{key}': expected {kind.__name__}") from None
        _in_range(number, bounds, key)
        return number
    if typ.startswith("port"):  # supervisor/validate.py, network_port
        try:
            port = int(value)
        except (TypeError, ValueError):
            raise Invalid(f"option '{key}': expected a port") from None
        _in_range(port, {"min": 1, "max": 65535}, key)
        return port
    if typ.startswith("bool"):
        if isinstance(value, str):
            if value.lower() in _TRUE:
                return True
            if value.lower() in _FALSE:
                return False
            raise Invalid(f"option '{key}': expected boolean")
        return bool(value)
    if typ.startswith("match"):
        if not re.match(match.group("match"), str(value)):
            raise Invalid(f"option '{key}': {str(value)!r} does not match {match.group('match')}")
        return str(value)
    if typ.startswith("list"):
        if str(value) not in match.group("list").split("|"):
            raise Invalid(f"option '{key}': {str(value)!r} is not one of {match.group('list')}")
        return str(value)
    raise NotImplementedError(f"type {typ} is not re-implemented here")


def _in_range(number: float, bounds: dict[str, float], key: str) -> None:
    if ("min" in bounds and number < bounds["min"]) or ("max" in bounds and number > bounds["max"]):
        raise Invalid(f"option '{key}': {number} is out of range {bounds}")


def mounts(config: dict[str, Any]) -> dict[str, bool]:
    """Container folder -> read-only, for the folders the Supervisor mounts for `config`."""
    result = {"/data": False}
    for entry in config.get("map", []):
        if isinstance(entry, str):
            found = RE_VOLUME.match(entry)
            if not found:
                continue  # logged and skipped by the Supervisor
            kind, read_only = found.group(1), found.group(2) != "rw"
            path = None
        else:
            kind, read_only, path = entry["type"], entry.get("read_only", True), entry.get("path")
        if kind not in TARGETS:
            raise NotImplementedError(f"map type {kind} is not re-implemented here")
        result[path or TARGETS[kind]] = read_only
    return result


def backed_up(data: Path, backup_exclude: list[str]) -> set[str]:
    """The files of an add-on's data folder that go into its backup, relative to `data`.

    Read in `supervisor/addons/addon.py` (`Addon.backup`, `Addon._is_excluded_by_filter`) and
    securetar's `atomic_contents_add`: the folder is walked, each item's full path as the
    Supervisor sees it (the data folder plus the item's path) is tested with `PurePath.match`
    against each `backup_exclude` glob (matched from the right, `*` within one part), and an
    excluded folder is skipped whole.
    """
    kept: set[str] = set()

    def walk(folder: Path) -> None:
        for item in sorted(folder.iterdir()):
            if any(PurePath(item).match(glob) for glob in backup_exclude):
                continue
            if item.is_dir() and not item.is_symlink():
                walk(item)
            else:
                kept.add(item.relative_to(data).as_posix())

    walk(data)
    return kept
