"""SSML (text.ssml, text.say_as): what each element does, hostile input, and streaming."""

from __future__ import annotations

import itertools
import logging
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wyoming_pocket_tts.settings import MAX_SILENCE_MS
from wyoming_pocket_tts.text.ssml import (
    MAX_SSML_CHARS,
    Pause,
    Segment,
    Sentence,
    SsmlStream,
    looks_like_ssml,
)


def parse_ssml(document: str) -> list[Segment]:
    """A whole SSML text as the server takes it (`intake.Session.speak`): one stream, given
    the whole document, then finished."""
    stream = SsmlStream("en")
    return stream.add(document) + stream.finish()


def texts(segments: list[Segment]) -> list[str]:
    return [s.text for s in segments if isinstance(s, Sentence)]


def spoken(segments: list[Segment]) -> str:
    return " ".join(texts(segments))


def streamed(document: str, pieces: list[int]) -> list[Segment]:
    """`document` fed in pieces cut at the given offsets."""
    stream = SsmlStream("en")
    cuts = [0, *sorted(pieces), len(document)]
    out: list[Segment] = []
    for start, end in itertools.pairwise(cuts):
        out += stream.add(document[start:end])
    return out + stream.finish()


# Elements


def test_break_time_is_a_pause_in_its_place() -> None:
    segments = parse_ssml('<speak>Lights off. <break time="2s"/> Good night.</speak>')
    assert segments == [Sentence("Lights off."), Pause(2000), Sentence("Good night.")]


@pytest.mark.parametrize(
    ("attributes", "ms"),
    [
        ('time="500ms"', 500),
        ('time="1.5s"', 1500),
        ('time=" 250 MS "', 250),
        ('time="60s"', MAX_SILENCE_MS),
        ('strength="x-strong"', 1000),
        ('strength="weak"', 250),
        ("", 400),
        ('time="soon" strength="strong"', 700),
        ('strength="loud"', 400),
    ],
)
def test_break_time_and_strength(attributes: str, ms: int) -> None:
    assert parse_ssml(f"<speak>A<break {attributes}/>B</speak>")[1] == Pause(ms)


def test_breaks_add_up_and_none_is_no_pause() -> None:
    doc = '<speak>A<break time="1s"/><break time="1s"/>B<break strength="none"/>C</speak>'
    assert parse_ssml(doc) == [Sentence("A"), Pause(2000), Sentence("B"), Sentence("C")]


def test_paragraphs_and_sentences_pause_but_not_at_the_ends() -> None:
    doc = "<speak><p><s>One.</s><s>Two.</s></p><p><s>Three.</s></p></speak>"
    assert parse_ssml(doc) == [
        Sentence("One."),
        Pause(250),
        Sentence("Two."),
        Pause(700),  # </s></p>: the longer pause, not both
        Sentence("Three."),
    ]


def test_sub_says_the_alias_instead_of_the_text() -> None:
    doc = '<speak>The <sub alias="World Wide Web Consortium">W3C</sub> met.</speak>'
    assert texts(parse_ssml(doc)) == ["The World Wide Web Consortium met."]


@pytest.mark.parametrize(
    ("kind", "value", "words"),
    [
        ("characters", "ABC", "A B C"),
        ("spell-out", "Wi2", "W I two"),
        ("digits", "2045", "two zero four five"),
        ("cardinal", "2045", "two thousand and forty-five"),
        ("ordinal", "3", "third"),
        ("date", "2026-12-25", "December twenty-fifth, twenty twenty-six"),
        ("time", "14:30", "two thirty PM"),
        ("telephone", "555 0100", "five five five, zero one zero zero"),
    ],
)
def test_say_as_reaches_the_model_as_words(kind: str, value: str, words: str) -> None:
    doc = f'<speak>It is <say-as interpret-as="{kind}">{value}</say-as> now.</speak>'
    said = spoken(parse_ssml(doc))
    assert said == f"It is {words} now."
    assert not re.search(r"[0-9]", said)


def test_say_as_date_format_and_language() -> None:
    doc = '<say-as interpret-as="date" format="dmy">25/12/2026</say-as>'
    assert "December" in spoken(parse_ssml(doc))
    french = '<speak xml:lang="fr-FR"><say-as interpret-as="cardinal">21</say-as></speak>'
    assert spoken(parse_ssml(french)) == "vingt et un"


