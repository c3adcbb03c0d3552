"""Through the real server: announcements reach the model as words, one-shot and streamed.

The server runs in-process on the slim random model. pocket-tts's `split_into_best_sentences` is
wrapped (not replaced) to record the text the engine hands pocket-tts: the engine cuts each piece
of text with it into the chunks it passes to `TTSModel.generate_audio_stream` (the chunks are
decoded tokens, which the tiny tokenizer garbles, so the text is recorded before that).
"""

# ruff: noqa: E501, RUF001  (expected sentences are long; the en dash is part of the text)

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pocket_tts.models import text_chunking

from testkit.model_factory import TinyModel
from testkit.support import running_server, synthesize, synthesize_streamed
from tests.conftest import model_args
from tests.units.numbers_round5_corpus import ROUND_FIVE
from wyoming_pocket_tts.engine.tuning import timing

ANNOUNCEMENTS = {
    "en": (
        "The living room is 21.5 °C and the humidity is 48%. Your timer ends at 14:30. "
        "Battery at 15% – charge it by 2026-12-01.",
        [
            "The living room is twenty-one point five degrees Celsius and the humidity is forty-eight percent.",
            "Your timer ends at two thirty PM.",
            "Battery at fifteen percent – charge it by December first, twenty twenty-six.",
        ],
    ),
    "fr": (
        "Il fait 21,5 °C et 48 % d'humidité. Le minuteur sonne à 14h30. "
        "Électricité : 0,38 € le kWh, p. ex. Demain.",
        [
            "Il fait vingt et un virgule cinq degrés Celsius et quarante-huit pour cent d'humidité.",
            "Le minuteur sonne à quatorze heures trente.",
            "Électricité : trente-huit centimes le kilowattheure, par exemple Demain.",
        ],
    ),
    "de": (
        "Im Wohnzimmer sind es 21,5 °C und 48 % Luftfeuchtigkeit. Der Müll wird am 1. Dezember "
        "um 7:15 Uhr abgeholt. Strom kostet z. B. 0,38 €.",
        [
            "Im Wohnzimmer sind es einundzwanzig Komma fünf Grad Celsius und achtundvierzig Prozent Luftfeuchtigkeit.",
            "Der Müll wird am ersten Dezember um sieben Uhr fünfzehn abgeholt.",
            "Strom kostet zum Beispiel achtunddreißig Cent.",
        ],
    ),
}

ROUND_FOUR = {
    # Round four's forms (issue 54): Roman numerals, scales, durations, decades, dimensions.
    "en": (
        "Henry VIII had a 4x4 worth $2.3M. The drive took 4h 20m.",
        [
            "Henry the Eighth had a four by four worth two point three million dollars.",
            "The drive took four hours and twenty minutes.",
        ],
    ),
    "de": (
        "Karl V. regierte im 16. Jahrhundert. Die Anlage hat 9,8 kWp und 3,5 Mio. € gekostet.",
        [
            "Karl der Fünfte regierte im sechzehnten Jahrhundert.",
            "Die Anlage hat neun Komma acht Kilowatt Peak und drei Komma fünf Millionen Euro gekostet.",
        ],
    ),
    "fr": (
        "Louis XIV a régné au XVIIe siècle. Ajoutez 2 ½ tasses et 1 c. à s. d'huile.",
        [
            "Louis quatorze a régné au dix-septième siècle.",
            "Ajoutez deux tasses et demie et une cuillère à soupe d'huile.",
        ],
    ),
    "es": (
        "Carlos III vivió en el siglo XVIII. La habitación mide 4 x 5 m.",
        [
            "Carlos tercero vivió en el siglo dieciocho.",
            "La habitación mide cuatro por cinco metros.",
        ],
    ),
    "it": (
        "Pio XII visse nel XX secolo. Il video ha 40 mln di visualizzazioni.",
        [
            "Pio dodicesimo visse nel ventesimo secolo.",
            "Il video ha quaranta milioni di visualizzazioni.",
        ],
    ),
    "pt": (
        "A empresa faturou R$ 3 bi. A viagem demora 4h 20m.",
        [
            "A empresa faturou três bilhões de reais.",
            "A viagem demora quatro horas e vinte minutos.",
        ],
    ),
    "nl": (
        "Willem III leefde in de 17e eeuw. De zoom is 5x en de kamer 4 x 5 m.",
        [
            "Willem de Derde leefde in de zeventiende eeuw.",
            "De zoom is vijf keer en de kamer vier bij vijf meter.",
        ],
    ),
}


TIMING_TEXTS = {timing.SHORT_TEXT, timing.LONG_TEXT}


