"""Container entry point: the Home Assistant add-on's options, or plain flags, to the server.

`python -m wyoming_pocket_tts.addon [--options FILE] [--data-dir DIR] [SERVER FLAGS...]`

- Add-on mode, when `--options` is given or `/data/options.json` exists (the Supervisor writes it):
  the options become server flags (`options_to_argv`).
- Plain mode otherwise (`docker run IMAGE --voice ...`): the flags go to the server unchanged.

Either way the server listens on tcp://0.0.0.0:10200 unless a flag says otherwise, keeps its
voice states in the data directory, and Hugging Face downloads go to `<data dir>/huggingface`
(unless `HF_HOME` is set), so the model is fetched once and survives restarts and updates.
The flags are validated by the server's own parser before torch is imported: a bad option exits
with code 2 and the same message the command line would give. The server then runs in this process
(PID 1 in the container), so it receives SIGTERM directly.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .cli import HTTP_TOKEN_ENV, builtin_languages, parse_settings
from .settings import ModelSettings
from .voices.catalog import language_code
from .voices.folder import VoiceFolder

_LOGGER = logging.getLogger(__name__)

OPTIONS_FILE = Path("/data/options.json")
DATA_DIR = Path("/data")
SHARE_DIR = Path("/share")
"""Home Assistant's folder shared with Samba and other add-ons: voices_dir is created only here."""
ADDON_URI = "tcp://0.0.0.0:10200"
ADDON_HTTP_PORT = 10201
"""The HTTP API's port inside the container; the user maps it to a host port (off by default)."""
PROG = "wyoming-pocket-tts add-on"

_OPTION_TYPES: dict[str, tuple[type | tuple[type, ...], str]] = {
    "language": (str, "a string"),
    "languages": (list, "a list"),
    "max_models": (int, "an integer"),
    "preload": (bool, "true or false"),
    "voice": (str, "a string"),
    "voices": (list, "a list"),
    "voices_dir": (str, "a string"),
    "hf_token": (str, "a string"),
    "voice_cache_size": (int, "an integer"),
    "loudness": (str, "a string"),
    "quantize": ((str, bool), "auto, on or off"),
    "text_cleanup": (bool, "true or false"),
    "number_words": (bool, "true or false"),
    "http_api": (bool, "true or false"),
    "http_token": (str, "a string"),
    "http_cors": (str, "a string"),
    "debug_logging": (bool, "true or false"),
}
"""Every option of config.yaml's schema and the JSON type the Supervisor writes for it."""
_VOICE_KEYS = {"name", "source", "language"}
_OPTIONAL = ("voice", "voices_dir", "hf_token", "http_token", "http_cors")
"""Options the Supervisor leaves out (or that may be null or empty) when the user clears them."""
_QUANTIZE_MODES = ("auto", "on", "off")
"""Values of the `quantize` option; it was a bool at first, and true/false still mean on/off."""


class OptionsError(ValueError):
    """options.json holds something the add-on schema does not allow."""


def check_options(options: Any) -> None:
    """Raise OptionsError unless every option has the type config.yaml's schema gives it."""
    if not isinstance(options, Mapping):
        raise OptionsError(f"options must be a JSON object, got {json.dumps(options)}")
    for key, value in options.items():
        if key not in _OPTION_TYPES:
            raise OptionsError(f"unknown option {key!r}")
        kind, expected = _OPTION_TYPES[key]
        if value is None and key in _OPTIONAL:
            continue
        if (
            not isinstance(value, kind)
            or (kind is int and isinstance(value, bool))
            or (key == "quantize" and isinstance(value, str) and value not in _QUANTIZE_MODES)
        ):
            raise OptionsError(f"option {key!r} must be {expected}, got {json.dumps(value)}")
    for number, voice in enumerate(options.get("voices", []), 1):
        where = f"option 'voices' entry {number}"
        if not isinstance(voice, Mapping) or not {"name", "source"} <= set(voice) <= _VOICE_KEYS:
            raise OptionsError(
                f"{where} needs 'name' and 'source' (and maybe 'language'), got {json.dumps(voice)}"
            )
        if not all(isinstance(voice.get(key, ""), str | None) for key in _VOICE_KEYS):
            raise OptionsError(f"{where}: 'name', 'source' and 'language' must be strings")
        if "=" in voice["name"]:
            raise OptionsError(f"{where}: a voice name cannot contain '=': {voice['name']!r}")


