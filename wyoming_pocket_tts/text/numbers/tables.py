"""The shape of one language's reading tables: plain data, filled in by one module per language.

Number words themselves always come from `num2words`; these tables hold what it does not know:
unit and currency names, month names, abbreviations, the words around numbers, and small
regular-expression fixes for its gaps (agreement, a few wrong forms).
"""

from __future__ import annotations

from dataclasses import dataclass, field

Fix = tuple[str, str]
"""A regular expression and its replacement, applied to number words."""


@dataclass(frozen=True)
class Noun:
    """A unit or currency name: singular, plural and grammatical gender ('m', 'f' or 'n')."""

    singular: str
    plural: str
    gender: str = "m"


@dataclass(frozen=True)
class Currency:
    """A currency's main unit and its hundredth."""

    major: Noun
    minor: Noun


@dataclass(frozen=True)
class Abbreviation:
    """An abbreviation and what is said instead.

    `before_digit`: only expanded when a number follows ("No. 5"); `before_name`: only when a
    capitalised word follows ("M. Dupont"); `after_name`: only when a capitalised word that does
    not start the sentence stands before it ("Elm St" -> "Street"); `can_end`: it may close a
    sentence ("etc."), so a following capital keeps its full stop. One written form may have
    several entries: the first whose condition holds is said ("St.": Street, else Saint).
    """

    written: str
    spoken: str
    before_digit: bool = False
    before_name: bool = False
    after_name: bool = False
    can_end: bool = False
    compound: bool = False
    """Also the end of a longer word: German "Hauptstr." -> "Hauptstraße"."""
    feminine: str = ""
    """Said instead before a name the language's endings call feminine: Portuguese "D. Maria"
    -> "Dona", "D. Pedro" -> "Dom"."""


@dataclass(frozen=True)
class Magnitude:
    """A written scale after a number ("k", "Mio.", "mld"): its power of ten and its name."""

    power: int
    noun: Noun
    glued: bool = False
    """Only glued to the number ("8k", "2.3M"), or before a currency ("3,5 M€", "1,8 M de")."""


@dataclass(frozen=True)
class RomanWords:
    """How a Roman numeral after a ruler's name or before a century is said.

    `regnal` is a template with {number} ("the {number}" -> "Henry the Eighth"); rulers up to
    `ordinal_up_to` get the ordinal, the rest the cardinal (Spanish "Carlos tercero" but
    "Alfonso trece", French only "premier"). `regnal_cases`: German "dem {number}n" after a
    dative word. Centuries follow the same rule with `century_ordinal_up_to`."""

    regnal: str = "{number}"
    ordinal_up_to: int = 1000
    capital: bool = False
    regnal_cases: dict[str, str] = field(default_factory=dict)
    regnal_feminine: str = ""
    """After a queen's name, where it differs: German "die {number}"."""
    century_words: frozenset[str] = frozenset()
    century_ordinal_up_to: int = 1000
    cardinal_cues: frozenset[str] = frozenset()
    """Words after which a numeral is a plain cardinal ("World War II", "Part IV")."""


@dataclass(frozen=True)
class TimeWords:
    """How a clock time is said.

    `full` and `on_the_hour` are templates with {hour} (number words agreeing with `hour`),
    {minute} and {hour_unit}; `twelve_hour` says times as 1-12 with `am`/`pm` (English).
    `minute_oh`: the word said before minutes 1-9 ("eight oh five"); `special` names exact
    times ("00:00" -> "midnight"), `special_after` with the words before them.
    """

    full: str
    on_the_hour: str
    hour: Noun
    twelve_hour: bool = False
    am: str = ""
    pm: str = ""
    minute_oh: str = ""
    special: dict[str, str] = field(default_factory=dict)
    special_after: dict[str, dict[str, str]] = field(default_factory=dict)
    """The preposition or article before a special time (lower case) -> what replaces both:
    "a las" -> {"12:00": "al mediodía"}, where "a las mediodía" is wrong."""
    seconds_joiner: str = "and"
    remaining: str = ""
    """A remaining time written like a clock time ("dans 1h10"), where the language says it
    apart from its units: {hours} (counted, with their unit) and {minute} (the number alone),
    French "{hours} {minute}" -> "une heure dix". Empty: "one hour and ten minutes", and half
    an hour as the language's half ("zweieinhalb Stunden", "duas horas e meia")."""


