"""The house's layout: no import circles between modules or rooms, modules small enough to read
in one sitting, and docs/architecture.md naming the files that exist."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "wyoming_pocket_tts"
MAX_LINES = 400
"""Issue 27's bound: a module a newcomer reads in one sitting."""


def layout() -> ModuleType:
    """script/layout.py, the import-graph check that script/lint runs."""
    spec = importlib.util.spec_from_file_location("layout", ROOT / "script" / "layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("layout", module)
    spec.loader.exec_module(module)
    return module


def test_no_import_circles_between_modules_or_rooms() -> None:
    assert layout().house_circles(PACKAGE) == []


def test_the_check_finds_a_circle_made_on_purpose(tmp_path: Path) -> None:
    """A package whose room `b/` imports `a.py` while `a.py` imports `b/`: a circle between
    rooms though no two modules import each other, and one between two modules."""
    package = tmp_path / "house"
    (package / "b").mkdir(parents=True)
    (package / "__init__.py").write_text('"""A house."""\n')
    (package / "b" / "__init__.py").write_text('"""A room."""\n')
    (package / "a.py").write_text("from .b.one import ONE\n")
    (package / "b" / "one.py").write_text("ONE = 1\n")
    (package / "b" / "two.py").write_text("from ..a import ONE\n")
    (package / "c.py").write_text("def late():\n    from .d import D\n")
    (package / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from .c import late\nD = 1\n")  # fmt: skip
    circles = layout().house_circles(package)
    assert ["house.c", "house.d"] in circles  # a function-local import and a TYPE_CHECKING one
    assert ["house/a", "house/b"] in circles
    (package / "b" / "two.py").write_text("TWO = 2\n")
    (package / "d.py").write_text("D = 1\n")
    assert layout().house_circles(package) == []


def test_every_module_is_at_most_400_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_architecture_page_names_real_files() -> None:
    """Every `path.py` or `folder/` the page names in backticks exists in the package (or the
    repository), and every package module is named on it (or its folder is)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:[\w]+/)*[\w]+(?:\.py|/))`", text))
    assert named, "the page names no files: the check would pass on anything"
    missing = {
        name
        for name in named
        if not (PACKAGE / name).exists()
        and not (ROOT / name).exists()
        and not any(PACKAGE.glob(f"*/{name}"))
    }
    assert missing == set()
    modules = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py"
    }
    unnamed = {
        module
        for module in modules
        if module not in named
        and not any(f"{folder.as_posix()}/" in named for folder in Path(module).parents)
    }
    assert unnamed == set()


def test_every_module_imports() -> None:
    """Every module of the package imports: a relative import left pointing at a module that
    moved fails here (mypy, with `ignore_missing_imports`, does not see it)."""
    import importlib
    import pkgutil

    import wyoming_pocket_tts

    failed = {}
    for found in pkgutil.walk_packages(wyoming_pocket_tts.__path__, "wyoming_pocket_tts."):
        try:
            importlib.import_module(found.name)
        except ImportError as error:
            failed[found.name] = str(error)
    assert failed == {}


def unnamed_modules(package: Path) -> dict[str, list[str]]:
    """Per package under `package`, the modules (`name.py`, or `name` in backticks) and rooms
    (`name/`) its `__init__` docstring does not name."""
    import ast

    missing = {}
    for init in sorted(package.rglob("__init__.py")):
        folder = init.parent
        text = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        names = [
            f"`{path.name}`" if path.is_file() else f"`{path.name}/`"
            for path in sorted(folder.iterdir())
            if (path.suffix == ".py" and path.name != "__init__.py")
            or (path.is_dir() and (path / "__init__.py").is_file())
        ]
        absent = [n for n in names if n not in text and n.replace(".py`", "`") not in text]
        if absent:
            missing[str(folder.relative_to(package.parent))] = absent
    return missing


def test_every_package_docstring_names_each_of_its_modules(tmp_path: Path) -> None:
    """Each package's `__init__` docstring is its map: every module and room in it is named.
    A module added without a line there fails (shown on a package made here)."""
    assert unnamed_modules(PACKAGE) == {}
    house = tmp_path / "house"
    (house / "room").mkdir(parents=True)
    (house / "__init__.py").write_text('"""A house: `a.py`."""\n')
    (house / "a.py").write_text("")
    (house / "b.py").write_text("")
    (house / "room" / "__init__.py").write_text('"""A room: `c`."""\n')
    (house / "room" / "c.py").write_text("")
    assert unnamed_modules(house) == {"house": ["`b.py`", "`room/`"]}
