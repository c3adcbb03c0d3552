"""Spanish reading tables."""

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
    code="es",
    num2words="es",
    decimal_separator=",",
    decimal_word="coma",
    decimal_as_digits=False,
    minus="menos",
    plus="más",
    range_word="a",
    ratio_word="a",
    times_word="por",
    and_word="y",
    dot_word="punto",
    number_word="número",
    units={
        "°C": Noun("grado Celsius", "grados Celsius"),
        "°F": Noun("grado Fahrenheit", "grados Fahrenheit"),
        "°": Noun("grado", "grados"),
        "%": Noun("por ciento", "por ciento"),
        "‰": Noun("por mil", "por mil"),
        "mg": Noun("miligramo", "miligramos"),
        "µg": Noun("microgramo", "microgramos"),
        "kWp": Noun("kilovatio pico", "kilovatios pico"),
        "Bft": Noun("Beaufort", "Beaufort"),
        "cda.": Noun("cucharada", "cucharadas", F),
        "cdas.": Noun("cucharada", "cucharadas", F),
        "cdta.": Noun("cucharadita", "cucharaditas", F),
        "cdtas.": Noun("cucharadita", "cucharaditas", F),
        "W": Noun("vatio", "vatios"),
        "kW": Noun("kilovatio", "kilovatios"),
        "MW": Noun("megavatio", "megavatios"),
        "Wh": Noun("vatio hora", "vatios hora"),
        "kWh": Noun("kilovatio hora", "kilovatios hora"),
        "MWh": Noun("megavatio hora", "megavatios hora"),
        "V": Noun("voltio", "voltios"),
        "mV": Noun("milivoltio", "milivoltios"),
        "A": Noun("amperio", "amperios"),
        "mA": Noun("miliamperio", "miliamperios"),
        "VA": Noun("voltamperio", "voltamperios"),
        "Hz": Noun("hercio", "hercios"),
        "kHz": Noun("kilohercio", "kilohercios"),
        "MHz": Noun("megahercio", "megahercios"),
        "GHz": Noun("gigahercio", "gigahercios"),
        "km/h": Noun("kilómetro por hora", "kilómetros por hora"),
        "m/s": Noun("metro por segundo", "metros por segundo"),
        "mph": Noun("milla por hora", "millas por hora", F),
        "km": Noun("kilómetro", "kilómetros"),
        "m": Noun("metro", "metros"),
        "cm": Noun("centímetro", "centímetros"),
        "mm": Noun("milímetro", "milímetros"),
        "mm/h": Noun("milímetro por hora", "milímetros por hora"),
        "m²": Noun("metro cuadrado", "metros cuadrados"),
        "m³": Noun("metro cúbico", "metros cúbicos"),
        "m³/h": Noun("metro cúbico por hora", "metros cúbicos por hora"),
        "W/m²": Noun("vatio por metro cuadrado", "vatios por metro cuadrado"),
        "kg": Noun("kilogramo", "kilogramos"),
        "g": Noun("gramo", "gramos"),
        "l": Noun("litro", "litros"),
        "ml": Noun("mililitro", "mililitros"),
        "l/min": Noun("litro por minuto", "litros por minuto"),
        "hPa": Noun("hectopascal", "hectopascales"),
        "kPa": Noun("kilopascal", "kilopascales"),
        "Pa": Noun("pascal", "pascales"),
        "mbar": Noun("milibar", "milibares"),
        "bar": Noun("bar", "bares"),
        "ppm": Noun("parte por millón", "partes por millón", F),
        "ppb": Noun("parte por mil millones", "partes por mil millones", F),
        "µg/m³": Noun("microgramo por metro cúbico", "microgramos por metro cúbico"),
        "dB": Noun("decibelio", "decibelios"),
        "dBm": Noun("decibelio-milivatio", "decibelios-milivatio"),
        "lx": Noun("lux", "lux"),
        "lm": Noun("lumen", "lúmenes"),
        "h": Noun("hora", "horas", F),
        "min": Noun("minuto", "minutos"),
        "s": Noun("segundo", "segundos"),
        "ms": Noun("milisegundo", "milisegundos"),
        "kB": Noun("kilobyte", "kilobytes"),
        "MB": Noun("megabyte", "megabytes"),
        "GB": Noun("gigabyte", "gigabytes"),
        "TB": Noun("terabyte", "terabytes"),
        "Mbit/s": Noun("megabit por segundo", "megabits por segundo"),
        "Gbit/s": Noun("gigabit por segundo", "gigabits por segundo"),
    },
    currencies={
        "€": Currency(Noun("euro", "euros"), Noun("céntimo", "céntimos")),
        "$": Currency(Noun("dólar", "dólares"), Noun("centavo", "centavos")),
        "£": Currency(Noun("libra", "libras", F), Noun("penique", "peniques")),
        "¥": Currency(Noun("yen", "yenes"), Noun("sen", "sen")),
        "CHF": Currency(Noun("franco suizo", "francos suizos"), Noun("céntimo", "céntimos")),
    },
    money_both="{major} con {cents}",
    months=(
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ),
    date="{day} de {month} de {year}",
    date_no_year="{day} de {month}",
    day_month="{day} {month}",
    day_ordinal=False,
    first_day="uno",
    month_first=False,
    time=TimeWords(
        full="{hour} y {minute}",
        on_the_hour="{hour}",
        hour=Noun("hora", "horas", F),
        special={"00:00": "medianoche", "12:00": "mediodía"},
        special_after={
            "a las": {"12:00": "al mediodía", "00:00": "a medianoche"},
            "de las": {"12:00": "del mediodía", "00:00": "de la medianoche"},
            "las": {"12:00": "el mediodía", "00:00": "la medianoche"},
        },
        seconds_joiner="y",
    ),
    ordinal_suffixes={"º": "m", ".º": "m", "ª": "f", ".ª": "f", "er": "m", ".er": "m"},
    first_ordinals={"er": "primer", ".er": "primer"},
    feminine_ordinal=((r"o\b", "a"),),
    ordinal_fixes=(
        (r"^décimoprimero$", "undécimo"),
        (r"^décimosegundo$", "duodécimo"),
        (r"décimo(?=[a-z])", "decimo"),
    ),
    cardinal_fixes=((r"\bveintiuno(?= mil\b)", "veintiún"), (r"\buno(?= mil\b)", "un")),
    gender_fixes={
        "m": ((r"\bveintiuno$", "veintiún"), (r"\buno$", "un")),
        F: ((r"uno$", "una"), (r"ientos\b(?! mill)", "ientas")),
    },
    genders=Genders(
        labels=frozenset(
            _words(
                "zona sala planta piso vía andén canal línea nivel fase puerta ventana luz "
                "lámpara sensor habitación dormitorio baño cámara enchufe persiana grupo escena "
                "número"
            )
        ),
        endings=(
            *((ending, F) for ending in ("ión", "iones", "dad", "dades", "tad", "tud", "umbre")),
            *((ending, F) for ending in ("ie", "sis", "a", "as")),
            *(("o", "m"), ("os", "m"), ("aje", "m"), ("or", "m"), ("ón", "m")),
        ),
        nouns={
            **dict.fromkeys(
                _words(
                    "mano foto moto radio noche llave calle leche gente fuente nube clase parte "
                    "suerte tarde frase base red luz vez voz paz cruz flor imagen sal piel miel "
                    "señal razón sartén nieve torre carne muerte fiebre lente tele tos ley"
                ),
                F,
            ),
            **dict.fromkeys(
                _words(
                    "día mapa problema sistema programa tema clima idioma planeta sofá esquema "
                    "dilema poema pijama aroma diagrama telegrama mediodía camión avión millón "
                    "billón guion sarampión"
                ),
                "m",
            ),
        },
        singular=(("iones", "ión"), ("ones", "ón"), ("ces", "z"), ("es", ""), ("s", "")),
        before_noun=frozenset(
            _words(
                "mil nuevo nueva nuevos nuevas gran grandes pequeño pequeña pequeños pequeñas solo "
                "sola único única buen buena mal mala otro otra otros otras último última "
                "próximo próxima mismo misma"
            )
        ),
        not_nouns=frozenset(
            _words(
                "y o u e ni de del a al en con por para que sin sobre entre hasta desde más "
                "menos es son está están hay el la los las lo le les un una se me te nos ya no "
                "sí también cada pero como cuando si hoy ayer ahora aquí allí fuera dentro"
            )
        ),
    ),
    half={"m": "medio", F: "media"},
    half_after={"m": "medio", F: "media"},
    fraction_of="de",
    ordinal_apocope=((r"^(prim|terc)ero$", r"\1er"), (r"(?<=\s)(prim|terc)ero$", r"\1er")),
    ordinal_sign_cues=frozenset(["el", "la", "al", "del", "en", "su", "mi", "tu"]),
    fractions={2: Noun("medio", "medios"), 3: Noun("tercio", "tercios")},
    fraction_rule="ordinal+s",
    space_groups=True,
    hour_letter="glued",
    duration_cues=frozenset(
        [
            *_words("en durante dura durará duró demora tarda tardará queda quedan falta faltan"),
            *("lleva", "duración", "dentro de", "cerca de", "más de", "menos de"),
        ]
    ),
    symbol_words={
        "±": "más o menos",
        "§": "párrafo",
        "≈": "aproximadamente",
        "~": "alrededor de",
        "≥": "al menos",
        "≤": "como máximo",
        ">": "más de",
        "<": "menos de",
        "≠": "distinto de",
    },
    per_word="por",
    per_count_word="por cada",
    unit_cues=frozenset(["por", "el", "cada"]),
    sign_cues={
        "subió": "+",
        "aumentó": "+",
        "subida": "+",
        "aumento": "+",
        "de": "+",
        "bajó": "-",
        "disminuyó": "-",
        "bajada": "-",
        "caída": "-",
    },
    sign_cues_after={"más": "+", "menos": "-"},
    score_cues=frozenset(
        ["resultado", "marcador", "ganó", "perdió", "gana", "pierde", "victoria", "derrota"]
    ),
    phone_patterns=(r"[6-9][0-9]{2} [0-9]{3} [0-9]{3}", r"[6-9][0-9]{2}(?: [0-9]{2}){3}"),
    postcode=r"[0-9]{5}",
    postcode_cues=frozenset(["cp", "postal"]),
    address_words=frozenset(
        _words(
            "calle avenida plaza paseo camino carretera ronda travesía piso puerta portal "
            "bloque escalera"
        )
    ),
    room_words=frozenset(_words("sala aula despacho habitación oficina puerta planta edificio")),
    abbreviations=(
        A("C/", "calle", before_name=True),
        A("c/", "calle", before_name=True),
        A("Pza.", "Plaza", before_name=True),
        A("Ctra.", "Carretera"),
        A("Sta.", "Santa", before_name=True),
        A("Sto.", "Santo", before_name=True),
        A("pta.", "puerta"),
        A("Pta.", "Puerta"),
        A("dcha.", "derecha", can_end=True),
        A("izq.", "izquierda", can_end=True),
        A("izda.", "izquierda", can_end=True),
        A("esc.", "escalera"),
        A("Esc.", "Escalera"),
        A("N.º", "número", before_digit=True),
        A("Sr.", "Señor", before_name=True),
        A("Sra.", "Señora", before_name=True),
        A("Srta.", "Señorita", before_name=True),
        A("Dr.", "Doctor", before_name=True),
        A("Dra.", "Doctora", before_name=True),
        A("Prof.", "Profesor", before_name=True),
        A("Ud.", "usted"),
        A("Uds.", "ustedes"),
        A("p. ej.", "por ejemplo"),
        A("p.ej.", "por ejemplo"),
        A("etc.", "etcétera", can_end=True),
        A("aprox.", "aproximadamente"),
        A("n.º", "número", before_digit=True),
        A("nº", "número", before_digit=True),
        A("núm.", "número", before_digit=True),
        A("Av.", "Avenida", before_name=True),
        A("Avda.", "Avenida"),
        A("pág.", "página", before_digit=True),
        A("tel.", "teléfono"),
        A("EE. UU.", "Estados Unidos"),
        A("EE.UU.", "Estados Unidos"),
        A("máx.", "máximo", before_digit=True),
        A("mín.", "mínimo", before_digit=True),
    ),
    magnitudes={
        "k": Magnitude(3, Noun("mil", "mil"), glued=True),
        **dict.fromkeys(("M", "M."), Magnitude(6, Noun("millón", "millones"), glued=True)),
        "mill.": Magnitude(6, Noun("millón", "millones")),
        "mill": Magnitude(6, Noun("millón", "millones")),
    },
    magnitude_of="de",
    name_articles=frozenset(_words("el la los las del al")),
    by_word="por",
    multiplier=Noun("vez", "veces", F),
    decade_cues=frozenset(["años"]),
    roman=RomanWords(
        ordinal_up_to=10,
        century_words=frozenset(["siglo", "siglos"]),
        century_ordinal_up_to=10,
        cardinal_cues=frozenset(_words("capítulo tomo parte acto volumen fase temporada")),
    ),
)
