"""Italian reading tables."""

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
    code="it",
    num2words="it",
    decimal_separator=",",
    decimal_word="virgola",
    decimal_as_digits=False,
    minus="meno",
    plus="più",
    range_word="a",
    ratio_word="a",
    times_word="per",
    and_word="e",
    dot_word="punto",
    number_word="numero",
    units={
        "°C": Noun("grado Celsius", "gradi Celsius"),
        "°F": Noun("grado Fahrenheit", "gradi Fahrenheit"),
        "°": Noun("grado", "gradi"),
        "%": Noun("per cento", "per cento"),
        "‰": Noun("per mille", "per mille"),
        "mg": Noun("milligrammo", "milligrammi"),
        "µg": Noun("microgrammo", "microgrammi"),
        "kWp": Noun("chilowatt di picco", "chilowatt di picco"),
        "Bft": Noun("Beaufort", "Beaufort"),
        "cucch.": Noun("cucchiaio", "cucchiai"),
        "cucchiaini": Noun("cucchiaino", "cucchiaini"),
        "W": Noun("watt", "watt"),
        "kW": Noun("kilowatt", "kilowatt"),
        "MW": Noun("megawatt", "megawatt"),
        "Wh": Noun("wattora", "wattora"),
        "kWh": Noun("chilowattora", "chilowattora"),
        "MWh": Noun("megawattora", "megawattora"),
        "V": Noun("volt", "volt"),
        "mV": Noun("millivolt", "millivolt"),
        "A": Noun("ampere", "ampere"),
        "mA": Noun("milliampere", "milliampere"),
        "VA": Noun("voltampere", "voltampere"),
        "Hz": Noun("hertz", "hertz"),
        "kHz": Noun("kilohertz", "kilohertz"),
        "MHz": Noun("megahertz", "megahertz"),
        "GHz": Noun("gigahertz", "gigahertz"),
        "km/h": Noun("chilometro orario", "chilometri orari"),
        "m/s": Noun("metro al secondo", "metri al secondo"),
        "mph": Noun("miglio orario", "miglia orarie"),
        "km": Noun("chilometro", "chilometri"),
        "m": Noun("metro", "metri"),
        "cm": Noun("centimetro", "centimetri"),
        "mm": Noun("millimetro", "millimetri"),
        "mm/h": Noun("millimetro all'ora", "millimetri all'ora"),
        "m²": Noun("metro quadrato", "metri quadrati"),
        "m³": Noun("metro cubo", "metri cubi"),
        "m³/h": Noun("metro cubo all'ora", "metri cubi all'ora"),
        "W/m²": Noun("watt al metro quadrato", "watt al metro quadrato"),
        "kg": Noun("chilogrammo", "chilogrammi"),
        "g": Noun("grammo", "grammi"),
        "l": Noun("litro", "litri"),
        "ml": Noun("millilitro", "millilitri"),
        "l/min": Noun("litro al minuto", "litri al minuto"),
        "hPa": Noun("ettopascal", "ettopascal"),
        "kPa": Noun("kilopascal", "kilopascal"),
        "Pa": Noun("pascal", "pascal"),
        "mbar": Noun("millibar", "millibar"),
        "bar": Noun("bar", "bar"),
        "ppm": Noun("parte per milione", "parti per milione", F),
        "ppb": Noun("parte per miliardo", "parti per miliardo", F),
        "µg/m³": Noun("microgrammo per metro cubo", "microgrammi per metro cubo"),
        "dB": Noun("decibel", "decibel"),
        "dBm": Noun("decibel milliwatt", "decibel milliwatt"),
        "lx": Noun("lux", "lux"),
        "lm": Noun("lumen", "lumen"),
        "h": Noun("ora", "ore", F),
        "min": Noun("minuto", "minuti"),
        "s": Noun("secondo", "secondi"),
        "ms": Noun("millisecondo", "millisecondi"),
        "kB": Noun("kilobyte", "kilobyte"),
        "MB": Noun("megabyte", "megabyte"),
        "GB": Noun("gigabyte", "gigabyte"),
        "TB": Noun("terabyte", "terabyte"),
        "Mbit/s": Noun("megabit al secondo", "megabit al secondo"),
        "Gbit/s": Noun("gigabit al secondo", "gigabit al secondo"),
    },
    currencies={
        "€": Currency(Noun("euro", "euro"), Noun("centesimo", "centesimi")),
        "$": Currency(Noun("dollaro", "dollari"), Noun("centesimo", "centesimi")),
        "£": Currency(Noun("sterlina", "sterline", F), Noun("penny", "pence")),
        "¥": Currency(Noun("yen", "yen"), Noun("sen", "sen")),
        "CHF": Currency(
            Noun("franco svizzero", "franchi svizzeri"), Noun("centesimo", "centesimi")
        ),
    },
    money_both="{major} e {cents}",
    months=(
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ),
    date="{day} {month} {year}",
    date_no_year="{day} {month}",
    day_month="{day} {month}",
    day_ordinal=False,
    first_day="primo",
    month_first=False,
    time=TimeWords(
        full="{hour} e {minute}",
        on_the_hour="{hour}",
        hour=Noun("ora", "ore", F),
        special={"00:00": "mezzanotte", "12:00": "mezzogiorno"},
        special_after={
            "alle": {"12:00": "a mezzogiorno", "00:00": "a mezzanotte"},
            "dalle": {"12:00": "da mezzogiorno", "00:00": "da mezzanotte"},
            "delle": {"12:00": "di mezzogiorno", "00:00": "di mezzanotte"},
            "sulle": {"12:00": "verso mezzogiorno", "00:00": "verso mezzanotte"},
            "le": {"12:00": "mezzogiorno", "00:00": "mezzanotte"},
        },
        seconds_joiner="e",
    ),
    ordinal_suffixes={"º": "m", "ª": "f"},
    feminine_ordinal=((r"o\b", "a"),),
    gender_fixes={"m": ((r"^uno$", "un"),), F: ((r"^uno$", "una"),)},
    cardinal_fixes=((r"(?<=\w)tre\b", "tré"),),  # num2words' years: "duemilaventitre"
    genders=Genders(
        labels=frozenset(
            _words(
                "zona stanza piano binario canale linea livello fase sala porta finestra luce "
                "lampada sensore camera bagno presa tapparella gruppo scena numero"
            )
        ),
        endings=(
            *((ending, F) for ending in ("zione", "zioni", "sione", "sioni", "ione", "tà", "tù")),
            *((ending, F) for ending in ("ice", "ie", "a")),
            *((ending, "m") for ending in ("one", "ore", "ori", "ale", "ile", "ante", "ente")),
            *((ending, "m") for ending in ("ese", "ume", "o", "i")),
            ("e", F),
        ),
        nouns={
            **dict.fromkeys(
                _words(
                    "mano foto moto auto radio tv email mail app notte luce chiave parte gente "
                    "mente sete neve carne classe frase base fonte rete torre nave voce pelle "
                    "ora ore persona zona icona poltrona"
                ),
                F,
            ),
            **dict.fromkeys(
                _words(
                    "problema sistema programma tema clima cinema pigiama papa poeta pianeta "
                    "schema telegramma diagramma dramma allarme mese nome fiume pane cane sole "
                    "fiore padre mare latte ponte dente caffè tè piede cuore bicchiere milione"
                ),
                "m",
            ),
        },
        singular=(
            ("che", "ca"),
            ("ghe", "ga"),
            ("ie", "ia"),
            ("ai", "aio"),
            ("e", "a"),
            ("i", "o"),
            ("i", "e"),
        ),
        before_noun=frozenset(
            _words(
                "nuovo nuova nuovi nuove grande grandi piccolo piccola piccoli piccole solo sola "
                "unico unica buon buona altro altra altri altre ultimo ultima prossimo prossima "
                "bel bella vecchio vecchia"
            )
        ),
        not_nouns=frozenset(
            _words(
                "e o di del della dei delle a al alla alle ai in nel nella con per da dal dalla "
                "su sul sulla tra fra che più meno è sono ci il lo la i gli le un una si mi ti "
                "non già anche ogni ma come quando se oggi domani ieri adesso qui lì fuori dentro"
            )
        ),
    ),
    half={"m": "mezzo", F: "mezza"},
    half_after={"m": "mezzo", F: "mezza"},
    fraction_of="di",
    ordinal_sign_cues=frozenset(
        _words("il lo la l al allo alla del dello della nel nello nella sul dal")
    ),
    fractions={2: Noun("mezzo", "mezzi")},
    fraction_rule="o>i",
    text_fixes=(
        # "un'ora", "un'email", but "una e cinque", "una alla volta"
        (
            r"\buna (?=[aeiouàèéìòù])(?!(?:a|ad|al|all[aeo]?|agli|ai|e|ed|o|od|in|entro|oltre"
            r"|ogni|ancora|anche|è|ha|ho|era|erano)\b)",
            "un'",
        ),
        (r"\bun (?=s[^aeiouàèéìòù\s]|z|gn|ps|x)", "uno "),  # "uno studio", "uno zaino"
        (r"\b([mM])ezza ora\b", r"\1ezz'ora"),
        (r"\bal (?=[aeiouàèéìòù])", "all'"),  # "2 €/h": "due euro all'ora"
    ),
    symbol_words={
        "±": "più o meno",
        "§": "paragrafo",
        "≈": "circa",
        "~": "circa",
        "≥": "almeno",
        "≤": "al massimo",
        ">": "più di",
        "<": "meno di",
        "≠": "diverso da",
    },
    per_word="al",
    per_count_word="ogni",
    unit_cues=frozenset(["al", "per", "il", "ogni"]),
    sign_cues={
        "aumento": "+",
        "aumentato": "+",
        "salito": "+",
        "cresciuto": "+",
        "di": "+",
        "calo": "-",
        "diminuito": "-",
        "sceso": "-",
    },
    sign_cues_after={"in più": "+", "di più": "+", "in meno": "-", "di meno": "-"},
    score_cues=frozenset(
        ["risultato", "punteggio", "vinto", "perso", "vince", "perde", "vittoria", "sconfitta"]
    ),
    phone_patterns=(r"3[0-9]{2}[ .][0-9]{3}[ .][0-9]{3,4}",),
    postcode=r"[0-9]{5}",
    postcode_cues=frozenset(["cap"]),
    address_words=frozenset(
        _words("via viale piazza corso vicolo largo strada interno scala piano civico")
    ),
    room_words=frozenset(_words("stanza aula sala ufficio camera porta piano edificio")),
    abbreviations=(
        A("q.b.", "quanto basta"),
        A("V.le", "Viale"),
        A("P.za", "Piazza"),
        A("P.zza", "Piazza"),
        A("C.so", "Corso"),
        A("int.", "interno"),
        A("Int.", "Interno"),
        A("sc.", "scala"),
        A("Sc.", "Scala"),
        A("civ.", "civico"),
        A("Sig.", "Signor", before_name=True),
        A("Sig.ra", "Signora", before_name=True),
        A("Sig.na", "Signorina", before_name=True),
        A("Dott.", "Dottor", before_name=True),
        A("Dott.ssa", "Dottoressa", before_name=True),
        A("Dr.", "Dottor", before_name=True),
        A("Prof.", "Professor", before_name=True),
        A("Prof.ssa", "Professoressa", before_name=True),
        A("ecc.", "eccetera", can_end=True),
        A("etc.", "eccetera", can_end=True),
        A("es.", "esempio"),
        A("p.es.", "per esempio"),
        A("ca.", "circa"),
        A("n.", "numero", before_digit=True),
        A("N.", "numero", before_digit=True),
        A("pag.", "pagina", before_digit=True),
        A("tel.", "telefono"),
        A("max.", "massimo", before_digit=True),
        A("min.", "minimo", before_digit=True),
    ),
    magnitudes={
        "k": Magnitude(3, Noun("mila", "mila"), glued=True),
        "M": Magnitude(6, Noun("milione", "milioni"), glued=True),
        **dict.fromkeys(("mln", "mln.", "Mln", "Mln."), Magnitude(6, Noun("milione", "milioni"))),
        **dict.fromkeys(("mld", "mld.", "Mld", "Mld."), Magnitude(9, Noun("miliardo", "miliardi"))),
    },
    magnitude_of="di",
    duration_cues=frozenset(
        [*_words("tra fra in dura durata durerà ancora manca mancano"), "più di", "meno di"]
    ),
    name_articles=frozenset(_words("il lo la i gli le del dello della dei degli al allo alla ai")),
    by_word="per",
    multiplier=Noun("volta", "volte", F),
    decade_cues=frozenset(["anni"]),
    roman=RomanWords(
        century_words=frozenset(["secolo", "secoli", "sec"]),
        cardinal_cues=frozenset(_words("capitolo tomo parte atto volume fase stagione")),
    ),
)
