"""Every language the server speaks, one record each, and the one rule for what a code means.

A record holds what the rest of the server asks about a language: its ISO 639-1 code, its name
(the pocket-tts models that speak it start with it) and the phrase a voice speaks to have its
loudness measured; its number tables are `text.numbers.LANGUAGES[code]`. A code is read by its
base (`fr-CA`, `fr_ca`, `FR` -> `fr`), and a code given by a user that no record knows is an
`UnknownLanguage` error, refused at start. A model whose name names no language (a custom
config) is `DEFAULT`'s unless given a code.

Adding a language: its numbers module in `text/numbers/` (its tables, abbreviations included),
its record here, and its code and models in the add-on's config.yaml lists;
tests/units/test_language_records.py checks that every field is set and the lists agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


class UnknownLanguage(ValueError):
    """A language code no record knows."""

    @staticmethod
    def about(code: str) -> str:
        """What is wrong with `code`, for a person."""
        return f"unknown language {code[:20]!r}: this server speaks {', '.join(RECORDS)}"


@dataclass(frozen=True)
class LanguageRecord:
    """What the server knows about one language."""

    code: str
    """ISO 639-1 code, as Home Assistant names the language."""
    name: str
    """pocket-tts's name for it: the models whose names start with it speak it."""
    calibration: str
    """The phrase each voice speaks to have its loudness measured (about four seconds)."""

    def speaks(self, model: str) -> bool:
        """Whether the pocket-tts model (or config file) called `model` speaks this language."""
        return model.lower().startswith(self.name)


RECORDS: dict[str, LanguageRecord] = {
    record.code: record
    for record in (
        LanguageRecord(
            "en",
            "english",
            "Good morning! The kitchen light is on, and it will rain a little this afternoon.",
        ),
        LanguageRecord(
            "fr",
            "french",
            "Bonjour ! La lumière de la cuisine est allumée, et il pleuvra un peu cet après-midi.",
        ),
        LanguageRecord(
            "de",
            "german",
            "Guten Morgen! Das Licht in der Küche ist an, "
            "und heute Nachmittag regnet es ein wenig.",
        ),
        LanguageRecord(
            "it",
            "italian",
            "Buongiorno! La luce della cucina è accesa, e oggi pomeriggio pioverà un po'.",
        ),
        LanguageRecord(
            "pt",
            "portuguese",
            "Bom dia! A luz da cozinha está acesa, e vai chover um pouco esta tarde.",
        ),
        LanguageRecord(
            "es",
            "spanish",
            "¡Buenos días! La luz de la cocina está encendida, y esta tarde lloverá un poco.",
        ),
        LanguageRecord(
            "nl",
            "dutch",
            "Goedemorgen! Het licht in de keuken brandt, en vanmiddag gaat het een beetje regenen.",
        ),
    )
}
"""Every language, by code."""

DEFAULT = RECORDS["en"]
"""The language of a custom model config whose name names none (and no code was given)."""


def base_code(code: str) -> str:
    """`fr-CA`, `pt_BR`, ` FR ` -> `fr`: the language part of a code, lower-case."""
    return re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]


def known(code: str) -> LanguageRecord | None:
    """The record of the language `code` names, if any."""
    return RECORDS.get(base_code(code))


def record(code: str) -> LanguageRecord:
    """The record of the language `code` names; `UnknownLanguage` if there is none."""
    found = known(code)
    if found is None:
        raise UnknownLanguage(UnknownLanguage.about(code))
    return found


def same_language(requested: str, code: str) -> bool:
    """Whether a requested language (`fr`, `fr-FR`, `fr_CA`) is the one `code` names."""
    requested, code = requested.lower().replace("_", "-"), code.lower().replace("_", "-")
    return requested == code or base_code(requested) == base_code(code)


def of_model(model: str | None, config: str | None = None) -> LanguageRecord:
    """The language a model speaks, from its name or its config file's name; `DEFAULT` for a
    custom config whose name names none (give it a code: `--model-config CODE=PATH`)."""
    stem = model or Path(config.split("@")[0] if config else "").stem
    return next((r for r in RECORDS.values() if r.speaks(stem)), DEFAULT)


def language_code(model: str | None, config: str | None = None) -> str:
    """The ISO code of a model's language, from its name or config file name (`of_model`)."""
    return of_model(model, config).code
