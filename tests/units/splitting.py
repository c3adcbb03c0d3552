"""Text through the server's sentence splitter, whole or word by word as a stream comes."""

from __future__ import annotations

from wyoming_pocket_tts.text.sentences import SentenceSplitter


def whole_sentences(text: str, language: str) -> list[str]:
    """The sentences `text` makes when it comes in one piece."""
    splitter = SentenceSplitter(language=language)
    return splitter.add(text) + splitter.finish()


def streamed_sentences(text: str, language: str) -> list[str]:
    """The sentences `text` makes when it comes word by word."""
    splitter = SentenceSplitter(language=language)
    words = text.split(" ")
    sentences = [s for i, w in enumerate(words) for s in splitter.add(w if i == 0 else " " + w)]
    return sentences + splitter.finish()
