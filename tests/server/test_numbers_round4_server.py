"""Through the real server, round four's forms (issue 54) reach pocket-tts as words, one
sentence pair per language, one-shot and streamed word by word.

The approach of `test_numbers_server`: the slim random model in-process, pocket-tts's
`split_into_best_sentences` wrapped (not replaced) to record the text the engine hands it.
"""

# ruff: noqa: E501  (expected sentences are long)

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from testkit.model_factory import TinyModel
from testkit.support import running_server, synthesize, synthesize_streamed
from tests.conftest import model_args

from .test_numbers_server import _words, model_inputs

__all__ = ["model_inputs"]  # the fixture, shared with test_numbers_server

ROUND_FOUR = {
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


@pytest.mark.timeout(300)
@pytest.mark.parametrize("language", sorted(ROUND_FOUR))
def test_round_four_reaches_the_model_as_words(
    language: str, slim_model: TinyModel, voices: dict[str, Path], model_inputs: list[str]
) -> None:
    text, sentences = ROUND_FOUR[language]

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
