"""A text as pocket-tts's generation reads it, without torch: its tokenizer and its chunks.

`Tokenizer` opens the tokenizer file the export copied beside the graphs (a sentencepiece
`.model`, or the `tokenizers` JSON the released configs use): the same ids as pocket-tts's
`LUTConditioner`. `prepare_text_prompt` and `split_into_best_sentences` are pocket-tts 4.0.1's
(`pocket_tts/models/text_chunking.py`, MIT licence, Kyutai), kept as they are but for the
tokenizer's call: importing that module imports torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any


class Tokenizer:
    """Text to token ids and back, from a tokenizer file."""

    def __init__(self, path: Path) -> None:
        self._sentencepiece: Any = None
        self._tokenizers: Any = None
        if path.suffix == ".json":
            import tokenizers

            self._tokenizers = tokenizers.Tokenizer.from_file(str(path))
        else:
            import sentencepiece

            self._sentencepiece = sentencepiece.SentencePieceProcessor(str(path))

    def encode(self, text: str) -> list[int]:
        if self._tokenizers is not None:
            return list(self._tokenizers.encode(text).ids)
        return list(self._sentencepiece.encode(text, out_type=int))

    def decode(self, tokens: list[int]) -> str:
        if self._tokenizers is not None:
            return str(self._tokenizers.decode(tokens))
        return str(self._sentencepiece.decode(tokens))

    @cached_property
    def sentence_ends(self) -> list[int]:
        """The tokens that end a sentence (pocket-tts encodes ".!...?" at every cut)."""
        return self.encode(".!...?")[1:]

    @cached_property
    def clause_ends(self) -> list[int]:
        """The tokens a long sentence is cut at (pocket-tts encodes ",;:" at every cut)."""
        return self.encode(",;:")[1:]


@dataclass(frozen=True)
class TextSettings:
    """How the model's config asks its text to be prepared (pocket-tts's `TTSModel` fields)."""

    pad_with_spaces_for_short_inputs: bool
    remove_semicolons: bool
    append_terminal_punctuation: bool = True
    capitalize_first_letter: bool = True
    replace_characters: dict[str, str] | None = None


def prepare_text_prompt(text: str, settings: TextSettings) -> tuple[str, int]:
    """The text the model reads, and pocket-tts's guess of the frames after end of speech."""
    text = text.strip()
    if settings.replace_characters:
        table: dict[str, str | int | None] = dict(settings.replace_characters)
        text = " ".join(text.translate(str.maketrans(table)).split())
        text = re.sub(r"([.!?\u2026])\s*[,;:]", r"\1", text)
    if text == "":
        raise ValueError("Text prompt cannot be empty")
    text = text.replace("\n", " ").replace("\r", " ").replace("  ", " ")
    if settings.remove_semicolons:
        text = text.replace(";", ",")
    frames_after_eos_guess = 3 if len(text.split()) <= 4 else 1
    if settings.capitalize_first_letter and not text[0].isupper():
        text = text[0].upper() + text[1:]
    if settings.append_terminal_punctuation:
        text = _ensure_terminal_punctuation(text)
    if settings.pad_with_spaces_for_short_inputs and len(text.split()) < 5:
        text = " " * 8 + text
    return text, frames_after_eos_guess


_TERMINAL_PUNCTUATION = ".!?\u2026"
_WEAK_PUNCTUATION = ",;:-\u2013\u2014"
_CLOSERS = "\"'\u201d\u2019)]\u00bb"


def _ensure_terminal_punctuation(text: str) -> str:
    core = text.rstrip(_CLOSERS + " ")
    closers = text[len(core) :].strip()
    if not core or core[-1] in _TERMINAL_PUNCTUATION:
        return text
    if core[-1] in _WEAK_PUNCTUATION:
        return core.rstrip(_WEAK_PUNCTUATION + " ") + "." + closers
    return text + "."


def _is_decimal_period_boundary(tokens: list[int], start: int, tokenizer: Tokenizer) -> bool:
    prefix = tokenizer.decode(tokens[:start])
    suffix = tokenizer.decode(tokens[start:])
    return (
        len(prefix) >= 2
        and prefix[-1] == "."
        and prefix[-2].isdigit()
        and bool(suffix)
        and suffix[0].isdigit()
    )


def _find_boundary_indices(
    tokens: list[int],
    boundary_tokens: list[int],
    tokenizer: Tokenizer | None = None,
    skip_decimal_periods: bool = False,
) -> list[int]:
    boundary_set = set(boundary_tokens)
    indices = [0]
    previous_was_boundary = False
    for index, token in enumerate(tokens):
        if token in boundary_set:
            previous_was_boundary = True
        else:
            if previous_was_boundary:
                if (
                    skip_decimal_periods
                    and tokenizer is not None
                    and _is_decimal_period_boundary(tokens, index, tokenizer)
                ):
                    previous_was_boundary = False
                    continue
                indices.append(index)
            previous_was_boundary = False
    indices.append(len(tokens))
    return indices


def _segments(tokens: list[int], bounds: list[int], tokenizer: Tokenizer) -> list[tuple[int, str]]:
    return [
        (bounds[i + 1] - bounds[i], tokenizer.decode(tokens[bounds[i] : bounds[i + 1]]))
        for i in range(len(bounds) - 1)
    ]


def split_into_best_sentences(
    tokenizer: Tokenizer, text: str, max_tokens: int, settings: TextSettings
) -> list[str]:
    """`text` in chunks of whole sentences of at most `max_tokens` tokens where it can."""
    return [chunk for _, chunk in counted_chunks(tokenizer, text, max_tokens, settings)]


def counted_chunks(
    tokenizer: Tokenizer, text: str, max_tokens: int, settings: TextSettings
) -> list[tuple[int, str]]:
    """`split_into_best_sentences`' chunks, each with its tokens as the cut counted them (in
    the whole text's tokens), so that a caller need not encode a chunk again to know it fits."""
    text = prepare_text_prompt(text, settings)[0].strip()
    tokens = tokenizer.encode(text)
    end_of_sentence = tokenizer.sentence_ends
    bounds = _find_boundary_indices(tokens, end_of_sentence, tokenizer, skip_decimal_periods=True)
    fallback = tokenizer.clause_ends
    refined: list[tuple[int, str]] = []
    for count, sentence in _segments(tokens, bounds, tokenizer):
        if count <= max_tokens:
            refined.append((count, sentence))
            continue
        sub_tokens = tokenizer.encode(sentence.strip())
        sub = _segments(sub_tokens, _find_boundary_indices(sub_tokens, fallback), tokenizer)
        refined.extend(sub if len(sub) > 1 else [(count, sentence)])
    chunks: list[tuple[int, str]] = []
    current, current_count = "", 0
    for count, sentence in refined:
        if current == "":
            current, current_count = sentence, count
        elif current_count + count > max_tokens:
            chunks.append((current_count, current.strip()))
            current, current_count = sentence, count
        else:
            current += " " + sentence
            current_count += count
    if current != "":
        chunks.append((current_count, current.strip()))
    return chunks
