"""pocket-tts's `TTSModel` behind the seam (`engine.runtime.Runtime`): the torch runtime.

`TorchRuntime` cuts with pocket-tts's own `split_into_best_sentences` and tokenizer, speaks a
piece with its `generate_audio_stream` (which would cut a longer text again: a piece is within
its bound already), and makes voice states in this process: an audio file read by
`audio.prompt_reading` (the graphs' reader too), a built-in name resolved for the model
(`builtin_source`), anything else as pocket-tts reads it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ...audio.prompt_reading import read_prompt
from ...host import encoding_threads
from ...voices import builtin as voices_builtin
from ...voices.catalog import VoiceKind, is_audio_prompt, voice_kind
from ...voices.cloning import VoiceCloningUnavailable
from ..runtime import Audio, Piece, RuntimeKind, State

if TYPE_CHECKING:
    from pocket_tts import TTSModel


class TorchRuntime:
    """A loaded pocket-tts model (`model`) as the engine speaks to it."""

    kind = RuntimeKind.TORCH
    voices_in_child = False

    def __init__(self, model: TTSModel, int8: bool) -> None:
        self.model = model
        """pocket-tts's model, for what only torch does (int8 copies, the graphs' export)."""
        self.int8 = int8
        self.sample_rate: int = model.sample_rate

    @property
    def can_clone(self) -> bool:
        return bool(self.model.has_voice_cloning)

    def pieces(self, sentence: str, max_tokens: int) -> list[Piece]:
        from pocket_tts.models.text_chunking import split_into_best_sentences

        model = self.model
        chunks = split_into_best_sentences(
            model.flow_lm.conditioner.tokenizer,
            sentence,
            max_tokens,
            model.pad_with_spaces_for_short_inputs,
            remove_semicolons=model.remove_semicolons,
            append_terminal_punctuation=model.append_terminal_punctuation,
            capitalize_first_letter=model.capitalize_first_letter,
            replace_characters=model.replace_characters,
        )
        return [(None, chunk) for chunk in chunks]

    def token_count(self, text: str) -> int:
        return len(self.model.flow_lm.conditioner.tokenizer(text)[0].tolist())

    def stream(self, state: State, piece: str, stop: threading.Event) -> Iterator[Audio]:
        return self.model.generate_audio_stream(state, piece, stop=stop)

    def empty_state(self) -> State:
        from pocket_tts.modules.stateful_module import init_states

        return init_states(self.model.flow_lm, batch_size=1, sequence_length=0)

    def voice_state(self, source: str | Path, truncate: bool, name: str) -> State:
        model = self.model
        if is_audio_prompt(str(source)) and not self.can_clone:
            raise VoiceCloningUnavailable()
        with encoding_threads():
            if isinstance(source, Path) and is_audio_prompt(str(source)):
                import torch

                prompt = torch.from_numpy(read_prompt(source, model.sample_rate, name))
                return model.get_state_for_audio_prompt(prompt)
            if isinstance(source, str) and voice_kind(source) is VoiceKind.BUILTIN:
                source = builtin_source(model, source)
            return model.get_state_for_audio_prompt(source, truncate=truncate)

    def read_state(self, path: Path) -> State:
        return self.model.get_state_for_audio_prompt(path)


def builtin_source(model: TTSModel, name: str) -> str:
    """A built-in name's saved state for a packaged language model; its original audio for any
    other model (`voices.builtin`)."""
    from pocket_tts.utils.config import CONFIGS_DIR

    origin = model.origin
    packaged = origin is not None and origin.is_relative_to(CONFIGS_DIR)
    return voices_builtin.builtin_source(name, origin.stem if packaged else None)
