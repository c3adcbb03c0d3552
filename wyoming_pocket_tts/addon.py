"""Container entry point: the Home Assistant add-on's options, or plain flags, to the server.

`python -m wyoming_pocket_tts.addon [--options FILE] [--data-dir DIR] [SERVER FLAGS...]`

- Add-on mode, when `--options` is given or `/data/options.json` exists (the Supervisor writes it):
  the options become server flags (`options_to_argv`, one row per option in `OPTIONS`).
- Plain mode otherwise (`docker run IMAGE --voice ...`): the flags go to the server unchanged.

Either way the server listens on tcp://0.0.0.0:10200 unless a flag says otherwise, keeps its
voice states in the data directory, and Hugging Face downloads go to `<data dir>/huggingface`
(unless `HF_HOME` is set), so the model is fetched once and survives restarts and updates.

The Supervisor only starts the add-on with options its schema accepts (config.yaml), so every such
option must start the server: a value the server would refuse is replaced by its default with one
warning line (`addon_repair`), and a voices folder that is missing and cannot be created is a
warning too. Only an options file that is unreadable, or holds a value of the wrong JSON type
(which the Supervisor never writes), exits with code 2, before torch is imported. The server then
runs in this process (PID 1 in the container), so it receives SIGTERM directly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .addon_repair import (
    CONFIG_DIR,
    DEFAULT_VOICES_DIR,
    SHARE_DIR,
    language_of,
    prepare_voices_dir,
    settle_options,
)
from .cli import parse_settings, refusal
from .cli_checks import HTTP_TOKEN_ENV
from .http.auth import INGRESS_PROXY
from .pocket import builtin_models
from .settings import DEFAULT_SPEED, RUNTIMES
from .voices.folder import VoiceFolder

OPTIONS_FILE = Path("/data/options.json")
DATA_DIR = Path("/data")
ADDON_URI = "tcp://0.0.0.0:10200"
ADDON_HTTP_PORT = 10201
ADDON_HTTP_HOST = "0.0.0.0"
"""The HTTP side's port inside the container: config.yaml's `ingress_port`, so always served
(mapped to a host port only if the user gives one)."""
PROG = "wyoming-pocket-tts add-on"

__all__ = [
    "CONFIG_DIR",
    "DEFAULT_VOICES_DIR",
    "OPTIONS",
    "SHARE_DIR",
    "OptionsError",
    "check_options",
    "folder_voices",
    "main",
    "options_to_argv",
    "prepare_voices_dir",
]

Flags = Callable[[Any], list[str]]


def _value(flag: str) -> Flags:
    return lambda value: [flag, str(value).strip()] if str(value).strip() else []


def _switch(flag: str, when: bool = True) -> Flags:
    return lambda value: [flag] if value is when else []


def _quantize(value: Any) -> list[str]:
    mode = {"True": "on", "False": "off", True: "on", False: "off"}.get(value, value)
    return [] if mode == "auto" else ["--quantize", mode]


def _none(value: Any) -> list[str]:
    return []


def _http_api(value: Any) -> list[str]:
    """The HTTP port is always served: it is the studio's ingress port. With the API off, it
    answers only the ingress proxy."""
    listen = ["--http-port", str(ADDON_HTTP_PORT), "--http-host", ADDON_HTTP_HOST]
    return [*listen, "--ingress-proxy", INGRESS_PROXY, *([] if value else ["--http-ingress-only"])]


def _http_cors(value: Any) -> list[str]:
    return ["--http-cors", str(value).strip()] if str(value).strip() else []


def _voice_aliases(value: Any) -> list[str]:
    """`--voice-alias NAME=VOICE` for each entry of `voice_aliases`."""
    pairs = (f"{alias['name'].strip()}={alias['voice'].strip()}" for alias in value)
    return [flag for pair in pairs for flag in ("--voice-alias", pair)]


def _unless_text(flag: str, default: str) -> Flags:
    """The flag with the value, unless it is the server's default (as text)."""
    return lambda value: [] if str(value) == default else [flag, str(value)]


