"""Speed of speech preparation: milliseconds per 5000 characters, per language.

The text is a Home-Assistant-like announcement mix (temperatures, percentages, times, dates,
prices, energy and weather units, an abbreviation or two) with seeded random values, so that
numbers repeat about as much as in real announcements. "First use" times a fresh reader (empty
num2words cache); "steady" is the median over `runs` new texts on a reader already in use, as in
a running server. Both include the markdown/emoji clean-up, as `prepare_for_speech` does.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from wyoming_pocket_tts.text import numbers
from wyoming_pocket_tts.text.cleanup import clean_for_speech
from wyoming_pocket_tts.text.numbers.reader import Reader

CHARS = 5000
TEMPLATES = {
    "en": [
        "The living room is {t} °C and the humidity is {p}%.",
        "Your timer ends at {hh}:{mm}.",
        "Battery at {p}% – charge it by 2026-{mo}-{d}.",  # noqa: RUF001
        "Solar production today: {e} kWh, now {w} W.",
        "Electricity costs €{c} per kWh, gas ${c}.",
        "Wind {n} km/h, pressure {hpa} hPa, fine dust {n} µg/m³.",
        "Dr. Smith is expected on {d}/{mo}/2026 at {h12}:{mm} pm, e.g. in {n} minutes.",
    ],
    "fr": [
        "Il fait {t} °C dans le salon et l'humidité est de {p} %.",
        "Le minuteur se termine à {hh}:{mm}.",
        "Batterie à {p} %, rechargez-la avant le {d}/{mo}/2026.",
        "Production solaire : {e} kWh, actuellement {w} W.",
        "L'électricité coûte {c} € le kWh.",
        "Vent {n} km/h, pression {hpa} hPa, particules {n} µg/m³.",
        "M. Dupont arrive le 2026-{mo}-{d} à {hh}h{mm}, env. dans {n} minutes.",
    ],
    "de": [
        "Im Wohnzimmer sind es {t} °C und {p} % Luftfeuchtigkeit.",
        "Der Timer endet um {hh}:{mm} Uhr.",
        "Akku bei {p} %, bitte bis zum {d}.{mo}.2026 laden.",
        "Solarertrag heute: {e} kWh, gerade {w} W.",
        "Strom kostet {c} € pro kWh.",
        "Wind {n} km/h, Luftdruck {hpa} hPa, Feinstaub {n} µg/m³.",
        "Dr. Müller kommt am 2026-{mo}-{d} um {hh}:{mm}, z. B. in {n} Minuten.",
    ],
    "it": [
        "In soggiorno ci sono {t} °C e l'umidità è al {p} %.",
        "Il timer scade alle {hh}:{mm}.",
        "Batteria al {p} %, ricaricala entro il {d}/{mo}/2026.",
        "Produzione solare: {e} kWh, ora {w} W.",
        "L'elettricità costa {c} € al kWh.",
        "Vento {n} km/h, pressione {hpa} hPa, polveri {n} µg/m³.",
        "Il Sig. Rossi arriva il 2026-{mo}-{d} alle {hh}:{mm}, ca. tra {n} minuti.",
    ],
    "pt": [
        "A sala está a {t} °C e a humidade a {p} %.",
        "O temporizador acaba às {hh}:{mm}.",
        "Bateria a {p} %, carregue até {d}/{mo}/2026.",
        "Produção solar: {e} kWh, agora {w} W.",
        "A eletricidade custa {c} € por kWh.",
        "Vento {n} km/h, pressão {hpa} hPa, partículas {n} µg/m³.",
        "O Sr. Silva chega a 2026-{mo}-{d} às {hh}:{mm}, p. ex. daqui a {n} minutos.",
    ],
    "es": [
        "El salón está a {t} °C y la humedad al {p} %.",
        "El temporizador termina a las {hh}:{mm}.",
        "Batería al {p} %, cárgala antes del {d}/{mo}/2026.",
        "Producción solar: {e} kWh, ahora {w} W.",
        "La electricidad cuesta {c} € por kWh.",
        "Viento {n} km/h, presión {hpa} hPa, partículas {n} µg/m³.",
        "El Sr. García llega el 2026-{mo}-{d} a las {hh}:{mm}, p. ej. en {n} minutos.",
    ],
    "nl": [
        "In de woonkamer is het {t} °C en de luchtvochtigheid {p} %.",
        "De timer loopt af om {hh}:{mm}.",
        "Batterij op {p} %, laad hem op voor {d}-{mo}-2026.",
        "Zonne-opbrengst vandaag: {e} kWh, nu {w} W.",
        "Stroom kost € {c} per kWh.",
        "Wind {n} km/h, luchtdruk {hpa} hPa, fijnstof {n} µg/m³.",
        "Dhr. Jansen komt op 2026-{mo}-{d} om {hh}:{mm}, bijv. over {n} minuten.",
    ],
}


def announcement_mix(language: str, seed: int, chars: int = CHARS) -> str:
    """`chars` characters of announcements in `language`, values drawn from `seed`."""
    rng = random.Random(seed)
    comma = numbers.LANGUAGES[language].decimal_separator

    def decimal(value: float, places: int) -> str:
        return f"{value:.{places}f}".replace(".", comma)

    parts: list[str] = []
    while sum(len(part) + 1 for part in parts) < chars:
        template = rng.choice(TEMPLATES[language])
        parts.append(
            template.format(
                t=decimal(rng.uniform(-10, 30), 1),
                p=rng.randint(0, 100),
                hh=rng.randint(0, 23),
                h12=rng.randint(1, 12),
                mm=f"{rng.randint(0, 59):02}",
                mo=f"{rng.randint(1, 12):02}",
                d=f"{rng.randint(1, 28):02}",
                e=decimal(rng.uniform(0, 40), 1),
                w=rng.randint(0, 9000),
                c=decimal(rng.uniform(0, 1), 2),
                n=rng.randint(1, 120),
                hpa=rng.randint(960, 1050),
            )
        )
    return " ".join(parts)[:chars]


def _prepare(reader: Reader, text: str) -> tuple[float, float]:
    """(CPU seconds of this thread, wall seconds) to prepare `text`."""
    cpu, wall = time.thread_time(), time.perf_counter()
    reader.read(clean_for_speech(text))
    return time.thread_time() - cpu, time.perf_counter() - wall


def text_speed(runs: int) -> dict[str, Any]:
    """Per language: first-use and steady milliseconds (CPU and wall) for 5000 characters.

    CPU time is the figure to judge: on a shared machine the wall time also counts the time
    other processes held the cores.
    """
    results: dict[str, Any] = {"chars": CHARS, "runs": runs}
    for code, tables in numbers.LANGUAGES.items():
        fresh = Reader(tables)
        first_cpu, first_wall = _prepare(fresh, announcement_mix(code, seed=0))
        steady = [_prepare(fresh, announcement_mix(code, seed=run)) for run in range(1, runs + 1)]
        results[code] = {
            "first_use_cpu_ms": first_cpu * 1000,
            "first_use_wall_ms": first_wall * 1000,
            "steady_cpu_ms": statistics.median(cpu for cpu, _ in steady) * 1000,
            "steady_wall_ms": statistics.median(wall for _, wall in steady) * 1000,
        }
    return results