def test_prosody_rate_and_lang_set_each_sentence() -> None:
    doc = (
        '<speak><prosody rate="slow">Slow one.</prosody> <prosody rate="150%">Fast one.'
        '<prosody rate="+20%">Faster.</prosody></prosody> '
        '<lang xml:lang="fr-FR">Il est 3 heures.</lang> Back 2 English.</speak>'
    )
    assert parse_ssml(doc) == [
        Sentence("Slow one.", None, 0.8),
        Sentence("Fast one.", None, 1.5),
        Sentence("Faster.", None, 1.8),
        Sentence("Il est trois heures.", "fr-FR", 1.0),
        Sentence("Back two English.", None, 1.0),
    ]


@pytest.mark.parametrize(
    ("rate", "factor"),
    [("x-slow", 0.6), ("x-fast", 1.5), ("10%", 0.5), ("500%", 2.0), ("1.1", 1.1), ("zz", 1.0)],
)
def test_prosody_rate_values_are_clamped(rate: str, factor: float) -> None:
    [sentence] = parse_ssml(f'<speak><prosody rate="{rate}">Hi.</prosody></speak>')
    assert isinstance(sentence, Sentence) and sentence.rate == pytest.approx(factor)


def test_unknown_elements_are_dropped_and_their_text_kept() -> None:
    doc = (
        '<speak xmlns="http://www.w3.org/2001/10/synthesis" version="1.1">'
        '<emphasis level="strong">Really</emphasis> <mark name="x"/>'
        '<audio src="https://example.com/a.mp3">quite</audio> good.</speak>'
    )
    assert texts(parse_ssml(doc)) == ["Really quite good."]


def test_text_without_a_speak_root_is_ssml_too() -> None:
    assert parse_ssml('Hello <break time="1s"/> world') == [
        Sentence("Hello"),
        Pause(1000),
        Sentence("world"),
    ]


def test_entities_and_numbers_of_plain_text_are_read() -> None:
    assert texts(parse_ssml("<speak>Tom &amp; Jerry at 21.5 &#176;C.</speak>")) == [
        "Tom & Jerry at twenty-one point five degrees Celsius."
    ]


def test_looks_like_ssml() -> None:
    assert looks_like_ssml("  <speak>Hi</speak>")
    assert looks_like_ssml('<?xml version="1.0"?>\n<speak>Hi</speak>')
    assert not looks_like_ssml("1 < 2 and <b>bold</b>")


# Hostile and malformed input: spoken as text, never an exception, nothing expanded or read.


def test_malformed_ssml_keeps_its_words_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """What was read before the fault is spoken as read, the rest as plain text with its markup
    dropped (`SsmlStream`: a stream cannot take back what went to the engine)."""
    with caplog.at_level(logging.WARNING):
        segments = parse_ssml('<speak>Door open. <b>Now</a> <break time="1s"/> shut.</speak>')
    assert segments == [Sentence("Door open."), Sentence("Now"), Sentence("shut.", "en")]
    assert "Malformed SSML" in caplog.text


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)).replace(
        "&lol0;", "&lol;"
    )
    + "]><speak>&lol9; done.</speak>"
)


@pytest.mark.parametrize(
    "document",
    [
        BILLION_LAUGHS,
        '<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]><speak>A &x; B.</speak>',
        '<!DOCTYPE s [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]><speak>A.</speak>',
        '<!DOCTYPE s SYSTEM "http://127.0.0.1:9/x.dtd"><speak>A.</speak>',
        '<speak xmlns:xi="http://www.w3.org/2001/XInclude">A <xi:include href="/etc/passwd" '
        'parse="text"/> B.</speak>',
    ],
)
def test_entity_tricks_expand_and_fetch_nothing(document: str) -> None:
    start = time.monotonic()
    said = spoken(parse_ssml(document))
    assert time.monotonic() - start < 5  # a bound on a hang, not a timing claim
    assert "lollol" not in said and "root:" not in said
    assert len(said) < len(document)