def _unless(flag: str, default: float) -> Flags:
    """The flag with the value, unless it is the server's default (a number)."""
    return lambda value: [] if value == default else [flag, f"{value:g}"]


@dataclass(frozen=True)
class Option:
    """One option of config.yaml's schema: the JSON type(s) the Supervisor writes, and its flags."""

    kind: type | tuple[type, ...]
    expected: str
    flags: Flags = _none
    """Server flags for a value; options that combine with others (models, voices) map in
    `options_to_argv` itself, and those of `ENVIRONMENT` become environment variables."""
    optional: bool = False
    """The schema marks it `?`: it may be missing, and an empty or null value adds no flag."""
    choices: tuple[str, ...] = ()
    """The schema's `list(...)` values, compared as the Supervisor does (`str(value)`)."""


OPTIONS: dict[str, Option] = {
    "language": Option(str, "a string"),
    "languages": Option(list, "a list"),
    "voice": Option(str, "a string", optional=True),
    "voices": Option(list, "a list"),
    "voices_dir": Option(str, "a string", _value("--voices-dir"), optional=True),
    "max_models": Option(int, "an integer", _value("--max-models")),
    "preload": Option(bool, "true or false", _switch("--preload")),
    "unload_after": Option(int, "an integer", _unless("--unload-after", 0)),
    "voice_cache_size": Option(int, "an integer", _value("--voice-cache-size")),
    "loudness": Option(str, "a string", _value("--loudness")),
    # A bool in 0.1.0; the Supervisor writes its saved true/false as the strings "True"/"False".
    "quantize": Option((str, bool), "auto, on or off", _quantize),
    "runtime": Option(
        str, "torch, onnx or auto", _unless_text("--runtime", "auto"), choices=RUNTIMES
    ),
    "retry_graphs": Option(bool, "true or false", _switch("--retry-graphs")),
    # A number may arrive as an integer; the schema's list gives the strings.
    "threads": Option(
        (str, int),
        "auto or a number of threads from 1 to 8",
        _unless_text("--threads", "auto"),
        choices=("auto", *map(str, range(1, 9))),
    ),
    "speed": Option((int, float), "a number", _unless("--speed", DEFAULT_SPEED)),
    "sentence_pause": Option(int, "an integer", _unless("--sentence-pause", 0)),
    "lead_silence": Option(int, "an integer", _unless("--lead-silence", 0)),
    "trail_silence": Option(int, "an integer", _unless("--trail-silence", 0)),
    "text_cleanup": Option(bool, "true or false", _switch("--no-text-cleanup", when=False)),
    "number_words": Option(bool, "true or false", _switch("--no-number-words", when=False)),
    "debug_logging": Option(bool, "true or false", _switch("--debug")),
    "http_api": Option(bool, "true or false", _http_api),
    # Only with the HTTP API on (the server refuses --http-cors without --http-port).
    "http_cors": Option(str, "a string", optional=True),
    "hf_token": Option(str, "a string", optional=True),
    "http_token": Option(str, "a string", optional=True),
    "voice_aliases": Option(list, "a list", _voice_aliases),
    "hf_endpoint": Option(str, "a string", optional=True),
    "https_proxy": Option(str, "a string", optional=True),
}
"""Every option of config.yaml's schema, in the order their flags are given. A new server flag's
option is one row here (plus config.yaml's options and schema, translations/en.yaml, DOCS.md)."""
_VOICE_KEYS = {"name", "source", "language", "speed"}
_ALIAS_KEYS = {"name", "voice"}

ENVIRONMENT = {"hf_token": "HF_TOKEN", "hf_endpoint": "HF_ENDPOINT", "https_proxy": "HTTPS_PROXY"}
"""Options huggingface_hub reads from the environment (at import: set before it is imported).
The Supervisor lets an add-on's user set no environment variable, so these options do; the
token stays off the command line. `http_token` joins them (`option_environment`)."""


