"""Tests for wyoming_pocket_tts.text: speech cleanup and incremental sentence splitting."""

# ruff: noqa: RUF001  (non-ASCII letters and punctuation are the point of these tests)

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wyoming_pocket_tts.text.cleanup import clean_for_speech
from wyoming_pocket_tts.text.sentences import SentenceSplitter


@pytest.mark.parametrize(
    "text",
    [
        "Hello, world. It's 10:30!",
        "snake_case, 5*3 and 2*4, don't, it's, e-mail, 3.5, 10:30, C++ and C#.",
        "It costs $5 or €3 (100% off), 25°C, a/b & c; “quoted” ‘single’ — done?",
        "Use 2+2=4 and a < b > c, roughly ~5 minutes.",
        "user@example.com wrote #1 on the list.",
    ],
)
def test_plain_text_is_unchanged(text: str) -> None:
    assert clean_for_speech(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "Français : C'est l'été ! « Bonjour », dit-il.",
        "Die Straße ist schön, Grüße aus Köln.",
        "Привет, мир! Как дела?",
        "Γειά σου, κόσμε.",
        "こんにちは。元気ですか？",
        "你好，世界！",
        "مرحبا، كيف حالك؟",
        "नमस्ते। आप कैसे हैं?",
        "می‌خواهم",
    ],
)
def test_other_languages_are_unchanged(text: str) -> None:
    assert clean_for_speech(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Some **bold**, *italic*, __under__ and _em_ text.",
            "Some bold, italic, under and em text.",
        ),
        ("~~Old~~ new ***both***.", "Old new both."),
        ("**Note:** read this.", "Note: read this."),
        ("# Title\nBody text.", "Title. Body text."),
        ("### Done!\nYes.", "Done! Yes."),
        ("Fruit:\n- apples\n* pears\n+ plums\n• figs", "Fruit: apples. pears. plums. figs."),
        (
            "Steps:\n1. Preheat the oven\n2) Mix the **flour**",
            "Steps: Preheat the oven. Mix the flour.",
        ),
        ("> Quoted text\n> > nested", "Quoted text. nested."),
        ("- [x] done\n- [ ] todo", "done. todo."),
        ("Above\n\n---\n\nBelow", "Above. Below"),
        ("| Name | Age |\n|:-----|----:|\n| Bob | 30 |", "Name, Age. Bob, 30."),
        ("**Summary**\n\nAll good.", "Summary. All good."),
        ("2.", ""),
        ("\\*not emphasis\\*", "not emphasis"),
    ],
)
def test_markdown_is_removed(text: str, expected: str) -> None:
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run `pip install x` now.", "Run pip install x now."),
        ("Try this:\n```python\nprint('hi')\n```\nThen rerun.", "Try this: Then rerun."),
        ("Code:\n```\nunfinished = True", "Code:"),
        ("See [the docs](https://example.com/a?b=1).", "See the docs."),
        ("A [ref link][1] here.\n\n[1]: https://example.com", "A ref link here."),
        ("Look ![a chart](chart.png) here.", "Look here."),
        ("Visit https://www.example.org/path?q=1.", "Visit example.org."),
        ("Visit www.example.org/x or <https://foo.bar/x>!", "Visit example.org or foo.bar!"),
        ("Claim[^1] made.", "Claim made."),
        ("<b>Bold</b><br>next<!-- hidden -->", "Bold next"),
    ],
)
def test_code_links_and_html(text: str, expected: str) -> None:
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Great👍job!", "Great job!"),
        ("Hello 👋!", "Hello!"),
        ("Bravo 👏 !", "Bravo !"),
        ("🎉 Done 🇫🇷 👍🏽 ❤️ 1️⃣ now", "Done now"),
        ("Go → there ✓ ─── ☺ \ue000 \x07 \u200b ok", "Go there ok"),
        ("Tab\tand\n\n  spaces   here", "Tab and. spaces here"),
    ],
)
def test_emoji_and_symbols_are_removed(text: str, expected: str) -> None:
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    "text", ["", "🎉🎉", "🎉!", "...", "**", "---", "- ", "```\ncode\n```", "<br>", "> #"]
)
def test_only_markup_becomes_empty(text: str) -> None:
    assert clean_for_speech(text) == ""


