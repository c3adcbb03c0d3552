"""A piece of text bounded to what the engine speaks at once: at most `MAX_PIECE_TOKENS` tokens.

Pieces reach the engine already one sentence each (`intake` splits every text once, with
`text.sentences`); the engine can only switch to another request between pieces. A sentence is
cut here the way `generate_audio_stream` cuts a text (at most 50 tokens, at `,;:`: each
runtime's own cut, `Runtime.pieces`), and text with no punctuation to cut at, which could hold
the engine for minutes as one piece, is cut again between words (and a single word longer than
that, between characters). Tuning times its generations through the same cut.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .runtime import Runtime

MAX_PIECE_TOKENS = 50
"""Longest piece the engine speaks at once: pocket-tts's own chunk size (`MAX_TOKEN_PER_CHUNK`),
a long sentence or about 4 s of speech."""


def chunks(runtime: Runtime, sentence: str) -> list[str]:
    """`sentence` cut the way `generate_audio_stream` cuts a text (at most 50 tokens, the
    runtime's own cut), and any longer piece (no punctuation to cut at) cut again between
    words."""
    try:
        cut = runtime.pieces(sentence, MAX_PIECE_TOKENS)
    except ValueError:  # nothing left to say once pocket-tts has prepared it
        return []
    size = _size_of(runtime.token_count)
    return [piece for count, chunk in cut for piece in _between_words(size, chunk, count)]


Size = Callable[[list[str]], int]
"""Tokens in some words joined by spaces."""


def _size_of(count: Callable[[str], int]) -> Size:
    def size(words: list[str]) -> int:
        return count(" ".join(words))

    return size


def _between_words(size: Size, text: str, count: int | None = None) -> list[str]:
    """`text` in runs of whole words of at most `MAX_PIECE_TOKENS` tokens each; a single word
    longer than that (no spaces to cut at) is cut between characters. `count`: its tokens as
    the cut counted them, where it did (not encoded again)."""
    if (count if count is not None else size([text])) <= MAX_PIECE_TOKENS:
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
