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
    assert errors.CODES, "the module lists its codes"
    for code in errors.CODES:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", code), code
    assert set(errors.HTTP_STATUS) <= errors.CODES
    assert errors.WYOMING <= errors.CODES and set(errors.HTTP_STATUS) >= errors.API


def test_the_wyoming_table_lists_every_wyoming_code_and_its_kind() -> None:
    rows = _table(["`code`", "kind", "when"])
    listed = {_CODE.fullmatch(row[0]).group(1): row[1] for row in rows}  # type: ignore[union-attr]
    assert set(listed) == errors.WYOMING
    for code, kind in listed.items():
        assert (kind == "warning") == (code in errors.WARNINGS), code


def test_the_http_table_gives_each_code_the_modules_status() -> None:
    rows = _table(["status", "`code`", "when"])
    listed: dict[str, int] = {}
    for row in rows:
        for code in _CODE.findall(row[1]):
            listed[code] = int(row[0])
    assert set(listed) == errors.API
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
