"""Text as the model should receive it: cleaned of markup, numbers and symbols in words."""

from __future__ import annotations

from collections.abc import Callable

from .cleanup import clean_for_speech
from .numbers import speak_numbers


def prepare_for_speech(
    text: str,
    language: str,
    *,
    clean: bool = True,
    numbers: bool = True,
    pronounce: Callable[[str], str] | None = None,
) -> str:
    """Clean `text` for speech, apply the household's pronunciations (`pronounce`), then
    (unless `numbers` is off) say its numbers in `language`.

    `clean=False` means "speak exactly what was sent": the text is returned unchanged, numbers
    included. Idempotent: preparing prepared text changes nothing.
    """
    if not clean:
        return text
    text = clean_for_speech(text)
    if pronounce is not None and text:
        text = pronounce(text)
    if numbers and text:
        text = speak_numbers(text, language).strip()
    return text
