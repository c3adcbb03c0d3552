"""Numbers round four (issue 54): the blind set, both sides of each context decision, the splitter.

Every sentence goes through `prepare_for_speech`, as the server does; no digit may be left.
"""

# ruff: noqa: RUF001  (non-ASCII text is the point)

from __future__ import annotations

import re

import pytest

from wyoming_pocket_tts.text.speech import prepare_for_speech

from .numbers_round4_corpus import BLIND, Reading
from .splitting import streamed_sentences, whole_sentences

DECISIONS: dict[str, list[Reading]] = {
    "roman": [
        (
            "en",
            "In 1969 Apollo XI flew, later Mark II; Rocky II is a film.",
            ("Apollo eleven", "Mark two", "Rocky two"),
            ("the Eleventh", "the Second"),
        ),
        (
            "de",
            "Nach Weltkrieg II. kam Ludwig XIV. nicht.",
            ("Weltkrieg zwei kam", "Ludwig der Vierzehnte nicht"),
            (),
        ),
        (
            "en",
            "Then I left, and Elizabeth I stayed.",
            ("Then I left", "Elizabeth the First"),
            ("Then the",),
        ),
        (
            "en",
            "World War II ended; Pope Pius XII spoke.",
            ("World War two", "Pius the Twelfth"),
            ("the Second",),
        ),
        (
            "en",
            "The IV drip is ready; see Chapter IV.",
            ("The IV drip", "Chapter four"),
            ("the Fourth",),
        ),
        (
            "de",
            "Wähle den Buchstaben V, gegründet von Karl V. im Jahr 1520.",
            ("Buchstaben V,", "von Karl dem Fünften im"),
            ("Buchstaben fünf",),
        ),
        (
            "fr",
            "La lettre V, Louis XVI et François Ier au XVIIIe siècle.",
            ("lettre V", "Louis seize", "François premier", "dix-huitième siècle"),
            ("XVI",),
        ),
        (
            "es",
            "La letra V, Felipe VI, Alfonso XIII y el siglo V.",
            ("letra V", "Felipe sexto", "Alfonso trece", "siglo quinto"),
            ("sexto siglo",),
        ),
        (
            "it",
            "La lettera V, Papa Giovanni XXIII, nel XIX e XX secolo.",
            ("lettera V", "Giovanni ventitreesimo", "diciannovesimo e ventesimo secolo"),
            ("XXIII",),
        ),
        (
            "pt",
            "A letra V, D. Pedro I e o século XIX.",
            ("letra V", "Pedro primeiro", "século dezanove"),
            ("XIX",),
        ),
        (
            "nl",
            "Kies optie V in het menu; Willem I was de eerste.",
            ("optie V", "Willem de Eerste"),
            ("optie vijf",),
        ),
    ],
    "queens": [
        (
            "en",
            "Queen Elizabeth II met Charles III.",
            ("Elizabeth the Second", "Charles the Third"),
            (),
        ),
        (
            "de",
            "Elisabeth II. und Karl III. trafen sich.",
            ("Elisabeth die Zweite", "Karl der Dritte"),
            (),
        ),
        ("fr", "Marie Ire et Henri Ier.", ("Marie première", "Henri premier"), ()),
        ("es", "Isabel II y Felipe II.", ("Isabel segunda", "Felipe segundo"), ()),
        ("it", "Elisabetta II e Carlo III.", ("Elisabetta seconda", "Carlo terzo"), ()),
        (
            "pt",
            "D. Maria I, D. Isabel, D. Amélia, D. Sebastião e D. Pedro II.",
            (
                "Dona Maria primeira",
                "Dona Isabel",
                "Dona Amélia",
                "Dom Sebastião",
                "Dom Pedro segundo",
            ),
            ("Dom Maria", "Dona Sebastião"),
        ),
        ("nl", "Beatrix I en Willem II.", ("Beatrix de Eerste", "Willem de Tweede"), ()),
    ],
    "scales": [
        (
            "en",
            "A 4k video got 4k views.",
            ("four K video", "four thousand views"),
            ("four thousand video",),
        ),
        ("de", "Ein 4k-Fernseher und 4k Aufrufe.", ("vier K-Fernseher", "viertausend Aufrufe"), ()),
        (
            "en",
            "The 10K run had 8k runners; size M sold out.",
            ("ten K run", "eight thousand runners", "size M"),
            ("ten thousand run", "million"),
        ),
        (
            "en",
            "She raised $2.3M and €120k; the trail is 5 mi.",
            (
                "two point three million dollars",
                "one hundred and twenty thousand euros",
                "five miles",
            ),
            (),
        ),
        (
            "de",
            "8k Follower, ein 8K-Fernseher und 1 Mio. €.",
            ("achttausend Follower", "acht K-Fernseher", "eine Million Euro"),
            ("achttausend K",),
        ),
        (
            "fr",
            "Un budget de 1 M€ pour 3 M de visiteurs.",
            ("un million d'euros", "trois millions de visiteurs"),
            ("M€",),
        ),
        (
            "es",
            "Ganó 1 mill. de euros y 2 M€.",
            ("un millón de euros", "dos millones de euros"),
            ("mill.",),
        ),
        ("it", "Vale 1 mln di euro e 3 mld.", ("un milione di euro", "tre miliardi"), ("mln",)),
        (
            "pt",
            "Custou R$ 1 bi e US$ 2,5 mi.",
            ("um bilhão de reais", "dois vírgula cinco milhões de dólares"),
            ("bi",),
        ),
        (
            "nl",
            "Het kost 1 mln euro, de tv is 4K.",
            ("één miljoen euro", "vier K"),
            ("vierduizend",),
        ),
    ],
    "dimensions": [
        (
            "en",
            "Buy 2x4 lumber for 24x7 use; 3 x 2 = 6.",
            ("two by four lumber", "twenty-four seven use", "three times two"),
            ("two times four",),
        ),
        ("fr", "3 x 2 = 6 et un 4x4.", ("trois fois deux", "quatre sur quatre"), ("trois sur",)),
        (
            "en",
            "The 4x4 has 10x zoom; 3 × 4 is 12; press X to exit.",
            ("four by four", "ten times zoom", "three times four", "press X"),
            (" x ",),
        ),
        (
            "de",
            "Ein 2 x 3 m Teppich, 1x täglich, 5 × 3 ist 15.",
            ("zwei mal drei Meter", "einmal täglich", "fünf mal drei"),
            (),
        ),
        (
            "fr",
            "Une dalle de 2 x 3 m, une fois 1x par jour, 2 × 3 font 6.",
            ("deux sur trois mètres", "une fois par jour", "deux fois trois"),
            (),
        ),
        ("es", "Una mesa de 2 x 1 m y 1x al día.", ("dos por un metro", "una vez al día"), ()),
        ("it", "Un tavolo 2 x 1 m, 1x al giorno.", ("due per un metro", "una volta al giorno"), ()),
        ("pt", "Uma mesa de 2 x 1 m, 2x por dia.", ("dois por um metro", "duas vezes por dia"), ()),
        (
            "nl",
            "Een tafel van 2 x 1 m, 2x per dag.",
            ("twee bij één meter", "twee keer per dag"),
            (),
        ),
    ],
    "durations": [
        (
            "en",
            "Walk 20m, then charge for 4h 20m; the break is 0:45 h.",
            ("twenty meters", "four hours and twenty minutes", "forty-five minutes"),
            (),
        ),
        (
            "es",
            "El tren de las 20:30 h, con una pausa de 0:45 h.",
            ("las veinte y treinta", "cuarenta y cinco minutos"),
            (),
        ),
        ("it", "Al 45′ il treno delle 20:30 h.", ("quarantacinque minuti", "venti e trenta"), ()),
        (
            "en",
            "Open 9:00–17:30 on the 2nd; the ratio is 2:1.",
            ("nine to five thirty", "two to one"),
            ("–",),
        ),
        ("de", "Geöffnet 9:00–17:30 Uhr.", ("neun Uhr bis siebzehn Uhr dreißig",), ("–",)),
    ],
    "results": [
        (
            "en",
            "Scored at 45+3 and 90′+2; it took 2h15, the train leaves 14:30.",
            (
                "forty-five plus three",
                "ninety minutes plus two",
                "two hours and fifteen minutes",
                "two thirty PM",
            ),
            ("+",),
        ),
        (
            "fr",
            "But à la 45+3 et à la 90e+4, le train part à 2h15.",
            ("quarante-cinq plus trois", "quatre-vingt-dixième plus quatre", "deux heures quinze"),
            ("minutes",),
        ),
        (
            "es",
            "Gol en el 45+3, tren a las 2h15.",
            ("cuarenta y cinco más tres", "dos y quince"),
            ("minutos",),
        ),
    ],
    "decades": [
        (
            "de",
            "Die 80er-Jahre, die 1970er und in den 60ern.",
            ("Achtzigerjahre", "Neunzehnhundertsiebziger", "in den Sechzigern"),
            (),
        ),
        ("it", "Ho 60 anni e amo gli anni '60.", ("sessanta anni", "anni sessanta"), ("'",)),
        ("nl", "In de jaren '70 was ik 70.", ("jaren zeventig", "was ik zeventig"), ("'",)),
    ],
    "addresses": [
        (
            "en",
            "The drive took 1 h 30 min, or 4h 20m, to apt 4B.",
            ("one hour and thirty minutes", "four hours and twenty minutes", "apartment four B"),
            ("H", "M"),
        ),
        (
            "en",
            "2140 people live near 2140 Oak St. Then 1600 Elm Avenue and 2005 Main Street.",
            (
                "two thousand one hundred and forty people",
                "twenty-one forty Oak Street. Then",
                "sixteen hundred Elm",
                "twenty oh five Main",
            ),
            (),
        ),
        ("es", "Vive en el 3.º piso, puerta 3.º B.", ("tercer piso", "tercero B"), ("tercer B",)),
        ("de", "Hauptstr. 5 und die Str. 7.", ("Hauptstraße fünf", "Straße sieben"), ("str.",)),
    ],
    "ordinals": [
        (
            "de",
            "Oma feiert ihren 90. Geburtstag mit ihren 40 Gästen am Montag, den 3.",
            ("ihren neunzigsten Geburtstag", "ihren vierzig Gästen", "den dritten."),
            (),
        ),
        (
            "es",
            "Quedamos a las 12 y la 2.ª reunión es el 21.",
            ("a las doce", "segunda reunión"),
            (),
        ),
    ],
    "recipes": [
        (
            "en",
            "Add ½ tsp of salt and 2 tbsp of oil.",
            ("half a teaspoon", "two tablespoons"),
            ("tsp",),
        ),
        ("de", "1 EL Öl und ½ TL Salz.", ("ein Esslöffel", "ein halber Teelöffel"), ()),
        (
            "fr",
            "Comptez 2 ½ h de cuisson et 2 ½ tasses de lait.",
            ("deux heures et demie", "deux tasses et demie"),
            (),
        ),
        (
            "es",
            "Añade 3 ½ tazas, 1 ½ tazas y 2 ½ h de horno.",
            ("tres tazas y media", "una taza y media", "dos horas y media"),
            (),
        ),
        (
            "it",
            "Aggiungi 1 ½ cucchiai e 1 ½ tazze.",
            ("un cucchiaio e mezzo", "una tazza e mezza"),
            (),
        ),
        ("it", "Sale q.b. e 3 ½ cucchiai di latte.", ("quanto basta", "tre cucchiai e mezzo"), ()),
        ("pt", "Junte 1 c. de chá de canela e sal q.b.", ("uma colher de chá", "quanto baste"), ()),
        (
            "nl",
            "Voeg 2 el suiker en 1 tl zout toe.",
            ("twee eetlepels suiker", "theelepel zout"),
            (),
        ),
    ],
    "names": [
        (
            "en",
            "The Xbox 360 turned 360°; my Pixel 9 and an RTX 4090.",
            ("Xbox three sixty", "three hundred and sixty degrees", "Pixel nine"),
            (),
        ),
        (
            "fr",
            "Ma Peugeot 3008 et un Xbox 360.",
            ("Peugeot trois mille huit", "Xbox trois cent soixante"),
            (),
        ),
    ],
}
"""Both sides of each context decision round four takes, by topic."""