_MARKUP_TOKENS = [
    *"*_~`#>-+|[]()!<>/:\\.,?1 \n\t",
    "**",
    "```",
    "1. ",
    "- ",
    "https://",
    "www.",
    "](",
    "<b>",
    "👍",
    "🇫🇷",
    "\ufe0f",
    "\x00",
    "Word",
    "été",
    "日本",
]
_MARKUP_TEXT = st.lists(
    st.one_of(st.sampled_from(_MARKUP_TOKENS), st.characters()), max_size=40
).map("".join)


@settings(max_examples=200, deadline=None)
@given(_MARKUP_TEXT)
def test_clean_is_idempotent(text: str) -> None:
    once = clean_for_speech(text)
    assert clean_for_speech(once) == once
    assert once == once.strip()
    assert "\n" not in once


def _split(pieces: list[str], clean: bool = True) -> list[str]:
    splitter = SentenceSplitter(clean=clean, numbers=False)
    sentences = [sentence for piece in pieces for sentence in splitter.add(piece)]
    return sentences + splitter.finish()


def test_sentence_is_emitted_once_the_next_one_starts() -> None:
    splitter = SentenceSplitter()
    assert splitter.add("Hello world.") == []
    assert splitter.add(" How") == ["Hello world."]
    assert splitter.add(" are you?") == []
    assert splitter.finish() == ["How are you?"]
    assert splitter.finish() == []


def test_sentence_and_next_start_in_one_piece() -> None:
    splitter = SentenceSplitter()
    assert splitter.add("Hello world. How") == ["Hello world."]
    assert splitter.add(" are you?") == []
    assert splitter.finish() == ["How are you?"]


_TEXT = (
    "# Weather\n\nIt is **3.5 degrees** in Köln today. Dr. Smith says: *wear a coat!* "
    "Is it 10:30 yet? Wait... Yes.\n\nSteps:\n1. Open [the app](https://example.com/x).\n"
    "2. Tap *Go* 👍.\n\nこんにちは。元気ですか？Then run `make`:\n```\nmake all. Now\n```\n"
    "5*3 and 2*4 make 23. Bye!"
)
_EXPECTED = [
    "Weather.",
    "It is 3.5 degrees in Köln today.",
    "Dr. Smith says: wear a coat! Is it 10:30 yet?",  # no boundary before a closing "*"
    "Wait...",
    "Yes.",
    "Steps:",
    "Open the app.",
    "Tap Go.",
    "こんにちは。",
    "元気ですか？",
    "Then run make:",
    "5*3 and 2*4 make 23.",
    "Bye!",
]


def test_whole_text_sentences() -> None:
    assert _split([_TEXT]) == _EXPECTED


def test_word_by_word_matches_whole() -> None:
    words = _TEXT.split(" ")
    assert _split([word + " " for word in words[:-1]] + words[-1:]) == _EXPECTED


def test_char_by_char_matches_whole() -> None:
    assert _split(list(_TEXT)) == _EXPECTED


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(_TEXT)), max_size=30))
def test_random_split_points_match_whole(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(_TEXT)]
    pieces = [_TEXT[start:end] for start, end in itertools.pairwise(bounds)]
    assert _split(pieces) == _EXPECTED


def test_markdown_split_across_pieces() -> None:
    assert _split(["This is **bo", "ld** and [a li", "nk](https://ex", "ample.com). Next"]) == [
        "This is bold and a link.",
        "Next",
    ]


def test_code_block_spanning_sentences_is_dropped() -> None:
    pieces = ["Run:\n``", "`\nx = 1. Y = 2.\n\nZ = 3.", " W\n``", "`\nDone. End"]
    assert _split(pieces) == ["Run:", "Done.", "End"]


def test_without_cleaning_text_is_kept() -> None:
    assert _split(["**Hi** there 👍. 5*3 and", " 2*4. Next"], clean=False) == [
        "**Hi** there 👍. 5*3 and 2*4.",
        "Next",
    ]


def test_empty_sentences_are_dropped() -> None:
    assert _split(["🎉🎉. ", "---\n\n", "Real text. ", "**"]) == ["Real text."]