class OptionsError(ValueError):
    """options.json cannot be read, or holds a type the add-on schema does not allow."""


def check_options(options: Any) -> None:
    """Raise OptionsError unless every known option has the JSON type config.yaml's schema gives
    it. Unknown options are not checked: the Supervisor drops them, and so does `settle_options`.
    """
    if not isinstance(options, Mapping):
        raise OptionsError(f"options must be a JSON object, got {json.dumps(options)}")
    for key, value in options.items():
        if key not in OPTIONS:
            continue
        option = OPTIONS[key]
        if value is None and option.optional:
            continue
        if (
            not isinstance(value, option.kind)
            or (isinstance(value, bool) and bool not in _kinds(option.kind))
            or (option.choices and str(value) not in option.choices)
        ):
            raise OptionsError(f"option {key!r} must be {option.expected}, got {json.dumps(value)}")
    for number, voice in enumerate(options.get("voices", []), 1):
        where = f"option 'voices' entry {number}"
        if not isinstance(voice, Mapping) or not {"name", "source"} <= set(voice) <= _VOICE_KEYS:
            raise OptionsError(
                f"{where} needs 'name' and 'source' (and maybe 'language'), got {json.dumps(voice)}"
            )
        if not all(isinstance(voice.get(key, ""), str | None) for key in _VOICE_KEYS - {"speed"}):
            raise OptionsError(f"{where}: 'name', 'source' and 'language' must be strings")
        speed = voice.get("speed")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, int | float)):
            raise OptionsError(f"{where}: 'speed' must be a number, got {json.dumps(speed)}")
    for number, alias in enumerate(options.get("voice_aliases", []), 1):
        if not (
            isinstance(alias, Mapping)
            and set(alias) == _ALIAS_KEYS
            and all(isinstance(alias[key], str) for key in _ALIAS_KEYS)
        ):
            raise OptionsError(
                f"option 'voice_aliases' entry {number} needs the strings 'name' and 'voice', "
                f"got {json.dumps(alias)}"
            )


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def options_to_argv(
    options: Mapping[str, Any], folder_voices: Mapping[str, str] | None = None
) -> list[str]:
    """The server flags for the add-on's options; raises OptionsError for a wrong type.

    The values are used as given: `settle_options` first replaces those the server would refuse.
    The default `voice` is listed first: moved to the front if it is one of `voices`, else taken
    from `folder_voices` (name -> file of the voices folder), else a pocket-tts built-in voice of
    that name. Not included: --uri and --data-dir (`main` adds them) and `hf_token` (an
    environment variable, kept out of the command line), nor `http_token` (likewise).
    """
    check_options(options)
    folder_voices = folder_voices or {}
    argv: list[str] = []
    languages = [options["language"]] if options.get("language") else []
    for language in options.get("languages", []):
        if language not in languages:
            languages.append(language)
    for language in languages:
        argv += ["--language", language]
    voices = [_voice_flag(voice) for voice in options.get("voices", [])]
    default = (options.get("voice") or "").strip()
    if default:
        names = [voice["name"].strip() for voice in options.get("voices", [])]
        if default in names:
            voices.insert(0, voices.pop(names.index(default)))
        elif default in folder_voices:
            voices.insert(0, f"{default}={folder_voices[default]}")
        else:
            voices.insert(0, default)
    for voice in voices:
        argv += ["--voice", voice]
    for key, option in OPTIONS.items():
        if options.get(key) is not None:
            argv += option.flags(options[key])
    if options.get("http_api") and options.get("http_cors"):
        argv += _http_cors(options["http_cors"])
    return argv


