"""French reading tables."""

from .tables import (
    Abbreviation,
    Currency,
    Genders,
    Language,
    Magnitude,
    Noun,
    RomanWords,
    TimeWords,
)

A = Abbreviation


def _words(text: str) -> list[str]:
    return text.split()


F = "f"

LANGUAGE = Language(
    code="fr",
    num2words="fr",
    decimal_separator=",",
    decimal_word="virgule",
    decimal_as_digits=False,
    minus="moins",
    plus="plus",
    range_word="à",
    ratio_word="à",
    times_word="fois",
    and_word="et",
    dot_word="point",
    number_word="numéro",
    units={
        "°C": Noun("degré Celsius", "degrés Celsius"),
        "°F": Noun("degré Fahrenheit", "degrés Fahrenheit"),
        "°": Noun("degré", "degrés"),
        "%": Noun("pour cent", "pour cent"),
        "‰": Noun("pour mille", "pour mille"),
        "mg": Noun("milligramme", "milligrammes"),
        "µg": Noun("microgramme", "microgrammes"),
        "kWc": Noun("kilowatt-crête", "kilowatts-crête"),
        "kWp": Noun("kilowatt-crête", "kilowatts-crête"),
        "Bft": Noun("Beaufort", "Beaufort"),
        "c. à c.": Noun("cuillère à café", "cuillères à café", F),
        "c. à s.": Noun("cuillère à soupe", "cuillères à soupe", F),
        "càc": Noun("cuillère à café", "cuillères à café", F),
        "càs": Noun("cuillère à soupe", "cuillères à soupe", F),
        "W": Noun("watt", "watts"),
        "kW": Noun("kilowatt", "kilowatts"),
        "MW": Noun("mégawatt", "mégawatts"),
        "Wh": Noun("wattheure", "wattheures"),
        "kWh": Noun("kilowattheure", "kilowattheures"),
        "MWh": Noun("mégawattheure", "mégawattheures"),
        "V": Noun("volt", "volts"),
        "mV": Noun("millivolt", "millivolts"),
        "A": Noun("ampère", "ampères"),
        "mA": Noun("milliampère", "milliampères"),
        "VA": Noun("voltampère", "voltampères"),
        "Hz": Noun("hertz", "hertz"),
        "kHz": Noun("kilohertz", "kilohertz"),
        "MHz": Noun("mégahertz", "mégahertz"),
        "GHz": Noun("gigahertz", "gigahertz"),
        "km/h": Noun("kilomètre par heure", "kilomètres par heure"),
        "m/s": Noun("mètre par seconde", "mètres par seconde"),
        "mph": Noun("mile par heure", "miles par heure"),
        "km": Noun("kilomètre", "kilomètres"),
        "m": Noun("mètre", "mètres"),
        "cm": Noun("centimètre", "centimètres"),
        "mm": Noun("millimètre", "millimètres"),
        "mm/h": Noun("millimètre par heure", "millimètres par heure"),
        "m²": Noun("mètre carré", "mètres carrés"),
        "m³": Noun("mètre cube", "mètres cubes"),
        "m³/h": Noun("mètre cube par heure", "mètres cubes par heure"),
        "W/m²": Noun("watt par mètre carré", "watts par mètre carré"),
        "kg": Noun("kilogramme", "kilogrammes"),
        "g": Noun("gramme", "grammes"),
        "l": Noun("litre", "litres"),
        "ml": Noun("millilitre", "millilitres"),
        "l/min": Noun("litre par minute", "litres par minute"),
        "hPa": Noun("hectopascal", "hectopascals"),
        "kPa": Noun("kilopascal", "kilopascals"),
        "Pa": Noun("pascal", "pascals"),
        "mbar": Noun("millibar", "millibars"),
        "bar": Noun("bar", "bars"),
        "ppm": Noun("partie par million", "parties par million", F),
        "ppb": Noun("partie par milliard", "parties par milliard", F),
        "µg/m³": Noun("microgramme par mètre cube", "microgrammes par mètre cube"),
        "dB": Noun("décibel", "décibels"),
        "dBm": Noun("décibel-milliwatt", "décibels-milliwatts"),
        "lx": Noun("lux", "lux"),
        "lm": Noun("lumen", "lumens"),
        "h": Noun("heure", "heures", F),
        "min": Noun("minute", "minutes", F),
        "s": Noun("seconde", "secondes", F),
        "ms": Noun("milliseconde", "millisecondes", F),
        "ko": Noun("kilooctet", "kilooctets"),
        "Mo": Noun("mégaoctet", "mégaoctets"),
        "Go": Noun("gigaoctet", "gigaoctets"),
        "To": Noun("téraoctet", "téraoctets"),
        "kB": Noun("kilooctet", "kilooctets"),
        "MB": Noun("mégaoctet", "mégaoctets"),
        "GB": Noun("gigaoctet", "gigaoctets"),
        "TB": Noun("téraoctet", "téraoctets"),
        "Mbit/s": Noun("mégabit par seconde", "mégabits par seconde"),
        "Gbit/s": Noun("gigabit par seconde", "gigabits par seconde"),
    },
    currencies={
        "€": Currency(Noun("euro", "euros"), Noun("centime", "centimes")),
        "$": Currency(Noun("dollar", "dollars"), Noun("cent", "cents")),
        "£": Currency(Noun("livre", "livres", F), Noun("penny", "pence")),
        "¥": Currency(Noun("yen", "yens"), Noun("sen", "sens")),
        "CHF": Currency(Noun("franc suisse", "francs suisses"), Noun("centime", "centimes")),
    },
    money_both="{major} {cents}",
    months=(
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ),
    date="{day} {month} {year}",
    date_no_year="{day} {month}",
    day_month="{day} {month}",
    day_ordinal=False,
    first_day="premier",
    month_first=False,
    time=TimeWords(
        full="{hour} {hour_unit} {minute}",
        on_the_hour="{hour} {hour_unit}",
        hour=Noun("heure", "heures", F),
        special={"00:00": "minuit", "12:00": "midi"},
        seconds_joiner="et",
        remaining="{hours} {minute}",
    ),
    ordinal_suffixes={
        "er": "m",
        "re": "f",
        "ère": "f",
        "ème": "m",
        "e": "m",
        "è": "m",
        "ᵉ": "m",
        "ᵉʳ": "m",
        "ʳᵉ": "f",
    },
    first_ordinals={
        "er": "premier",
        "ᵉʳ": "premier",
        "re": "première",
        "ʳᵉ": "première",
        "ère": "première",
    },
    second_ordinals={"d": "second", "nd": "second", "de": "seconde", "nde": "seconde"},
    feminine_ordinal=((r"premier$", "première"),),
    gender_fixes={F: ((r"\bun$", "une"),)},
    genders=Genders(
        labels=frozenset(
            _words(
                "zone salle étage voie quai ligne canal niveau phase porte fenêtre lampe "
                "lumière capteur chambre pièce prise volet groupe scène numéro"
            )
        ),
        endings=(
            *((ending, F) for ending in ("tion", "sion", "té", "ette", "ence", "ance", "ure")),
            *((ending, F) for ending in ("ade", "ude", "ie", "elle", "esse", "ine", "ise")),
            *(("teur", "m"), ("eur", F), ("ée", F), ("ière", F), ("ique", F)),
        ),
        nouns={
            **dict.fromkeys(
                _words(
                    "alarme alerte lampe fenêtre porte prise ampoule minute heure seconde "
                    "semaine personne pièce chambre place étape tasse salle zone pompe caméra "
                    "vanne enceinte chose fois nuit douche baignoire cave terrasse bouteille "
                    "boîte lettre tâche note liste carte plante pile page image plage langue "
                    "fin main faim eau peau mer souris part dent forêt clé télé photo radio moto "
                    "vidéo météo auto livre date commande consigne valeur fête"
                ),
                F,
            ),
            **dict.fromkeys(
                _words(
                    "musée lycée trophée silence incendie parapluie génie magazine squelette "
                    "domaine bonheur malheur honneur chauffe-eau été côté comité pâté traité "
                    "millier million milliard"
                ),
                "m",
            ),
        },
        singular=(("aux", "al"), ("eaux", "eau"), ("s", ""), ("x", "")),
        before_noun=frozenset(
            _words(
                "nouveau nouvel nouvelle nouveaux nouvelles grand grande grands grandes petit "
                "petite petits petites seul seule seuls seules autre autres dernier dernière "
                "derniers dernières prochain prochaine bon bonne bons bonnes vieux vieil vieille "
                "gros grosse beau bel belle mauvais mauvaise jeune même"
            )
        ),
        not_nouns=frozenset(
            _words(
                "et ou ni de du des à au aux en dans avec par pour sur sous entre chez que qui "
                "plus moins est sont il elle on le la les un une se me te ne pas déjà aussi "
                "chaque mais comme quand si demain hier maintenant ici là dehors dedans"
            )
        ),
    ),
    singular_below_two=True,
    half={"m": "un demi", F: "une demi"},
    half_after={"m": "demi", F: "demie"},
    fraction_of="de",
    fractions={
        2: Noun("demi", "demis"),
        3: Noun("tiers", "tiers"),
        4: Noun("quart", "quarts"),
    },
    fraction_rule="ordinal+s",
    space_groups=True,
    hour_letter="spaced",
    duration_cues=frozenset(
        [
            *_words("dans pendant durant en encore reste restent dure durera durée"),
            "plus de",
            "moins de",
        ]
    ),
    cycles={"h": "heures", "j": "jours"},
    cycle_word="sur",
    pair_phone_groups=True,
    symbol_words={
        "±": "plus ou moins",
        "§": "paragraphe",
        "≈": "environ",
        "~": "environ",
        "≥": "au moins",
        "≤": "au plus",
        ">": "plus de",
        "<": "moins de",
        "≠": "différent de",
    },
    per_word="par",
    per_count_word="aux",
    unit_cues=frozenset(["par", "le", "la", "du", "chaque"]),
    sign_cues={
        "hausse": "+",
        "augmenté": "+",
        "monté": "+",
        "gagné": "+",
        "de": "+",
        "baisse": "-",
        "baissé": "-",
        "perdu": "-",
        "descendu": "-",
    },
    sign_cues_after={"de plus": "+", "en plus": "+", "de moins": "-", "en moins": "-"},
    score_cues=frozenset(["score", "gagné", "perdu", "victoire", "défaite", "battu", "mène"]),
    text_fixes=(
        (r"\b([dD])e (?=une?\b)", r"\1'"),  # "pause d'une heure", not "de une"
        (r"\b([qQ])ue (?=une?\b)", r"\1u'"),
        (r"\b(millions?|milliards?) de (?=[aeiouéèêh])", r"\1 d'"),  # "millions d'euros"
    ),
    postcode=r"[0-9]{5}",
    postcode_groups=(2, 3),
    postcode_cues=frozenset(["cp", "postal"]),
    address_words=frozenset(
        _words(
            "rue avenue boulevard chemin place allée impasse quai route cours appartement "
            "appt bâtiment bât porte étage escalier"
        )
    ),
    room_words=frozenset(_words("salle bureau chambre pièce porte étage bâtiment local")),
    abbreviations=(
        A("appt", "appartement"),
        A("appt.", "appartement"),
        A("app.", "appartement"),
        A("Av.", "Avenue", before_name=True),
        A("Bd", "Boulevard", before_name=True),
        A("bât.", "bâtiment"),
        A("Bât.", "Bâtiment"),
        A("ét.", "étage", can_end=True),
        A("esc.", "escalier", can_end=True),
        A("pte", "porte", before_digit=True),
        A("M.", "Monsieur", before_name=True),
        A("MM.", "Messieurs", before_name=True),
        A("Mme", "Madame", before_name=True),
        A("Mmes", "Mesdames", before_name=True),
        A("Mlle", "Mademoiselle", before_name=True),
        A("Dr", "Docteur", before_name=True),
        A("Dr.", "Docteur", before_name=True),
        A("Pr", "Professeur", before_name=True),
        A("St", "Saint", before_name=True),
        A("Ste", "Sainte", before_name=True),
        A("env.", "environ"),
        A("p. ex.", "par exemple"),
        A("p.ex.", "par exemple"),
        A("c.-à-d.", "c'est-à-dire"),
        A("c-à-d", "c'est-à-dire"),
        A("etc.", "et cetera", can_end=True),
        A("cf.", "voir"),
        A("av.", "avenue", before_name=True),
        A("bd", "boulevard", before_name=True),
        A("n°", "numéro", before_digit=True),
        A("N°", "numéro", before_digit=True),
        A("no", "numéro", before_digit=True),
        A("tél.", "téléphone"),
        A("max.", "maximum", before_digit=True),
        A("min.", "minimum", before_digit=True),
        A("ca.", "environ", before_digit=True),
    ),
    magnitudes={
        "k": Magnitude(3, Noun("mille", "mille"), glued=True),
        "M": Magnitude(6, Noun("million", "millions"), glued=True),
        "Md": Magnitude(9, Noun("milliard", "milliards"), glued=True),
        "Mds": Magnitude(9, Noun("milliard", "milliards"), glued=True),
        "Mrd": Magnitude(9, Noun("milliard", "milliards"), glued=True),
        **dict.fromkeys(("mio", "mio."), Magnitude(6, Noun("million", "millions"))),  # Swiss
        **dict.fromkeys(("mrd", "mrd."), Magnitude(9, Noun("milliard", "milliards"))),
    },
    magnitude_of="de",
    name_articles=frozenset(_words("le la les du des au aux")),
    by_word="sur",
    multiplier=Noun("fois", "fois", F),
    decade_cues=frozenset(["années"]),
    roman=RomanWords(
        ordinal_up_to=1,
        century_words=frozenset(["siècle", "siècles"]),
        cardinal_cues=frozenset(_words("chapitre tome partie acte volume phase saison")),
    ),
)
