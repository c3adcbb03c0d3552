"""Text cut into the pieces the engine speaks one at a time: one sentence each.

The engine can only switch to another request between pieces, so a one-shot text is cut at every
sentence, as a stream's sentences are (`SentenceSplitter`, which knows "e.g." and "z. B."), not
into pocket-tts's groups of up to 50 tokens (about four sentences): an announcement then waits for
one sentence of another reply, not four. pocket-tts generates each of its groups from a fresh copy
of the voice state anyway, so the cost is one prompt pass per sentence (see `script/bench
--pieces`). A sentence is then cut the way `generate_audio_stream` cuts it (at most 50 tokens, at
`,;:`); text with no punctuation to cut at stays whole, and one piece could hold the engine for
minutes. So any piece still longer is cut again between words (and a single word longer than
that, between characters). Tuning times generations through the same cut.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..text.sentences import SentenceSplitter

if TYPE_CHECKING:
    from pocket_tts import TTSModel
    from pocket_tts.modules.text_conditioner import Tokenizer

MAX_PIECE_TOKENS = 50
"""Longest piece the engine speaks at once: pocket-tts's own chunk size (`MAX_TOKEN_PER_CHUNK`),
a long sentence or about 4 s of speech."""


def chunks(model: TTSModel, text: str, language: str = "en") -> list[str]:
    """`text` cut into its sentences (in `language`), each cut the way `generate_audio_stream`
    cuts a text (at most 50 tokens), and any longer piece (no punctuation to cut at) cut again
    between words."""
    splitter = SentenceSplitter(clean=False, language=language)
    sentences = splitter.add(text) + splitter.finish()
    return [piece for sentence in sentences for piece in _bounded(model, sentence)]


def _bounded(model: TTSModel, sentence: str) -> list[str]:
    from pocket_tts.models.text_chunking import split_into_best_sentences

    tokenizer = model.flow_lm.conditioner.tokenizer
    try:
        chunks = split_into_best_sentences(
            tokenizer,
            sentence,
            MAX_PIECE_TOKENS,
            model.pad_with_spaces_for_short_inputs,
            remove_semicolons=model.remove_semicolons,
            append_terminal_punctuation=model.append_terminal_punctuation,
            capitalize_first_letter=model.capitalize_first_letter,
            replace_characters=model.replace_characters,
        )
    except ValueError:  # nothing left to say once pocket-tts has prepared it
        return []
    return [piece for chunk in chunks for piece in _between_words(tokenizer, chunk)]


def _between_words(tokenizer: Tokenizer, text: str) -> list[str]:
    """`text` in runs of whole words of at most `MAX_PIECE_TOKENS` tokens each; a single word
    longer than that (no spaces to cut at) is cut between characters."""

    def size(words: list[str]) -> int:
        return int(tokenizer(" ".join(words))[0].numel())

    if size([text]) <= MAX_PIECE_TOKENS:
        return [text]
    pieces: list[str] = []
    words = text.split()
    while words:
        fits = _longest_fit(len(words), partial(_first_words_size, size, words))
        if fits:
            pieces.append(" ".join(words[:fits]))
            words = words[fits:]
            continue
        word = words.pop(0)
        while word:
            cut = max(1, _longest_fit(len(word), partial(_first_letters_size, size, word)))
            pieces.append(word[:cut])
            word = word[cut:]
    return pieces


def _first_words_size(size: Callable[[list[str]], int], words: list[str], count: int) -> int:
    return size(words[:count])


def _first_letters_size(size: Callable[[list[str]], int], word: str, count: int) -> int:
    return size([word[:count]])


def _longest_fit(most: int, size: Callable[[int], int]) -> int:
    """The largest count in 0..`most` whose `size` is within the bound (sizes grow with it)."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if size(middle) <= MAX_PIECE_TOKENS:
            low = middle
        else:
            high = middle - 1
    return low