def _as_words(text: str) -> str:
    """A pattern for `text` that does not match inside a longer word."""
    start = r"(?<!\w)" if re.match(r"\w", text) else ""
    end = r"(?!\w)" if re.search(r"\w$", text) else ""
    return start + re.escape(text) + end


def _check(language: str, text: str, must: tuple[str, ...], must_not: tuple[str, ...]) -> None:
    spoken = prepare_for_speech(text, language)
    missing = [words for words in must if words not in spoken]
    wrong = [words for words in must_not if re.search(_as_words(words), spoken)]
    assert (missing, wrong, re.findall("[0-9]", spoken)) == ([], [], []), spoken


def test_the_blind_set_has_ten_sentences_per_language() -> None:
    assert {language: len(rows) for language, rows in BLIND.items()} == dict.fromkeys(
        ("en", "de", "fr", "es", "it", "pt", "nl"), 10
    )


@pytest.mark.parametrize(
    ("language", "text", "must", "must_not"),
    [
        pytest.param(language, text, must, must_not, id=f"{language}:{text}")
        for language, rows in BLIND.items()
        for text, must, must_not in rows
    ],
)
def test_blind_set(
    language: str, text: str, must: tuple[str, ...], must_not: tuple[str, ...]
) -> None:
    _check(language, text, must, must_not)


