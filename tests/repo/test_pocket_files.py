"""The project's copy of what pocket-tts ships (`wyoming_pocket_tts/pocket_files/`, read by
`pocket`) is the installed pocket-tts's: the graphs' path reads it without pocket-tts."""

from __future__ import annotations

import pytest

from wyoming_pocket_tts import pocket

pocket_tts = pytest.importorskip("pocket_tts")


def test_the_configs_are_pocket_tts_s_byte_for_byte() -> None:
    from pocket_tts.utils.config import CONFIGS_DIR

    theirs = {path.name: path.read_bytes() for path in CONFIGS_DIR.glob("*.yaml")}
    ours = {path.name: path.read_bytes() for path in pocket.configs_dir().glob("*.yaml")}
    assert ours.keys() == theirs.keys()
    assert [name for name in ours if ours[name] != theirs[name]] == []
    assert pocket.builtin_models() == sorted(name.removesuffix(".yaml") for name in theirs)


def test_the_voice_tables_are_pocket_tts_s() -> None:
    from pocket_tts import default_parameters
    from pocket_tts.utils import utils

    assert pocket.builtin_voice_origins() == utils._ORIGINS_OF_PREDEFINED_VOICES
    tables = pocket._tables()
    assert tables["DEFAULT_VOICE_FOR_LANGUAGE"] == default_parameters.DEFAULT_VOICE_FOR_LANGUAGE
    assert tables["DEFAULT_VOICE_FALLBACK"] == default_parameters.DEFAULT_VOICE_FALLBACK
    for language in ("english", "dutch_24l"):
        expected = utils.get_predefined_voice(language=language, name="alba")
        assert pocket.builtin_state_url("alba", language) == expected
    for model, config in (("english", None), ("french_24l", None), (None, "c.yaml")):
        source = default_parameters.get_default_voice_for_language(model, config)
        assert pocket.default_voice_source(model, config)[1] == source
