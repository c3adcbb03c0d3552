"""The command line's checks across flags and against the disk, each refusal one `parser.error`
line naming the flag (exit 2); `cli.parse_settings` runs them."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from pathlib import Path
from urllib.parse import urlparse

from .engine.runtime import RuntimeKind
from .languages import UnknownLanguage, language_code
from .languages import known as known_language
from .pocket import builtin_models
from .settings import AUTO, LANGUAGE_CODE, HttpSettings, ModelSettings, VoiceSpec
from .voices.catalog import VoiceKind, voice_kind

QUANTIZE = {"auto": None, "on": True, "off": False}
"""`--quantize`'s words, as the model settings hold them."""

_CODE_PREFIX_RE = re.compile(rf"^({LANGUAGE_CODE})=(.+)$")


HTTP_TOKEN_ENV = "WYOMING_POCKET_TTS_HTTP_TOKEN"
"""The HTTP token may come from the environment, to keep it off the process list."""


def http(parser: argparse.ArgumentParser, args: argparse.Namespace) -> HttpSettings:
    token = args.http_token
    if token is None:
        token = os.environ.get(HTTP_TOKEN_ENV) or None
    if args.http_ingress_only and args.ingress_proxy is None:
        parser.error("--http-ingress-only needs --ingress-proxy")
    if args.http_port is None:
        for flag, value in (
            ("--http-token", args.http_token),
            ("--http-cors", args.http_cors),
            ("--ingress-proxy", args.ingress_proxy),
            ("--voice-alias", args.voice_alias or None),
        ):
            if value is not None:
                parser.error(f"{flag} needs --http-port")
        return HttpSettings(host=args.http_host)
    if token is not None and not token.strip():
        parser.error("--http-token: the token is empty")
    origin = args.http_cors
    if origin is not None and origin != "*":
        parsed = urlparse(origin)
        if (
            parsed.scheme not in ("http", "https")
            or not parsed.netloc
            or parsed.path not in ("", "/")
        ):
            parser.error(f"--http-cors {origin}: expected an origin like https://host[:port], or *")
        origin = f"{parsed.scheme}://{parsed.netloc}"
    return HttpSettings(
        port=args.http_port,
        host=args.http_host,
        token=token.strip() if token else None,
        cors_origin=origin,
        ingress_proxy=args.ingress_proxy,
        ingress_only=args.http_ingress_only,
        voice_aliases=_aliases(parser, args.voice_alias),
    )


def _aliases(
    parser: argparse.ArgumentParser, aliases: list[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    names = [name for name, _ in aliases]
    for name in names:
        if names.count(name) > 1:
            parser.error(f"--voice-alias {name}: mapped twice")
    return tuple(aliases)


def check_uri(parser: argparse.ArgumentParser, uri: str) -> None:
    parsed = urlparse(uri)
    if parsed.scheme == "tcp":
        try:
            port = parsed.port
        except ValueError:
            port = None
        if not parsed.hostname or port is None:
            parser.error(f"--uri {uri}: expected tcp://HOST:PORT")
    elif parsed.scheme != "unix" or not parsed.path:
        parser.error(f"--uri {uri}: expected tcp://HOST:PORT or unix://PATH")


def models(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[ModelSettings, ...]:
    """One model per language, in command-line order; codes must differ; a runtime asked for
    must be installed."""
    if args.runtime != AUTO and not RuntimeKind(args.runtime).installed:
        parser.error(f"--runtime {args.runtime}: {RuntimeKind(args.runtime).not_installed}")
    models: list[ModelSettings] = []
    for number, (flag, value) in enumerate(args.models or [("--language", ModelSettings().model)]):
        code = args.language_code if number == 0 else None
        if flag == "--model-config":
            prefixed = _CODE_PREFIX_RE.match(value)
            if prefixed:
                code, value = prefixed.group(1), prefixed.group(2)
            model = ModelSettings(
                model=None,
                config=_config(parser, value),
                quantize=QUANTIZE[args.quantize],
                threads=args.threads,
                runtime=args.runtime,
            )
        else:
            known = builtin_models()
            if value not in known:
                parser.error(
                    f"--language {value}: not a pocket-tts model (choose from {', '.join(known)})"
                )
            model = ModelSettings(
                model=value,
                quantize=QUANTIZE[args.quantize],
                threads=args.threads,
                runtime=args.runtime,
            )
        if code is not None and known_language(code) is None:
            where = "--language-code" if code == args.language_code else f"{flag} {value}"
            parser.error(f"{where}: {UnknownLanguage.about(code)}")
        model = dataclasses.replace(model, code=code or language_code(model.model, model.config))
        if any(other.code == model.code for other in models):
            parser.error(
                f"{flag} {value}: a model for language {model.code} is already configured "
                "(give a custom config another code: --model-config CODE=PATH)"
            )
        models.append(model)
    return tuple(models)


def _config(parser: argparse.ArgumentParser, config: str) -> str:
    if voice_kind(config) is VoiceKind.URL:
        return config
    path = Path(config).expanduser()
    if path.suffix not in (".yaml", ".yml"):
        parser.error(f"--model-config {config}: expected a .yaml file")
    if not path.is_file():
        parser.error(f"--model-config {config}: no such file")
    return str(path.resolve())


def check_voices(
    parser: argparse.ArgumentParser,
    voices: list[VoiceSpec],
    models: tuple[ModelSettings, ...],
) -> tuple[VoiceSpec, ...]:
    """Voices with their language set (the first model's by default), checked."""
    codes = [model.code for model in models]
    checked: list[VoiceSpec] = []
    for spec in voices:
        if any(other.name == spec.name for other in checked):
            parser.error(f"--voice {spec.name}: configured twice")
        if spec.code and spec.code not in codes:
            parser.error(
                f"--voice {spec.code}:{spec.name}: no model for language {spec.code} "
                f"(configured: {', '.join(codes)})"
            )
        if (
            voice_kind(spec.source) is VoiceKind.FILE
            and not Path(spec.source).expanduser().is_file()
        ):
            parser.error(f"--voice {spec.name}: no such file {spec.source}")
        checked.append(dataclasses.replace(spec, code=spec.code or codes[0]))
    return tuple(checked)


def voices_dir(parser: argparse.ArgumentParser, path: Path) -> Path:
    path = path.expanduser()
    if not path.is_dir():
        parser.error(f"--voices-dir {path}: no such folder")
    return path.resolve()
