"""German reading tables."""

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


F, N = "f", "n"

LANGUAGE = Language(
    code="de",
    num2words="de",
    decimal_separator=",",
    decimal_word="Komma",
    decimal_as_digits=True,
    minus="minus",
    plus="plus",
    range_word="bis",
    ratio_word="zu",
    times_word="mal",
    and_word="und",
    dot_word="Punkt",
    number_word="Nummer",
    units={
        "°C": Noun("Grad Celsius", "Grad Celsius", N),
        "°F": Noun("Grad Fahrenheit", "Grad Fahrenheit", N),
        "°": Noun("Grad", "Grad", N),
        "%": Noun("Prozent", "Prozent", N),
        "‰": Noun("Promille", "Promille", N),
        "mg": Noun("Milligramm", "Milligramm", N),
        "µg": Noun("Mikrogramm", "Mikrogramm", N),
        "kWp": Noun("Kilowatt Peak", "Kilowatt Peak", N),
        "Bft": Noun("Beaufort", "Beaufort", N),
        "EL": Noun("Esslöffel", "Esslöffel"),
        "TL": Noun("Teelöffel", "Teelöffel"),
        "W": Noun("Watt", "Watt", N),
        "kW": Noun("Kilowatt", "Kilowatt", N),
        "MW": Noun("Megawatt", "Megawatt", N),
        "Wh": Noun("Wattstunde", "Wattstunden", F),
        "kWh": Noun("Kilowattstunde", "Kilowattstunden", F),
        "MWh": Noun("Megawattstunde", "Megawattstunden", F),
        "V": Noun("Volt", "Volt", N),
        "mV": Noun("Millivolt", "Millivolt", N),
        "A": Noun("Ampere", "Ampere", N),
        "mA": Noun("Milliampere", "Milliampere", N),
        "VA": Noun("Voltampere", "Voltampere", N),
        "Hz": Noun("Hertz", "Hertz", N),
        "kHz": Noun("Kilohertz", "Kilohertz", N),
        "MHz": Noun("Megahertz", "Megahertz", N),
        "GHz": Noun("Gigahertz", "Gigahertz", N),
        "km/h": Noun("Kilometer pro Stunde", "Kilometer pro Stunde"),
        "m/s": Noun("Meter pro Sekunde", "Meter pro Sekunde"),
        "mph": Noun("Meile pro Stunde", "Meilen pro Stunde", F),
        "km": Noun("Kilometer", "Kilometer"),
        "m": Noun("Meter", "Meter"),
        "cm": Noun("Zentimeter", "Zentimeter"),
        "mm": Noun("Millimeter", "Millimeter"),
        "mm/h": Noun("Millimeter pro Stunde", "Millimeter pro Stunde"),
        "m²": Noun("Quadratmeter", "Quadratmeter"),
        "m³": Noun("Kubikmeter", "Kubikmeter"),
        "m³/h": Noun("Kubikmeter pro Stunde", "Kubikmeter pro Stunde"),
        "W/m²": Noun("Watt pro Quadratmeter", "Watt pro Quadratmeter", N),
        "kg": Noun("Kilogramm", "Kilogramm", N),
        "g": Noun("Gramm", "Gramm", N),
        "l": Noun("Liter", "Liter"),
        "ml": Noun("Milliliter", "Milliliter"),
        "l/min": Noun("Liter pro Minute", "Liter pro Minute"),
        "hPa": Noun("Hektopascal", "Hektopascal", N),
        "kPa": Noun("Kilopascal", "Kilopascal", N),
        "Pa": Noun("Pascal", "Pascal", N),
        "mbar": Noun("Millibar", "Millibar", N),
        "bar": Noun("Bar", "Bar", N),
        "ppm": Noun("ppm", "ppm", N),
        "ppb": Noun("ppb", "ppb", N),
        "µg/m³": Noun("Mikrogramm pro Kubikmeter", "Mikrogramm pro Kubikmeter", N),
        "dB": Noun("Dezibel", "Dezibel", N),
        "dBm": Noun("Dezibel-Milliwatt", "Dezibel-Milliwatt", N),
        "lx": Noun("Lux", "Lux", N),
        "lm": Noun("Lumen", "Lumen", N),
        "h": Noun("Stunde", "Stunden", F),
        "Std.": Noun("Stunde", "Stunden", F),
        "min": Noun("Minute", "Minuten", F),
        "Min.": Noun("Minute", "Minuten", F),
        "s": Noun("Sekunde", "Sekunden", F),
        "Sek.": Noun("Sekunde", "Sekunden", F),
        "ms": Noun("Millisekunde", "Millisekunden", F),
        "kB": Noun("Kilobyte", "Kilobyte", N),
        "MB": Noun("Megabyte", "Megabyte", N),
        "GB": Noun("Gigabyte", "Gigabyte", N),
        "TB": Noun("Terabyte", "Terabyte", N),
        "Mbit/s": Noun("Megabit pro Sekunde", "Megabit pro Sekunde", N),
        "Gbit/s": Noun("Gigabit pro Sekunde", "Gigabit pro Sekunde", N),
    },
    currencies={
        "€": Currency(Noun("Euro", "Euro"), Noun("Cent", "Cent")),
        "$": Currency(Noun("Dollar", "Dollar"), Noun("Cent", "Cent")),
        "£": Currency(Noun("Pfund", "Pfund", N), Noun("Penny", "Pence")),
        "¥": Currency(Noun("Yen", "Yen"), Noun("Sen", "Sen")),
        "CHF": Currency(Noun("Franken", "Franken"), Noun("Rappen", "Rappen")),
    },
    money_both="{major} {cents}",
    months=(
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ),
    date="{day} {month} {year}",
    date_no_year="{day} {month}",
    day_month="{day} {month}",
    day_ordinal=True,
    first_day=None,
    month_first=False,
    time=TimeWords(
        full="{hour} Uhr {minute}",
        on_the_hour="{hour} Uhr",
        hour=Noun("Uhr", "Uhr", N),
        seconds_joiner="und",
    ),
    ordinal_suffixes={},
    gender_fixes={
        "m": ((r"^eins$", "ein"),),
        "m.acc": ((r"^eins$", "einen"),),
        "m.dat": ((r"^eins$", "einem"),),
        N: ((r"^eins$", "ein"),),
        "n.dat": ((r"^eins$", "einem"),),
        F: ((r"^eins$", "eine"),),
        "f.dat": ((r"^eins$", "einer"),),
    },
    genders=Genders(
        endings=(
            *((ending, F) for ending in ("ung", "heit", "keit", "schaft", "ion", "tät", "ik")),
            *((ending, F) for ending in ("ei", "ie", "ur", "enz", "anz", "e")),
            *((ending, N) for ending in ("chen", "lein", "ment", "um", "nis", "o")),
            *((ending, "m") for ending in ("ling", "ismus", "or", "er", "en")),
        ),
        nouns={
            **dict.fromkeys(
                _words(
                    "nachricht zeit uhr tür nacht fahrt welt stadt hand wand schicht sicht "
                    "kraft luft last post mail app person sms frau antwort"
                ),
                F,
            ),
            **dict.fromkeys(
                _words(
                    "fenster licht jahr zimmer haus gerät paket glas wasser kilo grad prozent "
                    "stück mal auto tor bad bett buch ei spiel ziel system programm telefon "
                    "handy update signal ventil fach feld geschoss stockwerk dach tablet pfund "
                    "problem konto ticket video foto radio büro kabel thema"
                ),
                N,
            ),
            **dict.fromkeys(
                _words(
                    "tag monat termin alarm anruf raum kaffee käse name kunde junge gedanke "
                    "platz stock zug bus flug gast schritt punkt satz eintrag kontakt akku film "
                    "song euro cent moment sensor"
                ),
                "m",
            ),
        },
        compounds=True,
        capitalised_nouns=True,
        not_nouns=frozenset(
            _words(
                "oder aber über unter wieder immer oben unten innen außen morgen gestern heute "
                "weniger"
            )
        ),
        cases={
            **dict.fromkeys(
                _words(
                    "mit nach aus zu zur zum von vom bei beim seit vor in im binnen gegenüber außer"
                ),
                "dat",
            ),
            **dict.fromkeys(
                _words(
                    "für durch ohne gegen um hast hat habe haben habt gibt brauche brauchst "
                    "braucht kostet stelle stell setze setz starte start erstelle trink trinke "
                    "nimm nehme kaufe kauf bestelle bekommst bekommt bekomme erhältst erhält "
                    "sende schicke"
                ),
                "acc",
            ),
        },
    ),
    year_cues=frozenset(
        _words(
            "im jahr jahre seit bis von ab vor nach anno um januar februar märz april mai "
            "juni juli august september oktober november dezember frühjahr sommer herbst "
            "winter"
        )
    ),
    half={
        "m": "ein halber",
        "m.acc": "einen halben",
        "m.dat": "einem halben",
        N: "ein halbes",
        "n.dat": "einem halben",
        F: "eine halbe",
        "f.dat": "einer halben",
    },
    mixed_half=("eineinhalb", "{whole}einhalb"),
    fractions={2: Noun("halb", "halbe", N)},
    fraction_rule="tel",
    ordinal_dot_cues={
        "am": "n",
        "im": "n",
        "zum": "n",
        "zur": "n",
        "vom": "n",
        "beim": "n",
        "dem": "n",
        "den": "n",
        "des": "n",
        "ab": "n",
        "bis": "n",
        "seit": "n",
        "ihrem": "n",
        "seinem": "n",
        **dict.fromkeys(_words("ihren seinen meinen deinen unseren euren"), "n"),
        "der": "",
        "die": "",
        "das": "",
    },
    ordinal_dot_default="r",
    clock_words=("Uhr",),
    duration_cues=frozenset(
        _words(
            "noch in dauert dauerte dauern braucht brauchen benötigt dauer laufzeit "
            "restlaufzeit restzeit fahrzeit ladezeit spieldauer"
        )
    ),
    symbol_words={
        "±": "plus minus",
        "§": "Paragraf",
        "≈": "ungefähr",
        "~": "etwa",
        "≥": "mindestens",
        "≤": "höchstens",
        ">": "mehr als",
        "<": "weniger als",
        "≠": "ungleich",
    },
    per_word="pro",
    per_count_fixes=((r"^ein(?=hundert|tausend)", ""),),
    unit_cues=frozenset(["pro", "je", "die", "der", "das"]),
    sign_cues={
        "um": "+",
        "gestiegen": "+",
        "steigt": "+",
        "plus": "+",
        "gefallen": "-",
        "gesunken": "-",
        "fällt": "-",
        "sinkt": "-",
        "minus": "-",
    },
    sign_cues_after={"mehr": "+", "höher": "+", "weniger": "-", "niedriger": "-"},
    score_cues=frozenset(
        _words("spielstand stand steht endstand ergebnis gewonnen verloren gewinnt verliert führt")
    ),
    postcode=r"[0-9]{5}",
    postcode_cues=frozenset(["plz", "postleitzahl"]),
    address_words=frozenset(
        _words(
            "straße strasse str weg gasse platz allee ring damm ufer chaussee wohnung whg "
            "haus hausnummer stiege tür stock etage"
        )
    ),
    weekdays={
        "Mo": "Montag",
        "Di": "Dienstag",
        "Mi": "Mittwoch",
        "Do": "Donnerstag",
        "Fr": "Freitag",
        "Sa": "Samstag",
        "So": "Sonntag",
    },
    room_words=frozenset(
        _words("raum zimmer büro etage stock tür saal gebäude haus hörsaal labor")
    ),
    abbreviations=(
        A("str.", "straße", compound=True),
        A("Whg.", "Wohnung"),
        A("OG", "Obergeschoss"),
        A("EG", "Erdgeschoss"),
        A("DG", "Dachgeschoss"),
        A("UG", "Untergeschoss"),
        A("Hs.", "Haus", before_digit=True),
        A("Stg.", "Stiege", before_digit=True),
        A("z. B.", "zum Beispiel"),
        A("z.B.", "zum Beispiel"),
        A("d. h.", "das heißt"),
        A("d.h.", "das heißt"),
        A("u. a.", "unter anderem"),
        A("u.a.", "unter anderem"),
        A("v. a.", "vor allem"),
        A("v.a.", "vor allem"),
        A("usw.", "und so weiter", can_end=True),
        A("etc.", "et cetera", can_end=True),
        A("bzw.", "beziehungsweise"),
        A("ca.", "circa"),
        A("evtl.", "eventuell"),
        A("ggf.", "gegebenenfalls"),
        A("inkl.", "inklusive"),
        A("exkl.", "exklusive"),
        A("zzgl.", "zuzüglich"),
        A("mind.", "mindestens"),
        A("max.", "maximal"),
        A("min.", "minimal", before_digit=True),
        A("Dr.", "Doktor"),
        A("Prof.", "Professor"),
        A("Hr.", "Herr", before_name=True),
        A("Hrn.", "Herrn", before_name=True),
        A("Fr.", "Frau", before_name=True),
        A("St.", "Sankt", before_name=True),
        A("Str.", "Straße"),
        A("Nr.", "Nummer", before_digit=True),
        A("Tel.", "Telefon"),
        A("Jh.", "Jahrhundert"),
    ),
    magnitudes={
        "k": Magnitude(3, Noun("tausend", "tausend", N), glued=True),
        "Tsd.": Magnitude(3, Noun("tausend", "tausend", N)),
        "M": Magnitude(6, Noun("Million", "Millionen", F), glued=True),
        "Mio.": Magnitude(6, Noun("Million", "Millionen", F)),
        "Mio": Magnitude(6, Noun("Million", "Millionen", F)),
        "Mrd.": Magnitude(9, Noun("Milliarde", "Milliarden", F)),
        "Mrd": Magnitude(9, Noun("Milliarde", "Milliarden", F)),
        "Bio.": Magnitude(12, Noun("Billion", "Billionen", F)),
        "Bio": Magnitude(12, Noun("Billion", "Billionen", F)),
    },
    openers=frozenset(
        _words(
            "Der Die Das Den Dem Des Ein Eine Einen Einem Einer Er Sie Es Wir Ihr Ich Du Man "
            "Dies Diese Dieser Dieses Dann Danach Damit Dabei Daher Deshalb Doch Aber Und Oder "
            "Auch Außerdem Zudem So Da Dort Hier Heute Gestern Jetzt Nun Im Am Auf In Mit Nach "
            "Bei Vom Zum Zur Für Über Unter Vor Seit Bis Als Wie Wenn Weil Nicht Noch Nur Laut "
            "Insgesamt Jedoch Trotzdem Dennoch Alle Viele Einige Was Wer Wo Wann Warum Bitte"
        )
    ),
    name_articles=frozenset(_words("der die das den dem des")),
    by_word="mal",
    multiplier=Noun("mal", "mal", N),
    multiplier_glued=True,
    decade_suffix="er",
    roman=RomanWords(
        regnal="der {number}",
        capital=True,
        regnal_cases={"dat": "dem {number}n", "acc": "den {number}n"},
        regnal_feminine="die {number}",
        century_words=frozenset(["jahrhundert", "jh", "jahrhunderts"]),
        cardinal_cues=frozenset(_words("teil kapitel band akt phase stufe typ klasse staffel")),
    ),
)
