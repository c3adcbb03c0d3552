"""The speed verdict logged after `Ready`, and a concrete step when the host is too slow."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ...pocket import smaller_model
from ...settings import ModelSettings
from ..runtime import RuntimeKind
from .rule import Config

if TYPE_CHECKING:
    from .tuned import Tuning

_LOGGER = logging.getLogger(__name__)

SLOW_RTF = 1.3
"""Below this real-time factor a reply is likely to stutter: the verdict warns."""


def log_speed_verdict(tuning: Tuning) -> None:
    """One line with this host's speed; a warning with a smaller model when it is too slow."""
    settings = tuning.settings
    _LOGGER.info(
        "Speed here: %s with %s (%s; %s)",
        tuning.speed,
        settings.label,
        Config(
            tuning.threads, bool(settings.quantize), settings.runtime or RuntimeKind.TORCH
        ).label,
        tuning.reason,
    )
    if not tuning.speed.rtf_known or tuning.speed.rtf >= SLOW_RTF:
        return
    _LOGGER.warning(
        "This host generates %.2f s of audio per second with %s, below %.1fx: long replies may "
        "stutter. %s",
        tuning.speed.rtf,
        settings.label,
        SLOW_RTF,
        suggestion(settings),
    )


def suggestion(settings: ModelSettings) -> str:
    """A concrete step towards real time: a smaller built-in model, else int8, else hardware."""
    smaller = smaller_model(settings.model) if settings.model else None
    if smaller is not None:
        return f"Try the smaller model {smaller!r} (--language {smaller}, add-on option language)."
    if not settings.quantize:
        return "Try --quantize on (add-on option quantize: on)."
    return "No smaller model of this family: a faster CPU is needed for real time."