@pytest.mark.parametrize(
    ("language", "text", "must", "must_not"),
    [
        pytest.param(language, text, must, must_not, id=f"{topic}:{language}:{text}")
        for topic, rows in DECISIONS.items()
        for language, text, must, must_not in rows
    ],
)
def test_context_decides(
    language: str, text: str, must: tuple[str, ...], must_not: tuple[str, ...]
) -> None:
    _check(language, text, must, must_not)


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        (
            "de",
            "Treffpunkt ist die Hauptstr. 5. Bis dann.",
            ["Treffpunkt ist die Hauptstraße fünf.", "Bis dann."],
        ),
        (
            "de",
            "Geöffnet Mo. bis Fr. von 9 bis 17 Uhr. Sa. Ruhetag.",
            ["Geöffnet Montag bis Freitag von neun bis siebzehn Uhr.", "Sa. Ruhetag."],
        ),
        (
            "de",
            "Geöffnet Mo.–Fr. Samstag zu. Fr. Müller kommt Mo. bis Fr.",
            ["Geöffnet Montag bis Freitag Samstag zu.", "Frau Müller kommt Montag bis Freitag."],
        ),
        (
            "de",
            "Am Mi. 1. Advent kommt er. Am Mo. 12.05. kommt sie.",
            ["Am Mittwoch ersten Advent kommt er.", "Am Montag zwölften Mai kommt sie."],
        ),
        (
            "en",
            "Drive to 2140 Oak St. Then rest.",
            ["Drive to twenty-one forty Oak Street. Then rest."],
        ),
        (
            "de",
            "Karl V. regierte lange. Dann kam Philipp II. Er war König.",
            ["Karl der Fünfte regierte lange.", "Dann kam Philipp der Zweite. Er war König."],
        ),
    ],
)
def test_streamed_sentences_keep_their_numbers(
    language: str, text: str, expected: list[str]
) -> None:
    assert streamed_sentences(text, language) == expected
    assert whole_sentences(text, language) == expected