@dataclass(frozen=True)
class Genders:
    """How to find the gender (and, in German, the case) of the noun a number counts.

    The noun is the first word after the number that is not in `before_noun`; its gender comes
    from `nouns` (exceptions) or else from the first of `endings` it ends with, or `default`.
    """

    endings: tuple[tuple[str, str], ...] = ()
    """(ending, gender): the first ending a noun (or its singular) has decides; longest first."""
    nouns: dict[str, str] = field(default_factory=dict)
    """Nouns (lower case, singular) whose gender the endings get wrong or do not name."""
    singular: tuple[tuple[str, str], ...] = ()
    """Plural ending -> singular ending, tried in order to find a plural's entry in `nouns`."""
    default: str | None = "m"
    before_noun: frozenset[str] = frozenset()
    """Words said between a number and its noun: adjectives ("nouvelle", "neue"), "de"."""
    not_nouns: frozenset[str] = frozenset()
    """Words that show no noun follows ("y", "de", "and"): the number stands alone."""
    compounds: bool = False
    """A compound's last part decides its gender ("Küchenfenster" like "Fenster")."""
    capitalised_nouns: bool = False
    """German: only a capitalised word is a noun; lower-case words before it are adjectives."""
    cases: dict[str, str] = field(default_factory=dict)
    """The word before a number -> the case it calls for ("mit" -> "dat", "hast" -> "acc")."""
    labels: frozenset[str] = frozenset()
    """Nouns a number names rather than counts ("zona 1 activada"): no agreement after them.
    A capitalised word in mid-sentence ("el Sensor 1") is taken as such a name too."""


