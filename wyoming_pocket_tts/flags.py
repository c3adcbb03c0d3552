"""What each command-line value may be: the converters argparse calls.

Each raises `argparse.ArgumentTypeError` with the reason, which argparse prints after the flag's
name; the add-on's repair calls the same ones to tell a bad option from a good one.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .settings import (
    LOUDNESS_RANGE_LUFS,
    MAX_SILENCE_MS,
    MAX_SPEED,
    MAX_TORCH_THREADS,
    MAX_UNLOAD_MINUTES,
    MIN_SPEED,
    VoiceSpec,
)
from .voices.catalog import parse_voice_arg

Number = TypeVar("Number", int, float)


def positive_int(value: str) -> int:
    """A count of at least 1."""
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def thread_count(value: str) -> int | None:
    """Torch threads, or None for `auto`."""
    if value.strip().lower() == "auto":
        return None
    return _number(
        value,
        int,
        1,
        MAX_TORCH_THREADS,
        "a number of threads or auto",
        f"1 and {MAX_TORCH_THREADS}",
    )


def loudness_target(value: str) -> float | None:
    """Integrated loudness in LUFS, or None for `off`."""
    if value.strip().lower() == "off":
        return None
    low, high = LOUDNESS_RANGE_LUFS
    return _number(value, float, low, high, "LUFS (e.g. -20) or off", f"{low:g} and {high:g} LUFS")


def speed_factor(value: str) -> float:
    """A speaking rate within what WSOLA keeps natural."""
    return _number(
        value,
        float,
        MIN_SPEED,
        MAX_SPEED,
        "a factor such as 1.2",
        f"{MIN_SPEED} and {MAX_SPEED} (1.0 is the model's pace)",
    )


def milliseconds(value: str) -> int:
    """Whole milliseconds of silence, at most `MAX_SILENCE_MS`."""
    return _number(
        value,
        int,
        0,
        MAX_SILENCE_MS,
        "whole milliseconds such as 300",
        f"0 and {MAX_SILENCE_MS} ms",
    )


def idle_minutes(value: str) -> float | None:
    """Minutes a model may stay unused before it is unloaded, or None for 0 (never)."""
    between = f"0 and {MAX_UNLOAD_MINUTES}"
    minutes = _number(value, float, 0.0, float(MAX_UNLOAD_MINUTES), "minutes such as 30", between)
    return None if minutes == 0 else minutes * 60


def _number(
    value: str,
    convert: Callable[[str], Number],
    low: Number,
    high: Number,
    expected: str,
    between: str,
) -> Number:
    """`value` converted, within `low`..`high` (NaN is not); else the error argparse prints."""
    try:
        number = convert(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {value!r}") from None
    if not low <= number <= high:
        raise argparse.ArgumentTypeError(f"must be between {between}, got {value}")
    return number


def voice_spec(value: str) -> VoiceSpec:
    """`[CODE:]NAME=SOURCE[,speed=FACTOR]` (see `parse_voice_arg`)."""
    try:
        return parse_voice_arg(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def voice_alias(value: str) -> tuple[str, str]:
    """`NAME=VOICE`: a name (OpenAI's `alloy`, ...) that speaks with a voice of the household."""
    name, sep, voice = (part.strip() for part in value.partition("="))
    if not sep or not name or not voice:
        raise argparse.ArgumentTypeError(f"expected NAME=VOICE such as alloy=alba, got {value!r}")
    return name, voice


def tcp_port(value: str) -> int:
    """A TCP port; 0 picks a free one."""
    number = int(value)
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"must be a TCP port (0-65535), got {number}")
    return number


class AppendModel(argparse.Action):
    """`--language` and `--model-config` both add a model, in command-line order."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        models = [*(getattr(namespace, self.dest, None) or []), (option_string, values)]
        setattr(namespace, self.dest, models)