def options_to_argv(
    options: Mapping[str, Any], folder_voices: Mapping[str, str] | None = None
) -> list[str]:
    """The server flags for the add-on's options; raises OptionsError for a wrong type.

    The default `voice` is listed first: moved to the front if it is one of `voices`, else taken
    from `folder_voices` (name -> file of the voices folder), else a pocket-tts built-in voice of
    that name. Not included: --uri and --data-dir (`main` adds them), `hf_token` and
    `http_token` (environment variables, kept out of the command line).
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
    if options.get("voices_dir"):
        argv += ["--voices-dir", options["voices_dir"]]
    if "max_models" in options:
        argv += ["--max-models", str(options["max_models"])]
    if options.get("preload"):
        argv.append("--preload")
    if "voice_cache_size" in options:
        argv += ["--voice-cache-size", str(options["voice_cache_size"])]
    if str(options.get("loudness") or "").strip():
        argv += ["--loudness", options["loudness"].strip()]
    quantize = options.get("quantize", "auto")
    if isinstance(quantize, bool):
        quantize = "on" if quantize else "off"
    if quantize != "auto":
        argv += ["--quantize", quantize]
    if options.get("text_cleanup") is False:
        argv.append("--no-text-cleanup")
    if options.get("number_words") is False:
        argv.append("--no-number-words")
    if options.get("http_api"):
        # All interfaces inside the container: reachable only where the user maps the port.
        argv += ["--http-port", str(ADDON_HTTP_PORT), "--http-host", "0.0.0.0"]
        if (options.get("http_cors") or "").strip():
            argv += ["--http-cors", options["http_cors"].strip()]
    if options.get("debug_logging"):
        argv.append("--debug")
    return argv


def _voice_flag(voice: Mapping[str, str]) -> str:
    """`--voice` for an entry of `voices`: its language is a code (`fr`) or a model (`french`)."""
    flag = f"{voice['name']}={voice['source']}"
    language = (voice.get("language") or "").strip()
    if not language:
        return flag
    if language in builtin_languages():
        language = language_code(ModelSettings(language=language))
    return f"{language}:{flag}"


def load_options(path: Path) -> dict[str, Any]:
    """Read options.json; raises OptionsError if it cannot be read or is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise OptionsError(f"cannot read {path}: {error.strerror or error}") from error
    except ValueError as error:
        raise OptionsError(f"{path} is not valid JSON: {error}") from error


def prepare_voices_dir(voices_dir: str | None, share: Path = SHARE_DIR) -> None:
    """Create a missing voices folder if it lies under /share, so users find where to drop files.

    Anywhere else a missing folder is left for the server to report: it is probably a typo or a
    folder the add-on cannot see.
    """
    if not voices_dir:
        return
    path = Path(voices_dir).resolve()
    if path.exists() or not path.is_relative_to(share.resolve()):
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _LOGGER.warning("Cannot create voices folder %s: %s", path, error)


def folder_voices(voices_dir: str | None) -> dict[str, str]:
    """The voices the server will find in the voices folder, by name (as the server scans it)."""
    if not voices_dir or not Path(voices_dir).is_dir():
        return {}
    return {spec.name: spec.source for spec in VoiceFolder(Path(voices_dir)).scan()}


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Build the server's command line, validate it, then serve in this process."""
    parser = argparse.ArgumentParser(prog=PROG, add_help=False, allow_abbrev=False)
    parser.add_argument("--options", type=Path, help=f"add-on options (default {OPTIONS_FILE})")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args, server_flags = parser.parse_known_args(argv)

    option_flags: list[str] = []
    if args.options is not None or OPTIONS_FILE.is_file():
        try:
            options = load_options(args.options or OPTIONS_FILE)
            check_options(options)
        except OptionsError as error:
            return _fail(str(error))
        prepare_voices_dir(options.get("voices_dir"))
        option_flags = options_to_argv(options, folder_voices(options.get("voices_dir")))
        if options.get("hf_token"):
            # The voice-cloning weights are gated; huggingface_hub reads the token from here.
            os.environ["HF_TOKEN"] = options["hf_token"]
        if options.get("http_api") and (options.get("http_token") or "").strip():
            os.environ[HTTP_TOKEN_ENV] = options["http_token"].strip()

    fixed = ["--uri", ADDON_URI, "--data-dir", str(args.data_dir)]
    server_argv = [*fixed, *option_flags, *server_flags]
    parse_settings(server_argv)  # exits 2 on a bad value, before anything heavy is loaded
    os.environ.setdefault("HF_HOME", str(args.data_dir / "huggingface"))

    # Imported last: HF_HOME must be set before huggingface_hub and pocket-tts are loaded.
    from .__main__ import main as serve

    return serve(server_argv)


if __name__ == "__main__":
    sys.exit(main())
