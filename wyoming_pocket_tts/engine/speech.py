"""The seam between serving and a runtime: what a runtime must provide to speak a piece.

Both runtimes hand the engine an object with pocket-tts's `TTSModel` surface: torch runs
pocket-tts's modules as loaded by `engine/model/`; the graphs exported from them run in a loop
of our own without torch (`engine/onnx/lean.py`, which yields numpy arrays). `SpeechModel`
names the part of that surface the engine uses, and `generation` is the one way anything here
runs it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    import torch
    from pocket_tts import TTSModel

    from .onnx.lean import LeanModel

    Model = TTSModel | LeanModel
    """A loaded model as the engine holds it: pocket-tts's (torch), or the graphs' own loop."""

    Audio = torch.Tensor | np.ndarray
    """A chunk of audio: float samples in [-1, 1] (torch's runtimes give tensors, the graphs'
    own loop numpy arrays)."""


class SpeechModel(Protocol):
    """What a runtime provides: audio streamed from a voice state and a text."""

    sample_rate: int

    def generate_audio_stream(
        self, model_state: dict, text_to_generate: str, *, stop: threading.Event
    ) -> Iterator[Audio]:
        """Chunks of audio for `text_to_generate`, ending within a frame once `stop` is set."""
        ...


@contextmanager
def generation(
    model: SpeechModel, state: dict, text: str, stop: threading.Event | None = None
) -> Iterator[Iterator[Audio]]:
    """The audio stream of `text` in the voice `state`; leaving the block stops it and waits
    for the runtime's generating threads to finish, so nothing else runs beside them.

    Without `stop`, the generation has its own event, set on leaving. A caller's `stop` (a
    request's, shared by all its pieces) is set only when the block is left by an exception.
    """
    own = stop is None
    event = threading.Event() if stop is None else stop
    stream = model.generate_audio_stream(state, text, stop=event)
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
