"""How a client's voice name and language map to a voice, with several languages served.

Pure lookups on a real `VoiceCatalog` (configured voices and a real voices folder); the fast
tests `script/mutate catalog` pairs with the module. Server-level behaviour is in test_voices.py
and test_several_languages.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from wyoming_pocket_tts.settings import ModelSettings, VoiceSpec
from wyoming_pocket_tts.voices.catalog import (
    VoiceCatalog,
    default_voice,
    same_language,
    with_default_voices,
)

VOICES = [
    VoiceSpec("anna", "alba", "en"),
    VoiceSpec("bob", "marius", "en"),
    VoiceSpec("chloe", "fantine", "fr"),
    VoiceSpec("denis", "/voices/denis.safetensors", "fr"),
]


@pytest.fixture
def catalog() -> VoiceCatalog:
    return VoiceCatalog(list(VOICES), languages=["en", "fr"])


def test_a_broken_voice_is_replaced_by_its_own_languages_default(catalog: VoiceCatalog) -> None:
    denis = catalog.resolve("denis")
    catalog.failures.record(denis, "cannot read the file")
    assert catalog.resolve("denis").name == "chloe"  # French, not the first voice (English)
    bob = catalog.resolve("bob")
    catalog.failures.record(bob, "cannot read the file")
    assert catalog.resolve("bob").name == "anna"


def test_a_broken_default_is_still_used_as_there_is_nothing_better(catalog: VoiceCatalog) -> None:
    chloe = catalog.resolve("chloe")
    catalog.failures.record(chloe, "broken")
    assert catalog.resolve("chloe") is chloe


def test_a_known_name_wins_over_the_language(catalog: VoiceCatalog) -> None:
    assert catalog.resolve("bob", "fr").name == "bob"
    assert catalog.resolve("denis", "en").name == "denis"


def test_no_or_unknown_name_takes_the_languages_default(catalog: VoiceCatalog) -> None:
    assert catalog.resolve(None, "fr-FR").name == "chloe"
    assert catalog.resolve("nobody", "fr_CA").name == "chloe"
    assert catalog.resolve("nobody", "en").name == "anna"
    assert catalog.resolve(None, "de").name == "anna"  # not served: the default voice
    assert catalog.resolve(None).name == "anna"
    assert catalog.resolve(["not", "a", "name"], "fr").name == "chloe"
    assert catalog.resolve(None, 3).name == "anna"


def test_default_for_is_each_languages_first_voice(catalog: VoiceCatalog) -> None:
    assert catalog.default_for("fr").name == "chloe"
    assert catalog.default_for("en").name == "anna"
    assert [v.name for v in catalog.voices_of("fr")] == ["chloe", "denis"]


def test_a_voice_found_in_a_folder_later_is_resolved(tmp_path: Path) -> None:
    catalog = VoiceCatalog([VoiceSpec("anna", "alba", "en")], [tmp_path], languages=["en", "fr"])
    assert catalog.resolve("late").name == "anna"
    (tmp_path / "fr").mkdir()
    tone = 0.1 * np.sin(np.arange(24000) * 2 * np.pi * 220 / 24000)
    soundfile.write(tmp_path / "fr" / "late.wav", tone, 24000)
    late = catalog.resolve("late")
    assert late.name == "late" and late.code == "fr"
    catalog.failures.record(late, "not audio")
    assert catalog.resolve("late").name == "anna"  # French has no voice of its own: the default


def test_a_chosen_default_saved_into_a_folder_later_is_the_default(tmp_path: Path) -> None:
    """The studio saves a voice and makes it the default: the next request, with no voice
    name, must get it without waiting for a rescan by some other lookup."""
    catalog = VoiceCatalog([VoiceSpec("anna", "alba", "en")], [tmp_path], languages=["en"])
    catalog.chosen.choose("en", "new")
    assert catalog.default_for("en").name == "anna"  # not there yet
    tone = 0.1 * np.sin(np.arange(24000) * 2 * np.pi * 220 / 24000)
    soundfile.write(tmp_path / "new.wav", tone, 24000)
    assert catalog.default_for("en").name == "new"


def test_a_failure_is_forgotten_when_the_file_changes(tmp_path: Path) -> None:
    voice = tmp_path / "eve.wav"
    voice.write_bytes(b"RIFF")
    catalog = VoiceCatalog(
        [VoiceSpec("anna", "alba", "en"), VoiceSpec("eve", str(voice), "en")], languages=["en"]
    )
    eve = catalog.resolve("eve")
    catalog.failures.record(eve, "broken")
    assert catalog.failures.check(eve) == "broken"
    assert catalog.resolve("eve").name == "anna"
    voice.write_bytes(b"RIFF and more")
    assert catalog.failures.check(eve) is None
    assert catalog.resolve("eve").name == "eve"


def test_a_model_that_cannot_clone_refuses_its_audio_voices_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    voice = tmp_path / "eve.wav"
    voice.write_bytes(b"RIFF")
    catalog = VoiceCatalog(
        [
            VoiceSpec("anna", "alba", "en"),
            VoiceSpec("eve", str(voice), "en"),
            VoiceSpec("fred", str(voice), "fr"),
        ],
        languages=["en", "fr"],
    )
    catalog.failures.refuse_cloning("en", "no cloning weights", "Add them.")
    assert catalog.resolve("eve").name == "anna"
    assert catalog.resolve("eve").name == "anna"
    assert caplog.text.count("Voice eve is not offered") == 1
    assert catalog.failures.check(catalog.resolve("anna")) is None
    assert catalog.resolve("fred").name == "fred"


def test_same_language_matches_regions_and_separators_only() -> None:
    assert (
        same_language("fr-FR", "fr") and same_language("FR_ca", "fr") and same_language("en", "en")
    )
    assert not same_language("fr", "en") and not same_language("de-AT", "en")


def test_each_language_without_a_voice_gets_its_default_named_apart() -> None:
    models = [ModelSettings(model="english"), ModelSettings(model="french", code="fr")]
    french = default_voice(models[1])
    taken = [VoiceSpec(french.name, "alba", "en")]
    voices = with_default_voices(taken, models)
    assert [(v.name, v.code) for v in voices] == [
        (french.name, "en"),
        (f"{french.name}-fr", "fr"),
    ]
    assert with_default_voices(VOICES, models) == VOICES
