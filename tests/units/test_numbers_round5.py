"""Numbers round five (issue 65): its own sentences, both sides of each decision, the splitter.

Every sentence goes through `SentenceSplitter` (whole and word by word, as a stream comes), as
the server does: each row must stay one sentence, with its words and without a digit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .numbers_round4_corpus import Reading
from .numbers_round5_corpus import ROUND_FIVE
from .splitting import streamed_sentences, whole_sentences


def _check_one_sentence(
    language: str, text: str, must: tuple[str, ...], bad: tuple[str, ...]
) -> None:
    sentences = whole_sentences(text, language)
    assert streamed_sentences(text, language) == sentences
    assert len(sentences) == 1, sentences
    spoken = sentences[0]
    assert not re.search(r"[0-9]", spoken), spoken
    for words in must:
        assert words in spoken, spoken
    for words in bad:
        assert words not in spoken, spoken


def test_every_language_has_round_five_sentences() -> None:
    assert sorted(ROUND_FIVE) == ["de", "en", "es", "fr", "it", "nl", "pt"]
    assert all(len(rows) >= 4 for rows in ROUND_FIVE.values())


@pytest.mark.parametrize(
    ("language", "text", "must", "must_not"),
    [
        pytest.param(language, text, must, must_not, id=f"{language}:{text}")
        for language, rows in ROUND_FIVE.items()
        for text, must, must_not in rows
    ],
)
def test_round_five_sentences(
    language: str, text: str, must: tuple[str, ...], must_not: tuple[str, ...]
) -> None:
    _check_one_sentence(language, text, must, must_not)


DECISIONS: dict[str, list[tuple[str, Reading]]] = {
    "clock times stay clock times": [
        ("de", ("Wir essen um 1:25 Uhr, der Zug um 20:30 h.", ("um ein Uhr fünfundzwanzig",), ())),
        ("fr", ("On part à 13h20, à 12h on mange.", ("à treize heures vingt", "à midi"), ())),
        ("pt", ("Saímos às 15h45 e às 12h almoçamos.", ("às quinze e quarenta e cinco",), ())),
        ("es", ("Abre a las 9:30 h y cierra a las 20:30 h.", ("a las nueve y treinta",), ())),
        ("it", ("Il treno delle 20:30 h parte in orario.", ("delle venti e trenta",), ())),
        ("nl", ("De trein van 20:30 h en om 9:05 uur.", ("van twintig uur dertig",), ())),
        ("en", ("Dinner at 7:30, then in 2:30 pm.", ("at seven thirty", "two thirty PM"), ())),
    ],
    "the language's 'about' may stand between the cue and the time": [
        ("de", ("Fertig in ca. 1:25 h.", ("in circa einer Stunde und fünfundzwanzig",), ())),
        ("es", ("Termina en aproximadamente 1:20 h.", ("una hora y veinte minutos",), ())),
        ("nl", ("Klaar over ongeveer 2:30 uur.", ("ongeveer tweeënhalf uur",), ())),
        ("de", ("Wir essen um etwa 14:30 Uhr.", ("um etwa vierzehn Uhr dreißig",), ())),
    ],
    "minutes and seconds are no remaining hours": [
        ("de", ("Der Timer läuft noch 1:25 min.", (), ("Stunde",))),
        ("es", ("Quedan 2:15 min de descanso.", (), ("hora",))),
    ],
    "a German day's number is an ordinal before punctuation too": [
        ("de", ("Am Samstag, den 14.: Grillen im Hof.", ("den vierzehnten: Grillen",), ())),
        ("de", ("Wir sehen uns am Montag, den 7. - bis dann!", ("den siebten - bis",), ())),
    ],
    "a letter after 3, or a capital D, is no French ordinal": [
        ("fr", ("Un film en 3d et un jeu en 2D.", ("trois d", "deux D"), ("troisième", "second"))),
    ],
    "two capitals after no article are a flight code": [
        ("es", ("Embarque IB 3456 por la puerta 12.", ("IB tres cuatro cinco seis",), ())),
        ("de", ("Heute startet LH 1234 pünktlich.", ("LH eins zwei drei vier",), ())),
    ],
}
"""Both sides of each decision round five takes, by topic."""


@pytest.mark.parametrize(
    ("language", "text", "must", "must_not"),
    [
        pytest.param(language, text, must, must_not, id=f"{topic}:{language}:{text}")
        for topic, rows in DECISIONS.items()
        for language, (text, must, must_not) in rows
    ],
)
def test_context_decides(
    language: str, text: str, must: tuple[str, ...], must_not: tuple[str, ...]
) -> None:
    _check_one_sentence(language, text, must, must_not)


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        (
            "de",
            "Der Schaden beträgt 2 Mio. Die Polizei ermittelt.",
            ["Der Schaden beträgt zwei Millionen.", "Die Polizei ermittelt."],
        ),
        (
            "de",
            "Wir kommen am 14. Danach fahren wir.",
            ["Wir kommen am vierzehnten.", "Danach fahren wir."],
        ),
        (
            "it",
            "Il debito è di 3 mld. Poi scende.",
            ["Il debito è di tre miliardi.", "Poi scende."],
        ),
        (
            "nl",
            "Het tekort is 2 mln. Daarna daalt het.",
            ["Het tekort is twee miljoen.", "Daarna daalt het."],
        ),
        (
            "es",
            "Ganó 3 mill. Después perdió.",
            ["Ganó tres millones.", "Después perdió."],
        ),
        (
            "pt",
            "Perdeu R$ 2 bi. Depois subiu.",
            ["Perdeu dois bilhões de reais.", "Depois subiu."],
        ),
    ],
)
def test_a_scale_or_day_still_ends_its_sentence(
    language: str, text: str, expected: list[str]
) -> None:
    assert whole_sentences(text, language) == expected
    assert streamed_sentences(text, language) == expected


def _page_examples() -> list[tuple[str, str]]:
    """("sent", "spoken") pairs written `"sent" -> "spoken"` in round five's part of
    docs/numbers.md."""
    page = Path(__file__).resolve().parents[2] / "docs" / "numbers.md"
    section = page.read_text(encoding="utf-8").split("## Remaining times, scales", 1)[1]
    section = section.split("\n## ", 1)[0].replace("\n  ", " ")
    return re.findall(r'"([^"]+)" -> "([^"]+)"', section)


def test_the_page_says_what_is_spoken() -> None:
    """Each example of the page is read so in one of the languages (the page names which)."""
    examples = _page_examples()
    assert len(examples) >= 12
    for sent, spoken in examples:
        readings = [" ".join(whole_sentences(sent, language)) for language in sorted(ROUND_FIVE)]
        assert any(spoken in reading for reading in readings), (sent, spoken)