def server_checked(
    options: Mapping[str, Any], folder_voices: Mapping[str, str], fixed: Sequence[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """The options whose flags the server's own parser accepts; (options, one line per drop).

    Each option (each entry of `voices`) is tried in turn on top of the ones kept so far, after
    the flags `fixed`, in `OPTIONS` order but `voices` before `voice` (the default may name one).
    """
    kept: dict[str, Any] = {}
    notes: list[str] = []
    order = sorted(options, key=lambda key: (key == "voice", key not in OPTIONS))
    for key in order:
        if key == "voices":
            kept["voices"] = []
            for number, voice in enumerate(options["voices"], 1):
                trial = {**kept, "voices": [*kept["voices"], voice]}
                why = refusal([*fixed, *options_to_argv(trial, folder_voices)])
                if why is None:
                    kept["voices"].append(voice)
                else:
                    where = f"Option 'voices' entry {number} ({voice['name'].strip()})"
                    notes.append(f"{where}: {why}; ignored")
            continue
        why = refusal([*fixed, *options_to_argv({**kept, key: options[key]}, folder_voices)])
        if why is None:
            kept[key] = options[key]
        else:
            notes.append(f"Option {key!r}: {why}; ignored")
    return kept, notes


def _voice_flag(voice: Mapping[str, Any]) -> str:
    """`--voice` for an entry of `voices`: its language is a code (`fr`) or a model (`french`);
    its speed (if any) a `,speed=` field."""
    flag = f"{voice['name'].strip()}={voice['source'].strip()}"
    if voice.get("speed") is not None:
        flag += f",speed={voice['speed']:g}"
    language = (voice.get("language") or "").strip()
    if not language:
        return flag
    return f"{language_of(language) or language}:{flag}"


def option_environment(options: Mapping[str, Any]) -> dict[str, str]:
    """The environment variables the options set: `ENVIRONMENT`'s that are not empty, and the
    HTTP API's key while the API is on."""
    environment = {
        variable: str(options[key]).strip()
        for key, variable in ENVIRONMENT.items()
        if str(options.get(key) or "").strip()
    }
    if options.get("http_api") and (options.get("http_token") or "").strip():
        environment[HTTP_TOKEN_ENV] = options["http_token"].strip()
    return environment


def load_options(path: Path) -> dict[str, Any]:
    """Read options.json; raises OptionsError if it cannot be read or is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise OptionsError(f"cannot read {path}: {error.strerror or error}") from error
    except ValueError as error:
        raise OptionsError(f"{path} is not valid JSON: {error}") from error


def folder_voices(voices_dir: str | None) -> dict[str, str]:
    """The voices the server will find in the voices folder, by name (as the server scans it)."""
    if not voices_dir or not Path(voices_dir).is_dir():
        return {}
    return {spec.name: spec.source for spec in VoiceFolder(Path(voices_dir)).scan()}


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Build the server's command line, validate it, then serve in this process."""
    parser = argparse.ArgumentParser(prog=PROG, add_help=False, allow_abbrev=False)
    parser.add_argument("--options", type=Path, help=f"add-on options (default {OPTIONS_FILE})")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args, server_flags = parser.parse_known_args(argv)

    fixed = ["--uri", ADDON_URI, "--data-dir", str(args.data_dir)]
    option_flags: list[str] = []
    if args.options is not None or OPTIONS_FILE.is_file():
        try:
            options = load_options(args.options or OPTIONS_FILE)
            check_options(options)
        except OptionsError as error:
            return _fail(str(error))
        voices_dir, notes = prepare_voices_dir(options.get("voices_dir"))
        options = {**options, "voices_dir": voices_dir}
        found = folder_voices(voices_dir)
        options, more = settle_options(options, OPTIONS, builtin_models(), found)
        options, refused = server_checked(options, found, fixed)
        for note in [*notes, *more, *refused]:
            _warn(note)
        option_flags = options_to_argv(options, found)
        os.environ.update(option_environment(options))

    server_argv = [*fixed, *option_flags, *server_flags]
    parse_settings(server_argv)  # exits 2 on a bad value, before anything heavy is loaded
    os.environ.setdefault("HF_HOME", str(args.data_dir / "huggingface"))

    # Imported last: HF_HOME must be set before huggingface_hub and pocket-tts are loaded.
    from .__main__ import main as serve

    return serve(server_argv)


if __name__ == "__main__":
    sys.exit(main())