@pytest.fixture
def model_inputs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text the engine hands pocket-tts to cut into chunks and speak, in order."""
    recorded: list[str] = []
    lock = threading.Lock()
    split = text_chunking.split_into_best_sentences

    def recording(tokenizer: Any, text_to_generate: str, *args: Any, **kwargs: Any) -> Any:
        if text_to_generate not in TIMING_TEXTS:  # a model's speed check at its load
            with lock:
                recorded.append(text_to_generate)
        return split(tokenizer, text_to_generate, *args, **kwargs)

    monkeypatch.setattr(text_chunking, "split_into_best_sentences", recording)
    yield recorded


def _words(text: str) -> list[str]:
    first, *rest = text.split(" ")
    return [first, *(" " + word for word in rest)]


CASES = [
    *((language, *ANNOUNCEMENTS[language]) for language in sorted(ANNOUNCEMENTS)),
    *((language, *ROUND_FOUR[language]) for language in sorted(ROUND_FOUR)),
]
"""Each language's announcements, then its round-four forms."""


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("language", "text", "sentences"), CASES)
def test_announcements_reach_the_model_as_words(
    language: str,
    text: str,
    sentences: list[str],
    slim_model: TinyModel,
    voices: dict[str, Path],
    model_inputs: list[str],
) -> None:

    async def scenario() -> None:
        args = model_args(slim_model, voices, "--language-code", language)
        async with running_server(args) as server:
            port = server.port or 0
            one_shot = await synthesize(port, text)
            assert not one_shot.errors and one_shot.audio
            streamed = await synthesize_streamed(port, _words(text))
            assert not streamed.errors and streamed.audio

    asyncio.run(scenario())
    assert model_inputs == [*sentences, *sentences]  # one-shot and streamed: sentence by sentence


@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", sorted(ROUND_FIVE))
def test_round_five_sentences_reach_the_model_as_words(
    language: str, slim_model: TinyModel, voices: dict[str, Path], model_inputs: list[str]
) -> None:
    """Issue 65's own sentences (remaining times, scales mid-sentence, "den 14.", "2de", a
    party's count): each reaches pocket-tts as one sentence of words, one-shot and streamed."""
    rows = ROUND_FIVE[language]

    async def scenario() -> None:
        args = model_args(slim_model, voices, "--language-code", language)
        async with running_server(args) as server:
            port = server.port or 0
            for text, _, _ in rows:
                one_shot = await synthesize(port, text)
                assert not one_shot.errors and one_shot.audio
                streamed = await synthesize_streamed(port, _words(text))
                assert not streamed.errors and streamed.audio

    asyncio.run(scenario())
    assert len(model_inputs) == 2 * len(rows)  # one sentence each, one-shot and streamed
    for index, (text, must, must_not) in enumerate(rows):
        spoken = model_inputs[2 * index]
        assert model_inputs[2 * index + 1] == spoken, text
        assert not re.search(r"[0-9]", spoken), spoken
        assert all(words in spoken for words in must), spoken
        assert not any(words in spoken for words in must_not), spoken


@pytest.mark.timeout(300)
def test_number_words_can_be_turned_off(
    slim_model: TinyModel, voices: dict[str, Path], model_inputs: list[str]
) -> None:
    async def scenario() -> None:
        args = model_args(slim_model, voices, "--no-number-words")
        async with running_server(args) as server:
            reply = await synthesize(server.port or 0, "**It is 21.5 °C** now.")
            assert not reply.errors

    asyncio.run(scenario())
    assert model_inputs == ["It is 21.5 °C now."]  # cleaned up, numbers as sent


@pytest.mark.timeout(300)
def test_each_voice_reads_numbers_in_its_own_language(
    slim_model: TinyModel,
    endless_model: TinyModel,
    voices: dict[str, Path],
    model_inputs: list[str],
) -> None:
    """Two models, English first: a French voice's text is read the French way."""

    async def scenario() -> None:
        args = [
            "--model-config", f"en={slim_model.config_path}",
            "--model-config", f"fr={endless_model.config_path}",
            "--voice", f"anna={voices['a']}",
            "--voice", f"fr:mamie={voices['b']}",
            "--max-text-chars", "60",
        ]  # fmt: skip
        async with running_server(args) as server:
            port = server.port or 0
            for voice in ("anna", "mamie"):
                assert not (await synthesize(port, "Il fait 21,5 °C.", voice=voice)).errors
            streamed = await synthesize_streamed(port, _words("Il fait 21,5 °C."), voice="mamie")
            assert not streamed.errors

    asyncio.run(scenario())
    french = "Il fait vingt et un virgule cinq degrés Celsius."
    assert model_inputs[1:] == [french, french]
    assert model_inputs[0] == "Il fait twenty-one point five degrees Celsius."  # in English
