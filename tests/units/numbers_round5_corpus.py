"""Issue 65's own set: one sentence per row, each of round five's kinds in every language that
writes it, with words its native reading must contain and words it must not.

Written for this round, not taken from the issue: remaining times written like clock times
(after a word that says a duration follows) beside clock times that must stay so (French says
both alike, so only its "0h45" and "12h" were wrong: "zéro heure", "midi"), abbreviated
magnitudes in mid-sentence with a currency code or a word after them, German ordinal days after
an article, French "2d"/"2de", and a count after a party's acronym beside a flight code. English
writes no dotted magnitude, German is the only language with "den 14." and French the only one
with "2de". Every row must reach the model as one sentence.
"""

from __future__ import annotations

from .numbers_round4_corpus import Reading

ROUND_FIVE: dict[str, list[Reading]] = {
    "en": [
        (
            "The dishwasher is done in 1:45 h, and dinner is at 7:30.",
            ("in one hour and forty-five minutes", "at seven thirty"),
            ("one forty-five",),
        ),
        (
            "The film lasts 2:30, so it ends late.",
            ("lasts two and a half hours",),
            ("two thirty",),
        ),
        (
            "The fund raised 4.2M USD and spent 1.5M EUR last year.",
            ("four point two million dollars", "one point five million euros"),
            ("USD", "EUR"),
        ),
        (
            "After the recount the LD 172 seats stayed, and flight BA 2490 left.",
            ("LD one hundred and seventy-two seats", "BA two four nine zero"),
            ("one seven two",),
        ),
    ],
    "de": [
        (
            "Der Geschirrspüler ist in 2:10 h fertig, der Trockner braucht noch 1:05 h.",
            ("in zwei Stunden und zehn Minuten", "noch eine Stunde und fünf Minuten"),
            ("Uhr",),
        ),
        (
            "Das Laden dauert 3:30 h, die Abfahrt ist um 18:45 Uhr und der Bus um 20:30 h.",
            ("dauert dreieinhalb Stunden", "um achtzehn Uhr fünfundvierzig", "zwanzig Uhr dreißig"),
            ("Stunden und dreißig",),
        ),
        (
            "Das Museum zählte 2,3 Mio. Gäste und 40 Tsd. Kinder im Sommer.",
            ("zwei Komma drei Millionen Gäste", "vierzigtausend Kinder"),
            ("Mio", "Tsd", "Millionen."),
        ),
        (
            "Der Konzern meldet 8,7 Mrd. EUR Umsatz und 1,2 Bio. CHF Vermögen.",
            ("acht Komma sieben Milliarden Euro Umsatz", "eins Komma zwei Billionen Franken"),
            ("EUR", "CHF"),
        ),
        (
            "Die Tagung beginnt am Freitag, den 21., und endet am Sonntag, den 23.",
            ("den einundzwanzigsten,", "den dreiundzwanzigsten."),
            ("einundzwanzig,", "dreiundzwanzig."),
        ),
        (
            "Im Dorf erhielt die SP 812 Stimmen, Flug LX 1638 war voll.",
            ("die SP achthundertzwölf Stimmen", "LX eins sechs drei acht"),
            ("acht eins zwei",),
        ),
    ],
    "fr": [
        (
            "Le gâteau cuit encore 0h45 et le colis arrive dans 12h.",
            ("encore quarante-cinq minutes", "dans douze heures"),
            ("zéro heure", "midi"),
        ),
        (
            "Le sèche-linge a fini dans 1h10, le trajet dure 1 h 30 et part à 17h15.",
            ("dans une heure dix", "dure une heure trente", "à dix-sept heures quinze"),
            ("minutes",),
        ),
        (
            "Le canton a investi 1,6 mrd. CHF et 250 mio. de francs dans le rail.",
            ("un virgule six milliard de francs suisses", "deux cent cinquante millions de francs"),
            ("CHF", "mio", "mrd"),
        ),
        (
            "Elle a fini 2de au classement, lui 2d, et la 2nde manche reprend au 2e étage.",
            ("fini seconde au", "lui second,", "la seconde manche", "deuxième étage"),
            ("deux d",),
        ),
        (
            "Dans la commune, le PS 486 voix et le vol AF 1234 retardé.",
            ("le PS quatre cent quatre-vingt-six voix", "AF un deux trois quatre"),
            ("quatre huit six",),
        ),
    ],
    "es": [
        (
            "La secadora termina en 0:50 h y el lavavajillas en 1h35.",
            ("en cincuenta minutos", "en una hora y treinta y cinco minutos"),
            ("una y treinta",),
        ),
        (
            "El trayecto dura 3h15, salimos a las 9:30 y faltan 1:30 h.",
            ("dura tres horas y quince minutos", "a las nueve y treinta", "una hora y media"),
            ("tres y quince",),
        ),
        (
            "El club ingresó 45 mill. USD y la obra costó 12,5 M. de euros.",
            ("cuarenta y cinco millones de dólares", "doce coma cinco millones de euros"),
            ("USD", "mill.", "M."),
        ),
        (
            "En el pueblo el PP 642 votos y el vuelo IB 3456 despega.",
            ("el PP seiscientos cuarenta y dos votos", "IB tres cuatro cinco seis"),
            ("seis cuatro dos",),
        ),
    ],
    "it": [
        (
            "La lavastoviglie finisce tra 1:40 h, il film dura 2:10 h e mancano 0:35 h.",
            ("tra un'ora e quaranta minuti", "dura due ore e dieci minuti", "trentacinque minuti"),
            ("una e quaranta",),
        ),
        (
            "Mancano 2:30 h alla partenza delle 21:00.",
            ("Mancano due ore e mezza", "delle ventuno"),
            ("due e trenta",),
        ),
        (
            "L'azienda ha perso 3,4 mln. EUR e il debito sale a 2 mld. di euro.",
            ("tre virgola quattro milioni di euro", "due miliardi di euro"),
            ("EUR", "mln", "mld"),
        ),
        (
            "Nel comune il PD 733 voti, il volo AZ 610 parte dopo.",
            ("il PD settecentotrentatré voti", "AZ sei uno zero"),
            ("sette tre tre",),
        ),
    ],
    "pt": [
        (
            "A máquina de lavar termina em 0h50 e o forno em 1h05.",
            ("em cinquenta minutos", "em uma hora e cinco minutos"),
            ("uma e cinco",),
        ),
        (
            "A viagem demora 2h40, partimos às 8h15 e faltam 1:30 h.",
            ("demora duas horas e quarenta minutos", "às oito e quinze", "uma hora e meia"),
            ("duas e quarenta",),
        ),
        (
            "A empresa investiu 2,5 bi. USD e 300 mi. de reais no país.",
            ("dois vírgula cinco bilhões de dólares", "trezentos milhões de reais"),
            ("USD", "bi.", "mi."),
        ),
        (
            "No concelho o PS 915 votos e o voo TP 1234 chegou.",
            ("o PS novecentos e quinze votos", "TP um dois três quatro"),
            ("nove um cinco",),
        ),
    ],
    "nl": [
        (
            "De vaatwasser is over 1:20 uur klaar en de film duurt 2:30 uur.",
            ("over één uur en twintig minuten", "duurt tweeënhalf uur"),
            ("uur twintig",),
        ),
        (
            "De bus van 20:30 uur rijdt nog 0:45 h.",
            ("van twintig uur dertig", "nog vijfenveertig minuten"),
            (),
        ),
        (
            "De gemeente krijgt 4,5 mln. EUR subsidie en het tekort is 2 mld. euro.",
            ("vier komma vijf miljoen euro subsidie", "twee miljard euro"),
            ("EUR", "mln", "mld"),
        ),
        (
            "In Utrecht haalde de SP 1250 stemmen en vlucht KL 1002 landde.",
            ("de SP duizendtweehonderdvijftig stemmen", "KL één nul nul twee"),
            ("één twee vijf nul",),
        ),
    ],
}
"""Per language, sentences of round five's kinds."""
