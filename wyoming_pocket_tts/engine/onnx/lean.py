"""The model a server on cached graphs serves with: the graphs' own loop, no torch in the process.

`LeanModel` is `onnx.loop.GraphSpeech` with what the engine asks of a loaded model besides
speech: whether its weights clone voices (recorded by the export), which model it is (for the
child that encodes new voices, `voice_states.encoder`), and saved voice states read with
safetensors' numpy API, in pocket-tts's layout (the torch runtime's too).
"""

from __future__ import annotations

from pathlib import Path

from ...settings import ModelSettings
from .graphs import Graphs
from .loop import GraphSpeech
from .voice_arrays import ArrayState, read_state

SAVED_STATE = ".safetensors"


class LeanModel(GraphSpeech):
    """A model of `settings` speaking on its graphs in `folder`."""

    def __init__(self, folder: Path, settings: ModelSettings, int8: bool, threads: int) -> None:
        super().__init__(Graphs.read(folder), int8, threads)
        self.model_settings = settings
        self.has_voice_cloning = self.settings.voice_cloning
        """As pocket-tts's `TTSModel.has_voice_cloning` (`voices.cloning.can_clone`)."""
        self.int8_refused: str | None = None
        """Why int8 was asked and fp32 runs (`onnx.int8_gate`), else None."""

    def get_state_for_audio_prompt(self, path: Path, truncate: bool = False) -> ArrayState:
        """A saved voice state (`.safetensors`), as pocket-tts's method reads one; anything
        else needs the model in torch (`voice_states.encoder`): ValueError."""
        if Path(path).suffix != SAVED_STATE:
            raise ValueError(f"{path} is no saved voice state: it is encoded in a child process")
        return read_state(Path(path))
