"""What an OpenAI client lists before it speaks: `GET /v1/models`, `GET /v1/audio/models` and
`GET /v1/audio/voices`, in the shapes OpenAI clients and Open WebUI read.

- `/v1/models`: OpenAI's model list (`{"object": "list", "data": [{"id", ...}]}`).
- `/v1/audio/models`: the same ids as `{"models": [{"id", "name"}]}`, as Open WebUI reads them.
- `/v1/audio/voices`: `data` (each voice with its languages and whether it can speak now, then
  each alias marked with `alias_of`), `default`, and `voices` (`[{"id", "name"}]`, what Open
  WebUI's voice list shows: the household's voices that can speak now, then the aliases it
  mapped itself).

Like every route but `/health`, they need the token when one is set (the voice names are the
household's); a client refused the list still speaks with OpenAI's names (`aliases`).
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from ..service import Service
from .aliases import OPENAI_MODELS, VoiceAliases

SERVICE = web.AppKey("service", Service)
ALIASES = web.AppKey("voice_aliases", VoiceAliases)
MODEL_ID = "pocket-tts"


def add_routes(app: web.Application) -> None:
    app.router.add_get("/v1/models", list_models)
    app.router.add_get("/v1/audio/models", list_audio_models)
    app.router.add_get("/v1/audio/voices", list_voices)


def model_ids(service: Service) -> list[str]:
    """Every `model` a request may name: `pocket-tts` and OpenAI's models (the default
    language), then each language's model under its name and its code."""
    ids = [MODEL_ID, *OPENAI_MODELS]
    for model in service.engine.settings.models:
        ids += [name for name in (model.model, model.code) if name and name not in ids]
    return ids


async def list_models(request: web.Request) -> web.Response:
    created = int(time.time())
    data = [
        {"id": i, "object": "model", "created": created, "owned_by": "kyutai"}
        for i in model_ids(request.app[SERVICE])
    ]
    return web.json_response({"object": "list", "data": data})


async def list_audio_models(request: web.Request) -> web.Response:
    ids = model_ids(request.app[SERVICE])
    return web.json_response({"models": [{"id": i, "name": i} for i in ids]})


async def list_voices(request: web.Request) -> web.Response:
    service, aliases = request.app[SERVICE], request.app[ALIASES]
    voices = service.info().tts[0].voices
    data: list[dict[str, Any]] = [
        {"id": v.name, "name": v.name, "languages": v.languages, "installed": v.installed}
        for v in voices
    ]
    shown = [{"id": v.name, "name": v.name} for v in voices if v.installed]
    by_name = {entry["id"]: entry for entry in data}
    default = data[0]["id"]
    for alias in aliases:
        if alias.name in by_name:  # a voice of the household keeps its name
            continue
        target = by_name.get(alias.target or default)
        data.append({
            "id": alias.name,
            "name": alias.name,
            "languages": target["languages"] if target else [],
            "installed": bool(target and target["installed"]),
            "alias_of": alias.target or default,
        })  # fmt: skip
        if alias.target is not None:
            shown.append({"id": alias.name, "name": f"{alias.name} ({alias.target})"})
    return web.json_response({"object": "list", "data": data, "default": default, "voices": shown})
