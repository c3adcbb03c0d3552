"""The graphs behind the seam (`engine.runtime.Runtime`): no torch in the process.

`LeanModel` is `onnx.loop.GraphSpeech` (which speaks a piece, `stream`) with what else the
engine asks of a runtime: its own cut (`text_prompt.counted_chunks`, which tells each piece's
tokens), whether its weights clone voices (recorded with the graphs), saved voice states read
with safetensors' numpy API (`voice_states.state_file`), and new ones made by a child process in
torch (`voice_states.encoder`).
"""

from __future__ import annotations

from pathlib import Path

from ...settings import ModelSettings
from ...voices.catalog import is_audio_prompt
from ..runtime import Piece, RuntimeKind, State
from ..voice_states.encoder import in_child
from ..voice_states.state_file import read_state
from .graphs import Graphs
from .loop import GraphSpeech
from .text_prompt import counted_chunks


class LeanModel(GraphSpeech):
    """A model of `settings` speaking on its graphs in `folder`."""

    kind = RuntimeKind.ONNX
    voices_in_child = True

    def __init__(self, folder: Path, settings: ModelSettings, int8: bool, threads: int) -> None:
        super().__init__(Graphs.read(folder), int8, threads)
        self.model_settings = settings
        self.int8_refused: str | None = None
        """Why int8 was asked and fp32 runs (`onnx.int8_gate`), else None."""

    @property
    def can_clone(self) -> bool:
        return self.settings.voice_cloning

    def pieces(self, sentence: str, max_tokens: int) -> list[Piece]:
        return list(counted_chunks(self.tokenizer, sentence, max_tokens, self.settings.text))

    def token_count(self, text: str) -> int:
        return len(self.tokenizer.encode(text))

    def voice_state(self, source: str | Path, truncate: bool, name: str) -> State:
        """A saved state read here; anything else made by a child in torch (`in_child`)."""
        if isinstance(source, Path) and not is_audio_prompt(str(source)):
            return read_state(source)
        return in_child(self.model_settings, source, truncate, name)

    def read_state(self, path: Path) -> State:
        return read_state(path)
