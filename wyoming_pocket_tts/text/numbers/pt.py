"""Portuguese reading tables (European spelling where it differs; Brazilians read it alike)."""

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
    code="pt",
    num2words="pt",
    decimal_separator=",",
    decimal_word="vírgula",
    decimal_as_digits=False,
    minus="menos",
    plus="mais",
    range_word="a",
    ratio_word="a",
    times_word="vezes",
    and_word="e",
    dot_word="ponto",
    number_word="número",
    units={
        "°C": Noun("grau Celsius", "graus Celsius"),
        "°F": Noun("grau Fahrenheit", "graus Fahrenheit"),
        "°": Noun("grau", "graus"),
        "%": Noun("por cento", "por cento"),
        "‰": Noun("por mil", "por mil"),
        "mg": Noun("miligrama", "miligramas"),
        "µg": Noun("micrograma", "microgramas"),
        "kWp": Noun("quilowatt-pico", "quilowatts-pico"),
        "Bft": Noun("Beaufort", "Beaufort"),
        "c. de sopa": Noun("colher de sopa", "colheres de sopa", F),
        "c. de chá": Noun("colher de chá", "colheres de chá", F),
        "c. sopa": Noun("colher de sopa", "colheres de sopa", F),
        "c. chá": Noun("colher de chá", "colheres de chá", F),
        "W": Noun("watt", "watts"),
        "kW": Noun("quilowatt", "quilowatts"),
        "MW": Noun("megawatt", "megawatts"),
        "Wh": Noun("watt-hora", "watts-hora"),
        "kWh": Noun("quilowatt-hora", "quilowatts-hora"),
        "MWh": Noun("megawatt-hora", "megawatts-hora"),
        "V": Noun("volt", "volts"),
        "mV": Noun("milivolt", "milivolts"),
        "A": Noun("ampere", "amperes"),
        "mA": Noun("miliampere", "miliamperes"),
        "VA": Noun("volt-ampere", "volts-ampere"),
        "Hz": Noun("hertz", "hertz"),
        "kHz": Noun("quilohertz", "quilohertz"),
        "MHz": Noun("megahertz", "megahertz"),
        "GHz": Noun("gigahertz", "gigahertz"),
        "km/h": Noun("quilómetro por hora", "quilómetros por hora"),
        "m/s": Noun("metro por segundo", "metros por segundo"),
        "mph": Noun("milha por hora", "milhas por hora", F),
        "km": Noun("quilómetro", "quilómetros"),
        "m": Noun("metro", "metros"),
        "cm": Noun("centímetro", "centímetros"),
        "mm": Noun("milímetro", "milímetros"),
        "mm/h": Noun("milímetro por hora", "milímetros por hora"),
        "m²": Noun("metro quadrado", "metros quadrados"),
        "m³": Noun("metro cúbico", "metros cúbicos"),
        "m³/h": Noun("metro cúbico por hora", "metros cúbicos por hora"),
        "W/m²": Noun("watt por metro quadrado", "watts por metro quadrado"),
        "kg": Noun("quilograma", "quilogramas"),
        "g": Noun("grama", "gramas"),
        "l": Noun("litro", "litros"),
        "ml": Noun("mililitro", "mililitros"),
        "l/min": Noun("litro por minuto", "litros por minuto"),
        "hPa": Noun("hectopascal", "hectopascais"),
        "kPa": Noun("quilopascal", "quilopascais"),
        "Pa": Noun("pascal", "pascais"),
        "mbar": Noun("milibar", "milibares"),
        "bar": Noun("bar", "bares"),
        "ppm": Noun("parte por milhão", "partes por milhão", F),
        "ppb": Noun("parte por bilião", "partes por bilião", F),
        "µg/m³": Noun("micrograma por metro cúbico", "microgramas por metro cúbico"),
        "dB": Noun("decibel", "decibéis"),
        "dBm": Noun("decibel-miliwatt", "decibéis-miliwatt"),
        "lx": Noun("lux", "lux"),
        "lm": Noun("lúmen", "lúmens"),
        "h": Noun("hora", "horas", F),
        "min": Noun("minuto", "minutos"),
        "s": Noun("segundo", "segundos"),
        "ms": Noun("milissegundo", "milissegundos"),
        "kB": Noun("kilobyte", "kilobytes"),
        "MB": Noun("megabyte", "megabytes"),
        "GB": Noun("gigabyte", "gigabytes"),
        "TB": Noun("terabyte", "terabytes"),
        "Mbit/s": Noun("megabit por segundo", "megabits por segundo"),
        "Gbit/s": Noun("gigabit por segundo", "gigabits por segundo"),
    },
    currencies={
        "€": Currency(Noun("euro", "euros"), Noun("cêntimo", "cêntimos")),
        "$": Currency(Noun("dólar", "dólares"), Noun("cêntimo", "cêntimos")),
        "£": Currency(Noun("libra", "libras", F), Noun("péni", "pence")),
        "¥": Currency(Noun("iene", "ienes"), Noun("sen", "sen")),
        "CHF": Currency(Noun("franco suíço", "francos suíços"), Noun("cêntimo", "cêntimos")),
        "R$": Currency(Noun("real", "reais"), Noun("centavo", "centavos")),
    },
    money_both="{major} e {minor}",
    months=(
        "janeiro",
        "fevereiro",
        "março",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
    ),
    date="{day} de {month} de {year}",
    date_no_year="{day} de {month}",
    day_month="{day} {month}",
    day_ordinal=False,
    first_day="primeiro",
    month_first=False,
    time=TimeWords(
        full="{hour} e {minute}",
        on_the_hour="{hour} {hour_unit}",
        hour=Noun("hora", "horas", F),
        special={"00:00": "meia-noite", "12:00": "meio-dia"},
        special_after={
            "às": {"12:00": "ao meio-dia", "00:00": "à meia-noite"},
            "das": {"12:00": "do meio-dia", "00:00": "da meia-noite"},
            "pelas": {"12:00": "pelo meio-dia", "00:00": "pela meia-noite"},
            "as": {"12:00": "o meio-dia", "00:00": "a meia-noite"},
        },
        seconds_joiner="e",
    ),
    ordinal_suffixes={"º": "m", ".º": "m", "ª": "f", ".ª": "f"},
    feminine_ordinal=((r"o\b", "a"),),
    gender_fixes={F: ((r"\bum$", "uma"), (r"\bdois$", "duas"), (r"entos\b(?! milh)", "entas"))},
    genders=Genders(
        labels=frozenset(
            _words(
                "zona sala piso andar linha plataforma canal nível fase porta janela luz "
                "lâmpada sensor quarto câmara tomada estore grupo cena número"
            )
        ),
        endings=(
            *((ending, F) for ending in ("ção", "ções", "são", "sões", "dade", "dades")),
            *((ending, F) for ending in ("gem", "gens", "tude", "ie", "ice", "eza", "a", "as")),
            *(("ião", F), ("iões", F), ("o", "m"), ("os", "m"), ("or", "m"), ("ão", "m")),
            ("ões", "m"),
        ),
        nouns={
            **dict.fromkeys(
                _words(
                    "mão foto moto tribo noite tarde chave parte vez rede gente fonte frente "
                    "carne classe ponte neve febre luz voz paz cruz flor cor dor sede árvore "
                    "torre pele sorte morte nuvem lente base frase fase greve mulher colher tv "
                    "televisão"
                ),
                F,
            ),
            **dict.fromkeys(
                _words(
                    "dia mapa problema sistema programa tema clima idioma planeta sofá esquema "
                    "telefonema pijama aroma diagrama avião pião"
                ),
                "m",
            ),
        },
        singular=(
            *(("ções", "ção"), ("sões", "são"), ("ões", "ão"), ("ães", "ão"), ("ns", "m")),
            *(("res", "r"), ("zes", "z"), ("s", "")),
        ),
        before_noun=frozenset(
            _words(
                "mil novo nova novos novas grande grandes pequeno pequena pequenos pequenas único "
                "única bom boa mau má outro outra outros outras último última próximo próxima "
                "só mesmo mesma"
            )
        ),
        not_nouns=frozenset(
            _words(
                "e ou nem de do da dos das a à às ao aos em no na nos nas com por para que sem "
                "sobre entre até desde mais menos é são está estão há o os as um uma se me te "
                "já não sim também cada mas como quando hoje amanhã ontem agora aqui ali fora "
                "dentro"
            )
        ),
    ),
    half={"m": "meio", F: "meia"},
    half_after={"m": "meio", F: "meia"},
    fraction_of="de",
    ordinal_sign_cues=frozenset(
        ["o", "a", "ao", "à", "do", "da", "no", "na", "em", "seu", "sua", "meu", "minha"]
    ),
    fractions={2: Noun("meio", "meios"), 3: Noun("terço", "terços")},
    fraction_rule="ordinal+s",
    space_groups=True,
    hour_letter="glued",
    duration_cues=frozenset(
        [
            *_words("em durante dura durou demora demorou leva levou falta faltam resta restam"),
            *("duração", "daqui a", "dentro de", "cerca de", "mais de", "menos de"),
        ]
    ),
    symbol_words={
        "±": "mais ou menos",
        "§": "parágrafo",
        "≈": "aproximadamente",
        "~": "cerca de",
        "≥": "pelo menos",
        "≤": "no máximo",
        ">": "mais de",
        "<": "menos de",
        "≠": "diferente de",
    },
    per_word="por",
    per_count_word="aos",
    unit_cues=frozenset(["por", "o", "cada"]),
    sign_cues={
        "subiu": "+",
        "aumentou": "+",
        "subida": "+",
        "aumento": "+",
        "de": "+",
        "desceu": "-",
        "diminuiu": "-",
        "descida": "-",
        "queda": "-",
    },
    sign_cues_after={"mais": "+", "a mais": "+", "menos": "-", "a menos": "-"},
    score_cues=frozenset(
        ["resultado", "placar", "marcador", "venceu", "ganhou", "perdeu", "vitória", "derrota"]
    ),
    phone_patterns=(r"[29][0-9]{2} [0-9]{3} [0-9]{3}",),
    postcode=r"[0-9]{4}-[0-9]{3}",
    postcode_groups=(4, 3),
    postcode_cues=frozenset(["postal"]),
    address_words=frozenset(
        _words(
            "rua avenida praça travessa largo estrada alameda apartamento bloco andar porta lote"
        )
    ),
    room_words=frozenset(_words("sala gabinete quarto porta piso edifício")),
    abbreviations=(
        A("q.b.", "quanto baste"),
        A("D.", "Dom", before_name=True, feminine="Dona"),
        A("R.", "Rua", before_name=True),
        A("Pç.", "Praça"),
        A("Trav.", "Travessa"),
        A("Sto.", "Santo", before_name=True),
        A("Sta.", "Santa", before_name=True),
        A("Esq.", "Esquerdo", can_end=True),
        A("esq.", "esquerdo", can_end=True),
        A("Dto.", "Direito", can_end=True),
        A("dto.", "direito", can_end=True),
        A("apto.", "apartamento"),
        A("Apto.", "Apartamento"),
        A("r/c", "rés-do-chão"),
        A("Sr.", "Senhor", before_name=True),
        A("Sra.", "Senhora", before_name=True),
        A("Dr.", "Doutor", before_name=True),
        A("Dra.", "Doutora", before_name=True),
        A("Prof.", "Professor", before_name=True),
        A("p. ex.", "por exemplo"),
        A("p.ex.", "por exemplo"),
        A("etc.", "et cetera", can_end=True),
        A("aprox.", "aproximadamente"),
        A("n.º", "número", before_digit=True),
        A("nº", "número", before_digit=True),
        A("N.º", "número", before_digit=True),
        A("Av.", "Avenida", before_name=True),
        A("pág.", "página", before_digit=True),
        A("tel.", "telefone"),
        A("máx.", "máximo", before_digit=True),
        A("mín.", "mínimo", before_digit=True),
    ),
    magnitudes={
        "k": Magnitude(3, Noun("mil", "mil"), glued=True),
        "M": Magnitude(6, Noun("milhão", "milhões"), glued=True),
        "M.": Magnitude(6, Noun("milhão", "milhões"), glued=True),
        **dict.fromkeys(("mi", "mi."), Magnitude(6, Noun("milhão", "milhões"))),
        **dict.fromkeys(("bi", "bi."), Magnitude(9, Noun("bilhão", "bilhões"))),
    },
    magnitude_of="de",
    name_articles=frozenset(_words("o a os as do da dos das no na nos nas ao aos")),
    by_word="por",
    multiplier=Noun("vez", "vezes", F),
    decade_cues=frozenset(["anos"]),
    roman=RomanWords(
        ordinal_up_to=10,
        century_words=frozenset(["século", "séculos"]),
        century_ordinal_up_to=10,
        cardinal_cues=frozenset(_words("capítulo tomo parte ato volume fase temporada")),
    ),
)