@dataclass(frozen=True)
class Language:
    """Everything needed to read numbers aloud in one language."""

    code: str
    num2words: str
    """The `lang` argument num2words takes."""
    decimal_separator: str
    """The separator this language writes between integer and fraction ('.' or ',')."""
    decimal_word: str
    decimal_as_digits: bool
    """Read the digits after the decimal word one by one ("point three eight") or as a number."""
    minus: str
    plus: str
    range_word: str
    """Said between the ends of a range, "5-10"."""
    ratio_word: str
    """Said for a score or ratio, "2:1"."""
    times_word: str
    """Said for "5*3" or "5 × 3"."""  # noqa: RUF001
    and_word: str
    dot_word: str
    """Said between the parts of a version number or address, "2.13.0"."""
    number_word: str
    """Said for "No." / "#" before a number."""
    units: dict[str, Noun]
    """By symbol ("kWh", "°C", "%"); see context.UNIT_ALIASES for the other spellings accepted."""
    currencies: dict[str, Currency]
    """By symbol or ISO code ("€", "EUR")."""
    money_both: str
    """Template for an amount with cents: {major} (words and unit), {minor} (words and unit),
    {cents} (the cents' words alone)."""
    months: tuple[str, ...]
    date: str
    """Template for a date: {day}, {month}, {year}."""
    date_no_year: str
    day_month: str
    """A day written before a month name ("1 December", "1er décembre"): {day}, {month}."""
    day_ordinal: bool
    """Days are ordinals ("December first"); else cardinals, with `first_day` for the 1st."""
    first_day: str | None
    month_first: bool
    """Numeric dates are month/day/year (US English); else day/month/year."""
    time: TimeWords
    ordinal_suffixes: dict[str, str]
    """Written ordinal endings ("st", "er", "º") -> the gender they mark ('m' or 'f')."""
    feminine_ordinal: tuple[Fix, ...] = ()
    first_ordinals: dict[str, str] = field(default_factory=dict)
    """Ordinal suffix -> the word for 1 with it ("er" -> "premier", "re" -> "première")."""
    second_ordinals: dict[str, str] = field(default_factory=dict)
    """Ordinal suffixes only 2 takes -> the word said (French "2d" -> "second", "2de" ->
    "seconde"); after any other number they are no ordinal ("3d" stays)."""
    gender_fixes: dict[str, tuple[Fix, ...]] = field(default_factory=dict)
    """By gender: fixes turning a cardinal into the form said before a noun ("un" -> "une")."""
    cardinal_fixes: tuple[Fix, ...] = ()
    """Fixes for num2words' gaps in plain cardinals."""
    ordinal_fixes: tuple[Fix, ...] = ()
    genders: Genders = field(default_factory=Genders)
    """How the noun after a number is found and its gender told, for agreement."""
    year_cues: frozenset[str] = frozenset()
    """Words (lower case) after which a four-digit number is a year; empty: years are cardinals."""
    singular_below_two: bool = False
    """French: "1,5 degré" (singular below two); elsewhere only exactly one is singular."""
    fractions: dict[int, Noun] = field(default_factory=dict)
    """Denominator -> special fraction names ("half"); others come from the ordinal."""
    half: dict[str, str] = field(default_factory=dict)
    """ "1/2" before a noun, by the noun's gender (and German case): "media" hora, "einen
    halben" Liter; the key "" is "1/2" alone where it differs from the counted form."""
    half_after: dict[str, str] = field(default_factory=dict)
    """The half said after a whole amount, by gender: "una hora y media", "un kilo y medio"."""
    mixed_half: tuple[str, str] = ("", "")
    """German, Dutch: one and a half as one word, and the template for more: ("eineinhalb",
    "{whole}einhalb"), ("anderhalf", "{whole}enhalf")."""
    fraction_of: str = ""
    """Said between a fraction and the unit it measures: "tres cuartos de kilogramo"."""
    fraction_one: str = ""
    """Dutch: the numerator one of a fraction ("een kwart"), not the numeral "één"."""
    ordinal_apocope: tuple[Fix, ...] = ()
    """Spanish: ordinals shortened before a masculine noun ("primer piso", "tercer piso")."""
    ordinal_sign_cues: frozenset[str] = frozenset()
    """Words before "2°" that make it an ordinal ("il 2° piano"), not degrees (lower case)."""
    mixed_one: str = ""
    """Said instead of "one" in a mixed number ("1 1/2" -> "one and a half")."""
    fraction_rule: str = "ordinal"
    """How other denominators are named: 'ordinal', 'ordinal+s', 'tel' (German), 'o>i' (Italian)."""
    abbreviations: tuple[Abbreviation, ...] = ()
    weekdays: dict[str, str] = field(default_factory=dict)
    """Abbreviated weekdays -> the day's name ("Mo" -> "Montag"): said before a date or time
    and in ranges ("Mo-Fr"), where "Fr." is no "Frau"."""
    text_fixes: tuple[Fix, ...] = ()
    """Fixes applied to rewritten text (Italian "una ora" -> "un'ora")."""
    space_groups: bool = False
    """A plain space may separate thousands ("2 500")."""
    ordinal_dot_cues: dict[str, str] = field(default_factory=dict)
    """German "am 1." ordinals: word before -> ending added to the ordinal ("am" -> "n")."""
    ordinal_dot_default: str = ""
    clock_words: tuple[str, ...] = ()
    """Words after a number that make it a clock time ("14.30 Uhr")."""
    hour_letter: str = ""
    """ "14h30" is a time: 'spaced' also allows "14 h 30" (French), 'glued' only "14h30"."""
    duration_cues: frozenset[str] = frozenset()
    """Words (lower case, one or two) just before "1:25 h", "2h30", "1:25" that make it a
    remaining time, not a clock time ("noch", "termina en", "dans"); a time's own words ("um",
    "a las", "à") are never among them."""
    cycles: dict[str, str] = field(default_factory=dict)
    """French "24h/24", "7j/7": the letter -> the unit said ("heures"), with `cycle_word`."""
    cycle_word: str = ""
    phone_patterns: tuple[str, ...] = ()
    """National numbers written without a leading 0 or +, as regexes ("612 345 678" in Spain)."""
    symbol_words: dict[str, str] = field(default_factory=dict)
    """Signs read as words wherever they stand: "±", "§"."""
    per_word: str = ""
    """Said for the "/" of "€/kWh"."""
    per_count_word: str = ""
    """Said for the "/" of "l/100 km", before a number, where not `per_word` ("aux", "ogni")."""
    per_count_fixes: tuple[Fix, ...] = ()
    """Fixes for that number's words ("one hundred" -> "hundred": "per hundred kilometers")."""
    unit_cues: frozenset[str] = frozenset()
    """Words after which a unit standing alone is said in full ("per kWh", "le kWh")."""
    sign_cues: dict[str, str] = field(default_factory=dict)
    """Words that already say a change's direction -> the sign then left unsaid ("up +3%")."""
    postcode: str = ""
    """A written postcode, as a regex ("[0-9]{5}", Portuguese "[0-9]{4}-[0-9]{3}")."""
    postcode_groups: tuple[int, ...] = ()
    """Digit groups of a postcode read as numbers (French "75|008", Dutch "10|12"); empty: digit
    by digit. A group starting with 0 is read digit by digit; a hyphen also ends a group."""
    postcode_cues: frozenset[str] = frozenset()
    """Words (lower case) just before a postcode ("plz", "zip")."""
    address_words: frozenset[str] = frozenset()
    """Words (lower case) of a street or dwelling near a house number ("straße", "rue", "apt"):
    "17 B" after them is a number and a letter. With compound nouns, endings count too."""
    room_words: frozenset[str] = frozenset()
    """Words (lower case) naming a room, floor or door: "Raum 3.07" after them is no decimal.
    With compound nouns, endings count too ("Besprechungsraum")."""
    sign_cues_after: dict[str, str] = field(default_factory=dict)
    """The same, said after the amount: Spanish "un +3,5 % más" ("más" is said once)."""
    score_cues: frozenset[str] = frozenset()
    """Words before "3-1" that make it a score (lower case)."""
    score: str = "{first} {ratio} {last}"
    """How a score is said."""
    decades: bool = False
    """English "1990s" -> "nineteen nineties"."""
    decade_cues: frozenset[str] = frozenset()
    """Words before "'60" or "80" that make it a decade ("anni", "jaren"), said as a cardinal."""
    decade_suffix: str = ""
    """German "70er", "60ern", "80er-Jahre": the ending said after the decade's cardinal."""
    magnitudes: dict[str, Magnitude] = field(default_factory=dict)
    """ "k", "M", "Mio.", "mld": scales written after a number."""
    magnitude_of: str = ""
    """Said between a scale and the currency it counts: "millions d'euros", "milioni di euro"."""
    by_word: str = ""
    """Said between dimensions: "4 x 5 m" -> "four by five meters"."""
    multiplier: Noun | None = None
    """ "5×", "3x": "five times", "tres veces" (the number agrees with it)."""  # noqa: RUF001
    multiplier_glued: bool = False
    """German "dreimal": the number and the word are one."""
    roman: RomanWords | None = None
    house_pairs: bool = False
    """American house numbers: "2140 Oak St" -> "twenty-one forty"."""
    name_articles: frozenset[str] = frozenset()
    """Articles (lower case) before a capitalised acronym that make it a name ("el PP 137",
    "il PD 69"): the number after it is counted, not a flight code read digit by digit."""
    openers: frozenset[str] = frozenset()
    """German: capitalised words that start a sentence rather than name a noun ("Die",
    "Danach"): after "2 Mio." or "am 14." they show the full stop ended the sentence."""
    product_names: dict[str, str] = field(default_factory=dict)
    """Names with digits said their own way ("Xbox 360" -> "Xbox three sixty")."""
    digits_separator: str = ", "
    pair_phone_groups: bool = False
    """French phone numbers are read in pairs ("zéro six, douze, ...")."""
