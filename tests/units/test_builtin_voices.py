"""pocket-tts's built-in voices as the project keeps them (`voices.builtin`), without pocket-tts.

The hub is unreachable here: the URLs are checked against the installed pocket-tts's own table
and rule, not downloaded.
"""

from __future__ import annotations

import pytest

from wyoming_pocket_tts.pocket import builtin_voice_origins
from wyoming_pocket_tts.voices import builtin


def test_the_built_in_voices_are_pocket_tts_s() -> None:
    """The table and the saved states' URLs, as the installed pocket-tts has them."""
    utils = pytest.importorskip("pocket_tts.utils.utils")
    origins = utils._ORIGINS_OF_PREDEFINED_VOICES
    assert origins == builtin_voice_origins()
    for language in ("english", "french_24l", "german"):
        for name in ("alba", "estelle", "juergen"):
            state = utils.get_predefined_voice(language=language, name=name)
            assert builtin.state_url(name, language) == state
            assert builtin.builtin_source(name, language) == state
            assert builtin.builtin_source(name, None) == origins[name]


def test_an_unknown_name_lists_the_built_in_voices() -> None:
    with pytest.raises(
        ValueError, match=r"'nobody' is not a pocket-tts built-in voice \(built-in: alba, "
    ):
        builtin.builtin_source("nobody", "english")
    with pytest.raises(ValueError, match="not a pocket-tts built-in voice"):
        builtin.builtin_source("nobody", None)
