"""One errors module: every code in one spelling, every HTTP status from one table, and the
README's tables (wherever the docs put them) saying what the module says."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from wyoming_pocket_tts import errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "wyoming_pocket_tts"
_ROW = re.compile(r"^\|(.*)\|\s*$")
_CODE = re.compile(r"`([a-z][a-z_-]*)`")
_DEFINITION = re.compile(r'^[A-Z_]+ = "(.*)"$')


def _groups() -> dict[str, set[str]]:
    """errors.py's codes by the comment line that heads their group ("Warnings: ...")."""
    groups: dict[str, set[str]] = {}
    heading = ""
    for line in Path(errors.__file__).read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            heading = line[2:]
        elif match := _DEFINITION.match(line):
            groups.setdefault(heading, set()).add(match.group(1))
    return groups


def _group(start: str) -> set[str]:
    [codes] = [codes for heading, codes in _groups().items() if heading.startswith(start)]
    return codes


CODES = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
"""Every code the module defines."""
REQUEST_FAILURES = _group("Failures of a request")
WYOMING = _group("Warnings") | REQUEST_FAILURES | _group("Failures of the Wyoming protocol")
"""The codes a Wyoming client may receive."""
API = (_group("Refusals of the HTTP API") | REQUEST_FAILURES) & set(errors.HTTP_STATUS)
"""The codes the HTTP API's README table lists: its refusals, and a request's failures that
HTTP answers too (not the HTTP server's own answers)."""


def _tables() -> list[list[list[str]]]:
    """Every markdown table of the README and docs/, as rows of cells."""
    tables: list[list[list[str]]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        rows: list[list[str]] = []
        for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
            match = _ROW.match(line)
            if match:
                rows.append([cell.strip() for cell in match.group(1).split("|")])
            elif rows:
                tables.append(rows)
                rows = []
    return tables


def _table(header: list[str]) -> list[list[str]]:
    found = [rows[2:] for rows in _tables() if rows[0][: len(header)] == header]
    assert len(found) == 1, f"one table headed {header} in README.md or docs/"
    return found[0]


def test_every_code_is_spelled_one_way() -> None:
    assert len(CODES) > 40, "the module defines its codes"
    assert set().union(*_groups().values()) == CODES, "each code in a group under its heading"
    for code in CODES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", code), code
    assert set(errors.HTTP_STATUS) <= CODES and errors.WARNINGS <= WYOMING
    assert {"busy", "bad-event"} <= WYOMING and {"busy", "unknown-voice"} <= API
    assert "not-found" not in API and "bad-request" not in API


def test_the_wyoming_table_lists_every_wyoming_code_and_its_kind() -> None:
    rows = _table(["`code`", "kind", "when"])
    listed = {_CODE.fullmatch(row[0]).group(1): row[1] for row in rows}  # type: ignore[union-attr]
    assert set(listed) == WYOMING
    for code, kind in listed.items():
        assert (kind == "warning") == (code in errors.WARNINGS), code


def test_the_http_table_gives_each_code_the_modules_status() -> None:
    rows = _table(["status", "`code`", "when"])
    listed: dict[str, int] = {}
    for row in rows:
        for code in _CODE.findall(row[1]):
            listed[code] = int(row[0])
    assert set(listed) == API
    assert {code: errors.HTTP_STATUS[code] for code in listed} == listed


REFUSALS = {"StudioError": 0, "VoiceEditError": 0, "SampleRefused": 0, "ApiError": 2, "JobError": 0}
"""Each refusal class and the position of its code argument."""


def _refusal_codes() -> list[tuple[str, int, ast.expr]]:
    """(file, line, code argument) of every refusal the package builds by its class's name."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            at = REFUSALS.get(node.func.id)
            if at is not None and len(node.args) > at:
                found.append((path.name, node.lineno, node.args[at]))
    return found


def test_every_refusal_names_its_code_from_the_module() -> None:
    """No refusal spells its code as a literal: each names a constant of `errors` (or passes
    on a code it was given), so a code has one spelling and one status."""
    refusals = _refusal_codes()
    assert len(refusals) > 20, "the scan sees the studio's, the API's and the engine's refusals"
    literal = [(name, line) for name, line, code in refusals if isinstance(code, ast.Constant)]
    assert not literal
    named = {code.id for _, _, code in refusals if isinstance(code, ast.Name)}
    assert {"NAME_TAKEN", "READ_ONLY_FOLDER", "BAD_CSRF"} <= named


@pytest.mark.parametrize("code", sorted(errors.HTTP_STATUS))
def test_every_status_is_an_error_status(code: str) -> None:
    assert 400 <= errors.HTTP_STATUS[code] < 600
