"""Text cut the way `generate_audio_stream` cuts it: sentences of at most 50 tokens.

The engine speaks one such piece per generation, and the tuning times generations the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pocket_tts import TTSModel


def chunks(model: TTSModel, text: str) -> list[str]:
    """`text` cut as pocket-tts would cut it; empty when nothing is left to say."""
    from pocket_tts.default_parameters import MAX_TOKEN_PER_CHUNK
    from pocket_tts.models.text_chunking import split_into_best_sentences

    try:
        return split_into_best_sentences(
            model.flow_lm.conditioner.tokenizer,
            text,
            MAX_TOKEN_PER_CHUNK,
            model.pad_with_spaces_for_short_inputs,
            remove_semicolons=model.remove_semicolons,
            append_terminal_punctuation=model.append_terminal_punctuation,
            capitalize_first_letter=model.capitalize_first_letter,
            replace_characters=model.replace_characters,
        )
    except ValueError:  # nothing left to say once pocket-tts has prepared it
        return []
