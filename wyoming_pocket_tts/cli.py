"""Command-line flags -> typed settings.

A wrong or conflicting flag exits 2: argparse's usage, then one line naming the flag and why.
Defaults come from the settings' own dataclasses, so the two cannot drift.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__, cli_checks
from .cli_checks import QUANTIZE
from .flags import (
    AppendModel,
    idle_minutes,
    loudness_target,
    milliseconds,
    positive_int,
    speed_factor,
    tcp_port,
    thread_count,
    voice_alias,
    voice_spec,
)
from .settings import (
    AUTO,
    MAX_SILENCE_MS,
    MAX_SPEED,
    MAX_TORCH_THREADS,
    MAX_UNLOAD_MINUTES,
    MIN_SPEED,
    RUNTIMES,
    EngineSettings,
    HttpSettings,
    LoudnessSettings,
    ModelSettings,
    ServerSettings,
    Settings,
    SpeechSettings,
    default_data_dir,
)

QUANTIZE_MODES = tuple(QUANTIZE)
"""`fr=my_french.yaml`: a language code for a custom config."""
_SERVER = ServerSettings()
_ENGINE = EngineSettings()
_SPEECH = SpeechSettings()
_HTTP = HttpSettings()
_MODEL = ModelSettings()


class FlagError(ValueError):
    """A command line the server refuses: the line `parse_settings` would exit with."""


class _RaisingParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise FlagError(message)


def build_parser(
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> argparse.ArgumentParser:
    """The server's argument parser (also used to validate the add-on's options)."""
    parser = parser_class(
        prog="wyoming-pocket-tts",
        description="Wyoming protocol server for Kyutai's Pocket-TTS text-to-speech.",
    )
    parser.add_argument(
        "--uri",
        default=_SERVER.uri,
        help="where Wyoming clients connect: tcp://HOST:PORT or unix://PATH (default: %(default)s)",
    )
    parser.add_argument(
        "--language",
        dest="models",
        action=AppendModel,
        metavar="NAME",
        help=f"a pocket-tts built-in model (default: {_MODEL.model}); repeatable, the first is "
        "the default",
    )
    parser.add_argument(
        "--model-config",
        dest="models",
        action=AppendModel,
        metavar="[CODE=]PATH_OR_URL",
        help="a pocket-tts YAML config (path, https:// or hf://), with its language code; "
        "repeatable",
    )
    parser.add_argument(
        "--max-models",
        type=positive_int,
        default=_ENGINE.max_models,
        metavar="N",
        help="models kept loaded at once; others are loaded on request (default: %(default)s)",
    )
    parser.add_argument(
        "--preload",
        action="store_true",
        help="load every language's model at start instead of on its first request",
    )
    parser.add_argument(
        "--unload-after",
        type=idle_minutes,
        default=None,
        metavar="MINUTES",
        help=f"unload a model unused for this many minutes (0 to {MAX_UNLOAD_MINUTES}, fractions "
        "allowed), to give its memory back; the next request loads it again (default: 0, never)",
    )
    parser.add_argument(
        "--voice",
        action="append",
        type=voice_spec,
        default=[],
        metavar="[CODE:]NAME=SOURCE[,speed=FACTOR]",
        help="a voice: built-in name, audio file, .safetensors state, hf:// path or https:// URL, "
        "spoken by the "
        "model of language CODE (default: the first), at its own speed (default: --speed); "
        "repeatable, the first is the default",
    )
    parser.add_argument(
        "--voices-dir",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a folder of voices (audio files or .safetensors states, named after the file); "
        "rescanned on every describe; repeatable",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        metavar="DIR",
        help="what the server makes and keeps: voice states (voice-states/), tuning decisions "
        "(tuning/), ONNX Runtime graphs (graphs/, under 500 MiB for english), pronunciations "
        "(pronunciations/) and default voices (default-voices.json) (default: %(default)s)",
    )
    parser.add_argument(
        "--voice-cache-size",
        type=positive_int,
        default=_ENGINE.voice_cache_size,
        metavar="N",
        help="voice states kept in memory (default: %(default)s)",
    )
    parser.add_argument(
        "--max-text-chars",
        type=positive_int,
        default=_SERVER.max_text_chars,
        metavar="N",
        help="longest text per request, in characters; longer gets text-too-long "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--max-queue",
        type=positive_int,
        default=_ENGINE.max_queue,
        metavar="N",
        help="connections whose requests the engine may hold at once before new ones get 'busy' "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--max-connections",
        type=positive_int,
        default=_SERVER.max_connections,
        metavar="N",
        help="open connections before new ones are refused (default: %(default)s)",
    )
    parser.add_argument(
        "--loudness",
        type=loudness_target,
        default=LoudnessSettings().target_lufs,
        metavar="LUFS",
        help="bring every voice to this integrated loudness, in LUFS, measured once per voice, "
        "or off to leave the samples as the model makes them (default: %(default)s)",
    )
    parser.add_argument(
        "--speed",
        type=speed_factor,
        default=_SPEECH.speed,
        metavar="FACTOR",
        help=f"speaking rate of every voice without its own, {MIN_SPEED} to {MAX_SPEED}; pitch is "
        "kept (default: %(default)s, the model's own pace)",
    )
    parser.add_argument(
        "--sentence-pause",
        type=milliseconds,
        default=_SPEECH.sentence_pause_ms,
        metavar="MS",
        help=f"silence added between sentences, 0 to {MAX_SILENCE_MS} ms (default: %(default)s)",
    )
    parser.add_argument(
        "--lead-silence",
        type=milliseconds,
        default=_SPEECH.lead_silence_ms,
        metavar="MS",
        help=f"silence before the first chunk, 0 to {MAX_SILENCE_MS} ms, for players that clip "
        "the start (default: %(default)s)",
    )
    parser.add_argument(
        "--trail-silence",
        type=milliseconds,
        default=_SPEECH.trail_silence_ms,
        metavar="MS",
        help=f"silence after the last chunk, 0 to {MAX_SILENCE_MS} ms, for players that cut off "
        "the end (default: %(default)s)",
    )
    parser.add_argument(
        "--quantize",
        nargs="?",
        choices=QUANTIZE_MODES,
        default="auto",
        const="on",
        help="int8 dynamic quantization (default: %(default)s; a bare --quantize means on). "
        "Without torch, auto and on serve int8 graphs where they pass a check against fp32 on "
        "this CPU, off fp32. With torch (the [torch] extra), auto measures both ways on this "
        "host at the first start and keeps the lowest first audio that stays real time (saved "
        "in --data-dir/tuning/); under --runtime onnx it means fp32",
    )
    parser.add_argument(
        "--runtime",
        choices=RUNTIMES,
        default=AUTO,
        help="what runs each 80 ms frame (default: %(default)s). auto: ONNX Runtime graphs "
        "built from the model's checkpoint in a separate process (cached in "
        "--data-dir/graphs/): without torch, at the first start before serving; with torch "
        "(the [torch] extra), in the background while torch serves, then timed against it "
        "when idle and kept unless torch is faster (saved in --data-dir); torch: pocket-tts's "
        "own modules (needs the [torch] extra); onnx: the graphs always",
    )
    parser.add_argument(
        "--retry-graphs",
        action="store_true",
        help="forget an ONNX Runtime graph build that failed before (remembered in "
        "--data-dir/graphs/), so that --runtime onnx or auto builds them again at this start",
    )
    parser.add_argument(
        "--threads",
        type=thread_count,
        default=None,
        metavar="N|auto",
        help=f"threads for generation, 1 to {MAX_TORCH_THREADS}, on either runtime: auto is 1, "
        "or measured where torch is installed and --quantize is auto; N for hosts where you "
        "know better (default: auto)",
    )
    parser.add_argument(
        "--no-text-cleanup",
        action="store_true",
        help="speak text as sent (keep markdown, emoji, ...)",
    )
    parser.add_argument(
        "--no-number-words",
        action="store_true",
        help="keep digits, units and symbols as sent, for automations that already write words",
    )
    parser.add_argument(
        "--language-code",
        metavar="CODE",
        help="language code of the first model (e.g. en-GB; default: from its name)",
    )
    parser.add_argument(
        "--zeroconf",
        nargs="?",
        const="pocket-tts",
        metavar="NAME",
        help="announce the server over mDNS for Home Assistant (name default: pocket-tts)",
    )
    parser.add_argument("--zeroconf-host", metavar="HOST", help="address to announce over mDNS")
    parser.add_argument(
        "--http-port",
        type=tcp_port,
        metavar="PORT",
        help="also serve an OpenAI-compatible speech API (POST /v1/audio/speech) and the voice "
        "studio on this port; 0 picks a free one (default: off)",
    )
    parser.add_argument(
        "--http-host",
        default=_HTTP.host,
        metavar="HOST",
        help="address of the HTTP API (default: %(default)s, this machine only)",
    )
    parser.add_argument(
        "--http-token",
        metavar="TOKEN",
        help="require 'Authorization: Bearer TOKEN' on the HTTP API (or set "
        "WYOMING_POCKET_TTS_HTTP_TOKEN)",
    )
    parser.add_argument(
        "--http-cors",
        metavar="ORIGIN",
        help="let browser pages from ORIGIN (e.g. http://openwebui.local:3000, or *) call the "
        "HTTP API",
    )
    parser.add_argument(
        "--voice-alias",
        action="append",
        type=voice_alias,
        default=[],
        metavar="NAME=VOICE",
        help="on the HTTP API, NAME (e.g. OpenAI's alloy, which otherwise speaks with the "
        "default voice) speaks with VOICE; repeatable",
    )
    parser.add_argument(
        "--ingress-proxy",
        metavar="ADDRESS",
        help="a proxy that has authenticated its users (the add-on: Home Assistant's ingress, "
        "172.30.32.2): its requests need no token, and only it reaches the voice studio",
    )
    parser.add_argument(
        "--http-ingress-only",
        action="store_true",
        help="answer only --ingress-proxy on the HTTP port (the add-on with http_api off)",
    )
    parser.add_argument("--debug", action="store_true", help="log DEBUG messages")
    parser.add_argument("--version", action="version", version=__version__)
    return parser


def refusal(argv: Sequence[str]) -> str | None:
    """Why the server would refuse this command line (the message after `error:`), or None."""
    try:
        parse_settings(argv, parser_class=_RaisingParser)
    except FlagError as error:
        return str(error)
    return None


def parse_settings(
    argv: Sequence[str] | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> Settings:
    """Parse and validate the command line; exits with code 2 on a bad flag."""
    parser = build_parser(parser_class)
    args = parser.parse_args(argv)
    cli_checks.check_uri(parser, args.uri)
    models = cli_checks.models(parser, args)
    voices = cli_checks.check_voices(parser, args.voice, models)
    if args.zeroconf is not None and not args.uri.startswith("tcp://"):
        parser.error("--zeroconf needs a tcp:// --uri")
    http = cli_checks.http(parser, args)
    return Settings(
        server=ServerSettings(
            uri=args.uri,
            max_text_chars=args.max_text_chars,
            max_connections=args.max_connections,
            clean_text=not args.no_text_cleanup,
            number_words=not args.no_number_words,
        ),
        engine=EngineSettings(
            models=models,
            max_models=args.max_models,
            preload=args.preload,
            unload_after=args.unload_after,
            retry_graphs=args.retry_graphs,
            voice_cache_size=args.voice_cache_size,
            max_queue=args.max_queue,
            data_dir=args.data_dir.expanduser(),
            loudness=None if args.loudness is None else LoudnessSettings(args.loudness),
            speech=SpeechSettings(
                speed=args.speed,
                sentence_pause_ms=args.sentence_pause,
                lead_silence_ms=args.lead_silence,
                trail_silence_ms=args.trail_silence,
            ),
        ),
        voices=voices,
        voices_dirs=tuple(cli_checks.voices_dir(parser, path) for path in args.voices_dir),
        zeroconf_name=args.zeroconf,
        zeroconf_host=args.zeroconf_host,
        http=http,
        debug=args.debug,
    )
