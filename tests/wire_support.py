"""Test support for the wiring tests: what pocket-tts is asked to speak, in this process.

`pocket_tts_calls` wraps (does not replace) pocket-tts's `TTSModel.generate_audio_stream`, the
call the engine makes for every piece it speaks, and records its model, voice state and text:
the end of a value's path from the front door, where a break in the wiring shows.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from pocket_tts import TTSModel


@dataclass(frozen=True)
class Call:
    """One generation pocket-tts was asked for."""

    model: TTSModel
    state: Any
    """The voice state handed to it (the same object for the same cached voice)."""
    text: str


@contextmanager
def pocket_tts_calls() -> Iterator[list[Call]]:
    """Every generation pocket-tts is asked for while the block runs, in order: the engine's
    own (speed checks, loudness measures) too, so tests look for their own words."""
    calls: list[Call] = []
    lock = threading.Lock()
    original = TTSModel.generate_audio_stream

    def recording(self: TTSModel, state: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        with lock:
            calls.append(Call(self, state, text))
        return original(self, state, text, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TTSModel, "generate_audio_stream", recording)
        yield calls
