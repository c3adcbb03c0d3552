"""The seam between the engine and a runtime: what a runtime must provide, and its kinds.

A runtime is one room of `engine/`, a class that satisfies `Runtime`, and one `RuntimeKind`
member: `model/` wraps pocket-tts's torch modules (`model.runtime.TorchRuntime`), `onnx/` runs
graphs with a loop of its own and no torch (`onnx.lean.LeanModel`). Serving, tuning and the
voice states speak to a runtime only through `Runtime`; `generation` is the one way anything
here runs one. This module imports nothing of the package (`settings` reads its kinds).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

import numpy as np

State = dict[str, dict[str, Any]]
"""A voice state in pocket-tts's layout (module name -> cache name -> array or tensor)."""

Audio = Any
"""A chunk of audio: float samples in [-1, 1] (a torch tensor or a numpy array; `samples`)."""

Piece = tuple["int | None", str]
"""A piece of a sentence as a runtime cuts it: its tokens (None: not counted) and its text."""


class RuntimeKind(str, Enum):
    """What runs each frame (`--runtime`, with `auto` for the one this host's measurement
    chooses): the value is the flag's word."""

    TORCH = "torch"
    """pocket-tts's own torch modules (`engine/model/`)."""
    ONNX = "onnx"
    """ONNX Runtime graphs of the same model, without torch (`engine/onnx/`)."""

    def __str__(self) -> str:
        return self.value  # the flag's word in text (Python 3.11 formats a str enum by name)

    @property
    def name_in_logs(self) -> str:
        """Its name in the log's sentences."""
        return {RuntimeKind.TORCH: "torch", RuntimeKind.ONNX: "ONNX Runtime"}[self]

    @property
    def installed(self) -> bool:
        """Its packages are installed (torch's come with the `[torch]` extra)."""
        packages = {RuntimeKind.TORCH: ("torch", "pocket_tts"), RuntimeKind.ONNX: ("onnxruntime",)}
        return all(importlib.util.find_spec(name) is not None for name in packages[self])

    @property
    def not_installed(self) -> str:
        """Why it cannot run where it is not `installed`, and what installs it."""
        return {
            RuntimeKind.TORCH: "torch is not installed: pip install 'wyoming-pocket-tts[torch]', "
            "or --runtime auto (the ONNX Runtime graphs, without torch)",
            RuntimeKind.ONNX: "onnxruntime is not installed (pip install onnxruntime)",
        }[self]

    @property
    def own_int8_states(self) -> bool:
        """Its int8 voice states are its own, not torch's int8 ones (ONNX Runtime rounds
        otherwise); fp32 states are shared by every runtime (`identity`)."""
        return self is not RuntimeKind.TORCH

    @property
    def without_torch(self) -> bool:
        """A server that serves on it alone never imports torch (`test_lean_serving`)."""
        return self is not RuntimeKind.TORCH

    @property
    def label(self) -> str:
        """How logs and saved decisions name a configuration's runtime ("" for torch, which
        was the only one when the labels were first saved)."""
        return "" if self is RuntimeKind.TORCH else f"{self.value} "


class Runtime(Protocol):
    """A loaded model as the engine holds it: it cuts, speaks and makes voice states."""

    kind: RuntimeKind
    sample_rate: int
    int8: bool
    """Whether it runs int8 (its voice states are its precision's, `identity`)."""

    @property
    def can_clone(self) -> bool:
        """Its weights encode audio prompts (pocket-tts's `has_voice_cloning`)."""
        ...

    @property
    def voices_in_child(self) -> bool:
        """A new voice state is a child process's work (`voice_state` blocks for seconds, so
        the engine starts it off its thread, and keeps even built-in names on disk)."""
        ...

    def pieces(self, sentence: str, max_tokens: int) -> list[Piece]:
        """`sentence` cut as pocket-tts cuts a text (at most `max_tokens` tokens, at `,;:`),
        with its own tokenizer; ValueError if nothing is left to say."""
        ...

    def token_count(self, text: str) -> int:
        """Tokens of `text` in its tokenizer."""
        ...

    def stream(self, state: State, piece: str, stop: threading.Event) -> Iterator[Audio]:
        """Chunks of audio of one `piece` (already cut) in the voice `state` (left unchanged),
        ending within a frame once `stop` is set."""
        ...

    def empty_state(self) -> State:
        """The state of no voice prompt."""
        ...

    def voice_state(self, source: str | Path, truncate: bool, name: str) -> State:
        """The state of a voice: an audio prompt (`Path` or URL), a built-in name or a saved
        `.safetensors` state. `VoiceCloningUnavailable` for a prompt these weights refuse."""
        ...

    def read_state(self, path: Path) -> State:
        """A saved voice state (`.safetensors`, pocket-tts's layout)."""
        ...


@contextmanager
def generation(
    runtime: Runtime, state: State, text: str, stop: threading.Event | None = None
) -> Iterator[Iterator[Audio]]:
    """The audio stream of the piece `text` in the voice `state`; leaving the block stops it
    and waits for the runtime's generating threads to finish, so nothing else runs beside them.

    Without `stop`, the generation has its own event, set on leaving. A caller's `stop` (a
    request's, shared by all its pieces) is set only when the block is left by an exception.
    """
    own = stop is None
    event = threading.Event() if stop is None else stop
    stream = runtime.stream(state, text, event)
    try:
        yield stream
    except BaseException:
        event.set()
        raise
    finally:
        if own:
            event.set()
        for _ in stream:
            pass


def samples(chunk: Audio) -> np.ndarray:
    """A chunk's samples as a flat float32 array, whichever runtime made it."""
    return np.asarray(chunk, np.float32).reshape(-1)
