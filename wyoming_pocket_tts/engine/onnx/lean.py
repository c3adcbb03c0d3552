"""The graphs behind the seam (`engine.runtime.Runtime`): no torch in the process.

`LeanModel` is `onnx.loop.GraphSpeech` (which speaks a piece, `stream`) with what else the
engine asks of a runtime: its own cut (`text_prompt.counted_chunks`, which tells each piece's
tokens), whether its weights clone voices (recorded with the graphs), and voice states: saved
ones read with safetensors' numpy API (`voice_states.state_file`), built-in names' fetched as
pocket-tts fetches them, and audio prompts encoded by Mimi's encoder graph and the LM graph
(`voice_encoding`); graphs exported without that encoder (split weights) leave new voices to a
child process in torch (`children.voice`).
"""

from __future__ import annotations

from pathlib import Path

from ...downloads import hub_file
from ...host import encoding_threads
from ...settings import ModelSettings
from ...voices.builtin import builtin_source
from ...voices.catalog import VoiceKind, is_audio_prompt, voice_kind
from ...voices.cloning import VoiceCloningUnavailable
from ..children.voice import in_child
from ..runtime import Piece, RuntimeKind, State
from ..voice_states.state_file import read_state
from .graphs import VOICE, Graphs
from .loop import GraphSpeech
from .text_prompt import counted_chunks
from .voice_encoding import voice_state_of_file


class LeanModel(GraphSpeech):
    """A model of `settings` speaking on its graphs in `folder`."""

    kind = RuntimeKind.ONNX

    def __init__(self, folder: Path, settings: ModelSettings, int8: bool, threads: int) -> None:
        super().__init__(Graphs.read(folder), int8, threads)
        self.model_settings = settings
        self.threads = threads
        self._encoder = (folder / VOICE).is_file()
        """The graphs hold Mimi's encoder (built from the checkpoint; not exported by torch)."""
        self.int8_refused: str | None = None
        """Why int8 was asked and fp32 runs (`onnx.int8_gate`), else None."""

    @property
    def can_clone(self) -> bool:
        return self.settings.voice_cloning

    @property
    def voices_in_child(self) -> bool:
        """Only graphs exported without Mimi's encoder (split weights) clone in a child."""
        return self.can_clone and not self._encoder

    def pieces(self, sentence: str, max_tokens: int) -> list[Piece]:
        return list(counted_chunks(self.tokenizer, sentence, max_tokens, self.settings.text))

    def token_count(self, text: str) -> int:
        return len(self.tokenizer.encode(text))

    def voice_state(self, source: str | Path, truncate: bool, name: str) -> State:
        """A saved state read here; a built-in name's saved state fetched (a custom config
        encodes its original audio); audio encoded by Mimi's encoder graph, or, where the
        graphs have none, by a child in torch (`in_child`)."""
        if isinstance(source, Path) and not is_audio_prompt(str(source)):
            return read_state(source)
        if isinstance(source, str) and voice_kind(source) is VoiceKind.BUILTIN:
            packaged = self.model_settings.config is None
            source = builtin_source(source, self.model_settings.model if packaged else None)
            if not is_audio_prompt(source):
                return read_state(hub_file(source))
        if not self.can_clone:
            raise VoiceCloningUnavailable()
        if self.voices_in_child:
            return in_child(self.model_settings, source, truncate, name)
        path = source if isinstance(source, Path) else hub_file(source)
        with encoding_threads():
            return voice_state_of_file(self.graphs, self.lm, path, name, self.threads)

    def read_state(self, path: Path) -> State:
        return read_state(path)
