"""The agreement rules, each pinned on small made-up tables (the corpus checks real languages).

These are the fast tests `script/mutate agreement` pairs with the module, beside
tests/units/test_numbers_corpus.py.
"""

from __future__ import annotations

from wyoming_pocket_tts.text.numbers.agreement import Agreement
from wyoming_pocket_tts.text.numbers.tables import Genders


def test_a_plural_is_made_singular_only_when_a_stem_of_two_letters_is_left() -> None:
    agreement = Agreement(Genders(nouns={"ab": "f", "x": "f"}, singular=(("s", ""),)))
    assert agreement.noun_gender("abs") == "f"  # "ab" + plural "s"
    assert agreement.noun_gender("xs") == "m"  # a one-letter stem is no noun: the default


def test_a_compound_takes_the_gender_of_a_last_part_of_three_letters_or_more() -> None:
    agreement = Agreement(Genders(nouns={"fenster": "n", "er": "f"}, compounds=True))
    assert agreement.noun_gender("Küchenfenster") == "n"
    assert agreement.noun_gender("Hammer") == "m"  # "er" is too short to be its last part


def test_german_skips_listed_lower_case_words_and_stops_at_others() -> None:
    agreement = Agreement(
        Genders(nouns={"fenster": "n"}, capitalised_nouns=True, before_noun=frozenset({"zu"}))
    )
    assert agreement.counted_gender(" zu Fenster") == "n"
    assert agreement.counted_gender(" so Fenster") is None  # a lower-case word, not listed
    assert agreement.counted_gender(" kleine Fenster") == "n"  # an adjective's ending


def test_a_capitalised_word_in_mid_sentence_names_the_number_but_not_in_german() -> None:
    spanish = Agreement(Genders())
    assert spanish.names("enciende el Sensor ")
    assert not spanish.names("Listo. Sensor ")  # a sentence's first word is just capitalised
    assert not spanish.names("enciende el sensor ")
    german = Agreement(Genders(capitalised_nouns=True))
    assert not german.names("mit dem Sensor ")  # every German noun is capitalised
