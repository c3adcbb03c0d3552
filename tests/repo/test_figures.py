"""Every figure in the README, the add-on's DOCS.md and docs/ says when it was measured.

The rule (docs/development.md, "Figures in the docs"): a figure is a number with a unit of
size or time (KiB, MiB, GiB, kB, MB, GB, ms, s) or a decimal followed by `x` (a real-time factor
or a ratio, `4.91x`), outside fenced code. It is sourced when its block names a run's date as
`YYYY-MM-DD`: the paragraph, list item or table it stands in, together with the paragraph right
above a list or table (its caption). docs/performance.md is the record of the runs the others
point to: there the figure's section (from its heading to the next) must name the date. The
date line is the mark the test can see; host, load and method stand beside it by the same rule.
A figure that is no measurement (a default, a limit, a design constant, a figure quoted with
its source) is listed in `NOT_MEASURED` with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "pocket-tts" / "DOCS.md", *(ROOT / "docs").glob("*.md")]
)
RECORD = ROOT / "docs" / "performance.md"

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
FIGURE = re.compile(
    rf"(?<![\w.-])(?:{_NUMBER}(?:\s?(?:-|to|/)\s?{_NUMBER})*\s?(?:KiB|MiB|GiB|kB|MB|GB|ms|s)"
    rf"|\d+\.\d+(?:-\d+\.\d+)?x)(?!\w)"
)
"""`697 MiB`, `1,023-1,027 MiB`, `1.9 to 5.4 s`, `403 / 370 MiB`, `4.91x`, `1.7-2.5x`."""
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")

NOT_MEASURED: dict[tuple[str, str], str] = {
    ("README.md", "5 s"): "the first retry's delay (offline.FIRST_RETRY)",
    ("README.md", "10-20 s"): "the recording length asked for",
    ("README.md", "1.14x"): "quoted from pocket-tts issue #240, named beside it",
    ("pocket-tts/DOCS.md", "5 s"): "the first retry's delay (offline.FIRST_RETRY)",
    ("pocket-tts/DOCS.md", "10 to 20 s"): "the recording length asked for",
    ("pocket-tts/DOCS.md", "1.3x"): "the speed line's warning threshold",
    ("docs/command-line.md", "5 s"): "the first retry's delay (offline.FIRST_RETRY)",
    ("docs/command-line.md", "20 ms"): "WSOLA's frame",
    ("docs/command-line.md", "27.5 ms"): "WSOLA's look-ahead, by design",
    ("docs/command-line.md", "32.5 ms"): "WSOLA's look-ahead at half speed, by design",
    ("docs/command-line.md", "300 ms"): "the example's flag value",
    ("docs/command-line.md", "800 ms"): "the example's flag value",
    ("docs/command-line.md", "5 ms"): "the fade at each sentence's edges, by design",
    ("docs/development.md", "5 s"): "script/setup's time-out; the progress line's interval",
    ("docs/engine.md", "4 s"): "what 50 tokens say, to give the piece's size",
    ("docs/engine.md", "1.5 s"): "the scheduler's wait before it switches models",
    ("docs/engine.md", "2 MB"): "a connection's unread-audio bound",
    ("docs/http-api.md", "100 ms"): "the Ogg page interval",
    ("docs/reliability.md", "60 s"): "the stream's time-out",
    ("docs/reliability.md", "64 KiB"): "the event header's bound",
    ("docs/reliability.md", "1 MiB"): "the event data's bound",
    ("docs/reliability.md", "2 MB"): "a connection's unread-audio bound",
    ("docs/reliability.md", "44 s"): "that bound in seconds of audio, by arithmetic",
    ("docs/reliability.md", "30 s"): "the voice prompt's and the reader's time-outs",
    ("docs/reliability.md", "2 s"): "the stopping server's grace",
    ("docs/voices.md", "1.3x"): "the speed line's warning threshold",
    ("docs/voices.md", "30 s"): "the prompt's cut",
    ("docs/voices.md", "3 s"): "the calibration phrase's length",
    ("docs/voices.md", "3.0 s"): "the calibration phrase's length, in the log line's form",
    ("docs/voices.md", "10 to 20 s"): "the recording length asked for",
    ("docs/voices.md", "16 MB"): "the upload's bounds",
    ("docs/voices.md", "60 s"): "the upload's bounds",
}
"""(document, figure) -> why it is no measurement."""


@dataclass(frozen=True)
class Figure:
    document: str
    line: int
    text: str


def _blocks(lines: list[str]) -> list[tuple[list[int], str]]:
    """(line numbers, text that sources them) per paragraph, list item or table, outside
    fenced code; a list item or table is sourced by its caption paragraph too."""
    blocks: list[tuple[list[int], str]] = []
    current: list[int] = []
    caption = ""  # the last paragraph above the current list or table
    in_fence = False

    def close() -> None:
        nonlocal current, caption
        if not current:
            return
        text = " ".join(lines[i] for i in current)
        first = lines[current[0]].lstrip()
        is_item = first.startswith(("- ", "* ", "|")) or bool(re.match(r"\d+\. ", first))
        blocks.append((current, text + " " + caption if is_item else text))
        if not is_item:
            caption = text
        current = []

    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not stripped or line.startswith("#"):
            close()
            if line.startswith("#"):
                caption = ""
            continue
        starts_item = bool(re.match(r"(?:[-*]|\d+\.) ", line)) or (
            line.startswith("|") and bool(current) and not lines[current[0]].startswith("|")
        )
        if starts_item:
            close()
        current.append(number)
    close()
    return blocks


def _sections(lines: list[str]) -> list[tuple[list[int], str]]:
    """(line numbers, text) per section of a document: from a heading to the next."""
    starts = [i for i, line in enumerate(lines) if line.startswith("#")] + [len(lines)]
    starts = [0, *starts] if starts[0] != 0 else starts
    return [(list(range(a, b)), "\n".join(lines[a:b])) for a, b in pairwise(starts)]


def unsourced(document: Path, text: str) -> list[Figure]:
    """The figures of `text` (the document's content) without a date in their block (in their
    section, for the record of runs)."""
    lines = text.splitlines()
    prose = {i for numbers, _ in _blocks(lines) for i in numbers}
    units = _sections(lines) if document == RECORD else _blocks(lines)
    name = document.relative_to(ROOT).as_posix()
    found = []
    for numbers, source in units:
        if DATE.search(source):
            continue
        for i in numbers:
            if i not in prose:  # fenced code, for the record's sections
                continue
            found += [Figure(name, i + 1, m.group()) for m in FIGURE.finditer(lines[i])]
    return [f for f in found if (f.document, f.text) not in NOT_MEASURED]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_figure_names_its_run(document: Path) -> None:
    assert unsourced(document, document.read_text(encoding="utf-8")) == []


def test_an_undated_figure_fails_and_a_dated_one_passes() -> None:
    """The rule itself, on a made-up page: the same sentence fails without its date."""
    page = ROOT / "docs" / "made-up.md"
    undated = "# Made up\n\nThe server held 697 MiB and spoke at 4.91x.\n"
    dated = undated.replace("spoke", "spoke (2026-12-02, a 2-core VM, load 4-7)")
    assert [f.text for f in unsourced(page, undated)] == ["697 MiB", "4.91x"]
    assert unsourced(page, dated) == []
    table = "Caption, 2026-12-02:\n\n| a | b |\n| --- | --- |\n| one | 5 ms |\n"
    assert unsourced(page, table) == []
    assert [f.text for f in unsourced(page, table.replace("2026-12-02", "today"))] == ["5 ms"]
    fenced = "```\nINFO took 38.0 s\n```\n"
    assert unsourced(page, fenced) == []


def test_every_exemption_is_still_in_its_document() -> None:
    """An exemption whose figure left its document goes too, so the list stays short."""
    present = {
        (doc.relative_to(ROOT).as_posix(), m.group())
        for doc in DOCUMENTS
        for m in FIGURE.finditer(doc.read_text(encoding="utf-8"))
    }
    assert set(NOT_MEASURED) - present == set()
