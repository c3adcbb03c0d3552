"""What each command-line value may be: the converters argparse calls.

Each raises `argparse.ArgumentTypeError` with the reason, which argparse prints after the flag's
name; the add-on's repair calls the same ones to tell a bad option from a good one.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from .settings import MAX_SILENCE_MS, MAX_SPEED, MAX_TORCH_THREADS, MIN_SPEED, VoiceSpec
from .voices.catalog import parse_voice_arg


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
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of threads or auto, got {value!r}"
        ) from None
    if not 1 <= number <= MAX_TORCH_THREADS:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_TORCH_THREADS}, got {number}")
    return number


def loudness_target(value: str) -> float | None:
    """Integrated loudness in LUFS, or None for `off`."""
    if value.strip().lower() == "off":
        return None
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected LUFS (e.g. -20) or off, got {value!r}"
        ) from None
    if not -70.0 <= number <= 0.0:
        raise argparse.ArgumentTypeError(f"must be between -70 and 0 LUFS, got {value}")
    return number


def speed_factor(value: str) -> float:
    """A speaking rate within what WSOLA keeps natural."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a factor such as 1.2, got {value!r}") from None
    if not MIN_SPEED <= number <= MAX_SPEED:  # also NaN
        raise argparse.ArgumentTypeError(
            f"must be between {MIN_SPEED} and {MAX_SPEED} (1.0 is the model's pace), got {value}"
        )
    return number


def milliseconds(value: str) -> int:
    """Whole milliseconds of silence, at most `MAX_SILENCE_MS`."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected whole milliseconds such as 300, got {value!r}"
        ) from None
    if not 0 <= number <= MAX_SILENCE_MS:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_SILENCE_MS} ms, got {value}")
    return number


def voice_spec(value: str) -> VoiceSpec:
    """`[CODE:]NAME=SOURCE[,speed=FACTOR]` (see `parse_voice_arg`)."""
    try:
        return parse_voice_arg(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


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
