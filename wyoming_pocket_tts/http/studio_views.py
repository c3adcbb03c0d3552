"""What the voice studio shows, as JSON: the voices by language with why one is not ready, and
the engine's status (models and their speed, the queue, the last requests)."""

from __future__ import annotations

import sys
from typing import Any

from ..engine.tuning.course import Phase
from ..engine.tuning.timing import Speed
from ..engine.tuning.tuned import Tuning
from ..engine.tuning.verdict import SLOW_RTF
from ..readiness import readiness
from ..service import Service
from ..settings import VoiceSpec
from ..voices import cloning
from ..voices.catalog import VoiceKind, describe_voice, voice_kind
from ..voices.manage import VoiceManager

BROKEN_FILE_REMEDY = (
    "The file could not be used as a voice: replace it with a clean recording "
    "(wav, mp3, flac or ogg), or delete it"
)


def origin(spec: VoiceSpec, manager: VoiceManager) -> str:
    """Where a voice comes from, in words."""
    if manager.editable(spec):
        return "voices folder"
    kind = voice_kind(spec.source)
    if kind is VoiceKind.BUILTIN:
        return "built-in"
    if kind is VoiceKind.URL:
        return "configured (URL)"
    return "configured file"


def voice_view(spec: VoiceSpec, service: Service, manager: VoiceManager) -> dict[str, Any]:
    """One voice: name, origin, readiness and, when it is not ready, why and how to fix it."""
    catalog, engine = service.catalog, service.engine
    model_failure = engine.models.failure(spec.code)
    reason = model_failure or catalog.failures.check(spec)
    remedy = link = None
    if model_failure is not None:
        remedy = "The model of this language could not be loaded: see the server log"
    elif reason == cloning.REASON:
        remedy, link = cloning.REMEDY, cloning.MODEL_PAGE
    elif reason is not None:
        remedy = BROKEN_FILE_REMEDY
    return {
        "name": spec.name,
        "language": spec.code,
        "description": describe_voice(spec),
        "origin": origin(spec, manager),
        "editable": manager.editable(spec),
        "default": catalog.default_for(spec.code).name == spec.name,
        "ready": reason is None,
        "reason": reason,
        "remedy": remedy,
        "link": link,
    }


def voices_view(service: Service, manager: VoiceManager) -> dict[str, Any]:
    """Every voice by language, each language's default first, and whether (else why not) the
    voices folder takes new voices."""
    catalog = service.catalog
    voices = catalog.voices
    problem = manager.folder_problem()
    return {
        "languages": [
            {
                "code": code,
                "default": catalog.default_for(code).name,
                "voices": [
                    voice_view(spec, service, manager) for spec in voices if spec.code == code
                ],
            }
            for code in catalog.languages
        ],
        "can_add": problem is None,
        "folder_problem": problem,
        "voices_dir": None if manager.folder is None else str(manager.folder),
    }


def status_view(service: Service) -> dict[str, Any]:
    """The models (loaded or not, their speed verdict), what the start waits for (if it does),
    the queue and the last requests."""
    engine = service.engine
    now = readiness(engine)
    loaded = engine.models.loaded()
    models = []
    for settings in engine.settings.models:
        entry: dict[str, Any] = {
            "code": settings.code,
            "model": settings.label,
            "loaded": settings.code in loaded,
            "failure": engine.models.failure(settings.code),
        }
        model = engine.models.peek(settings.code)
        if model is not None:
            tuning = model.tuning
            entry |= {
                "quantized": bool(tuning.settings.quantize),
                "int8_refused": tuning.int8_refused,
                "runtime": tuning.settings.runtime,
                "preparing_graphs": tuning.course.phase is Phase.EXPORTING,
                "without_torch": _without_torch(tuning),
                "threads": tuning.threads,
                "first_audio_ms": round(tuning.speed.first_audio * 1000),
                "rtf": round(tuning.speed.rtf, 2) if tuning.speed.rtf_known else None,
                "verdict": _verdict(tuning.speed),
                "decision": tuning.confidence,
                "provisional": tuning.provisional,
            }
        models.append(entry)
    scheduler = engine.scheduler
    return {
        "ready": engine.ready.done() and engine.ready.exception() is None,
        "waiting": engine.waiting,
        "state": now.state,
        "state_words": now.words(),
        "models": models,
        "queue": {"in_care": scheduler.in_care, "max": scheduler.max_queue},
        "recent": scheduler.recent.snapshot(),
    }


def _without_torch(tuning: Tuning) -> str | None:
    """When the model serves with no torch in the process: "now" (on its cached graphs),
    "next start" (its graphs are ready or being prepared, torch is still here), or None."""
    runtime = tuning.settings.runtime
    if runtime is not None and runtime.without_torch:
        return "now" if "torch" not in sys.modules else "next start"
    course = tuning.course
    if course.phase is Phase.EXPORTING and course.compare_after is None:  # `auto` decides later
        return "next start"
    return None


def _verdict(speed: Speed) -> str:
    if not speed.rtf_known:  # JSON has no NaN: the page would fail to read the whole status
        return "not measured"
    return "fast enough" if speed.rtf >= SLOW_RTF else "slow: replies may stutter"