def test_huge_input_is_bounded() -> None:
    sentence = "The quick brown fox jumps. "
    document = "<speak>" + sentence * (3 * MAX_SSML_CHARS // len(sentence)) + "</speak>"
    said = spoken(parse_ssml(document))
    assert 0 < len(said) <= MAX_SSML_CHARS


@pytest.mark.parametrize("depth", [50, 5000])
def test_deep_nesting_keeps_the_text(depth: int) -> None:
    document = "<speak>" + "<prosody>" * depth + "Deep." + "</prosody>" * depth + "</speak>"
    assert texts(parse_ssml(document)) == ["Deep."]


def test_deep_unclosed_nesting_is_plain_text() -> None:
    assert texts(parse_ssml("<speak>" + "<a>" * 20000 + "Lost?")) == ["Lost?"]


SSML_PIECES = st.sampled_from(
    [
        "<speak>",
        "</speak>",
        "<p>",
        "</p>",
        "<s>",
        "</s>",
        '<break time="300ms"/>',
        "<break",
        '<say-as interpret-as="digits">',
        "</say-as>",
        '<sub alias="x">',
        "</sub>",
        '<prosody rate="fast">',
        "</prosody>",
        '<lang xml:lang="de">',
        "</lang>",
        "&amp;",
        "&bogus;",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<!DOCTYPE x [",
        "]>",
        '"',
        "<",
        ">",
        "/",
        "=",
        "Hello there. ",
        "It is 12:30. ",
        "Ünïcødé ✓ ",
        "42",
        " ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(SSML_PIECES, max_size=30), cut=st.integers(min_value=0))
def test_fuzzed_fragments_never_fail(pieces: list[str], cut: int) -> None:
    """Random mixes of SSML fragments (mostly malformed): never an exception, only sentences
    and bounded pauses, whole or streamed in two pieces."""
    document = "".join(pieces)
    for segments in (parse_ssml(document), streamed(document, [cut % (len(document) + 1)])):
        for segment in segments:
            assert isinstance(segment, Sentence | Pause)
            if isinstance(segment, Pause):
                assert 0 < segment.ms <= MAX_SILENCE_MS
            else:
                assert segment.text.strip()


# Streaming


STREAMED = (
    '<speak>Good evening. The door has been open for <say-as interpret-as="cardinal">15'
    '</say-as> minutes.<break time="700ms"/><prosody rate="slow">Shall I lock it? </prosody>'
    '<sub alias="Home Assistant">HA</sub> is waiting.</speak>'
)


def test_streamed_split_anywhere_equals_whole() -> None:
    """Every single cut (inside tags, attribute values, entities) gives the same segments."""
    whole = parse_ssml(STREAMED)
    assert len(whole) == 5
    for cut in range(len(STREAMED) + 1):
        assert streamed(STREAMED, [cut]) == whole, cut


def test_streamed_character_by_character_equals_whole() -> None:
    assert streamed(STREAMED, list(range(len(STREAMED)))) == parse_ssml(STREAMED)


def test_streamed_sentences_come_out_as_they_complete() -> None:
    """The first sentence is out once the next one begins, long before the document ends."""
    stream = SsmlStream("en")
    first = stream.add("<speak>Good evening. The d")
    assert first == [Sentence("Good evening.")]
    assert stream.add('oor is open.<break time="1') == []  # the next word may continue it
    assert stream.add('s"/>') == [Sentence("The door is open."), Pause(1000)]
    assert stream.add(" Bye.</speak>") == []
    assert stream.finish() == [Sentence("Bye.")]


def test_streamed_without_root_split_inside_the_first_tag(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stream = SsmlStream("en")
    assert stream.add("  <spe") == []
    assert stream.add("ak>Good morning. Two") == [Sentence("Good morning.")]
    assert stream.finish() == [Sentence("Two")]  # and no warning: the root was left open
    rootless = SsmlStream("en")
    assert rootless.add("One. <br") + rootless.add('eak time="1s"/>Two') == [
        Sentence("One."),
        Pause(1000),
    ]
    assert rootless.finish() == [Sentence("Two")]
    assert not stream.malformed and not rootless.malformed and "Malformed" not in caplog.text


def test_streamed_malformation_goes_on_as_plain_text(caplog: pytest.LogCaptureFixture) -> None:
    stream = SsmlStream("en")
    with caplog.at_level(logging.WARNING):
        out = stream.add("<speak>Good evening. The door</b> is open. And ")
        out += stream.add("<i>more</i> here.") + stream.finish()
    assert stream.malformed and "Malformed SSML" in caplog.text
    assert spoken(out) == "Good evening. The door is open. And more here."
