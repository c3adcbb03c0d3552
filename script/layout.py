"""The package's import graph, by module and by room: `script/layout` prints its figures.

A room is a folder with no sub-packages, or, in a folder that has them, each of its own modules.
Every import counts (top level, inside a function, under `TYPE_CHECKING`): each is an arrow a
reader has to follow. `tests/repo/test_layout.py` holds the package to no circles, by module and by
room.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "wyoming_pocket_tts"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of `package` by dotted name (a package by its `__init__.py`)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool, known: dict[str, Path]) -> set[str]:
    names: set[str] = set()
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - node.level + 1]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        submodules = {f"{source}.{alias.name}" for alias in node.names} & known.keys()
        whole = len(submodules) < len(node.names)  # a name the package itself defines
        names = submodules | ({source} if whole else set())
    return {name for name in names if name in known}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module's imports of the package's own modules (packages' `__init__` left out)."""
    known = modules(package)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets |= _targets(node, module, is_package, known)
        graph[module] = {
            target
            for target in targets - {module}
            if known[target].name != "__init__.py"
            or not known[target].read_text().strip()
            or _has_code(known[target])
        }
    return graph


def _has_code(path: Path) -> bool:
    """An `__init__.py` with more than a docstring is a module of its own."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)) for n in body)


def room(module: str, package: Path = PACKAGE) -> str:
    """The room of `module`: its folder if the folder has no sub-packages, else itself."""
    known = modules(package)
    path = known[module]
    folder = path.parent
    if path.name == "__init__.py":
        return "/".join(path.parent.relative_to(package.parent).parts)
    if any(child.is_dir() and (child / "__init__.py").exists() for child in folder.iterdir()):
        return "/".join(path.relative_to(package.parent).with_suffix("").parts)
    return "/".join(folder.relative_to(package.parent).parts)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def room_graph(graph: dict[str, set[str]], package: Path = PACKAGE) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = room(module, package)
        rooms.setdefault(source, set())
        for target in targets:
            if room(target, package) != source:
                rooms[source].add(room(target, package))
    return rooms


@dataclass(frozen=True)
class Figures:
    rooms: int
    arrows: int
    floors: int
    back_up: int
    circles: list[list[str]]


def figures(graph: dict[str, set[str]]) -> Figures:
    """Rooms-or-modules, arrows, floors (the longest chain of arrows, plus one), arrows that
    run back up (inside a circle) and the circles of `graph`."""
    found = circles(graph)
    inside = {node: number for number, circle in enumerate(found) for node in circle}
    back = sum(
        1
        for source, targets in graph.items()
        for target in targets
        if source in inside and inside.get(target) == inside[source]
    )
    floor: dict[str, int] = {}

    def height(node: str, seen: frozenset[str]) -> int:
        if node in floor:
            return floor[node]
        below = [height(t, seen | {node}) for t in graph.get(node, ()) if t not in seen]
        floor[node] = 1 + max(below, default=0)
        return floor[node]

    floors = max((height(node, frozenset()) for node in graph), default=0)
    arrows = sum(len(targets) for targets in graph.values())
    return Figures(len(graph), arrows, floors, back, found)


def _print(name: str, graph: dict[str, set[str]]) -> None:
    counted = figures(graph)
    print(
        f"{name}: {counted.rooms} rooms, {counted.arrows} arrows, {counted.floors} floors, "
        f"{counted.back_up} arrows back up, {len(counted.circles)} circles"
    )
    for circle in counted.circles:
        print("  circle:", " <-> ".join(circle))


def house_circles(package: Path = PACKAGE) -> list[list[str]]:
    """Every import circle of `package`, between modules and between rooms."""
    graph = import_graph(package)
    return circles(graph) + circles(room_graph(graph, package))


def main(argv: list[str]) -> int:
    """Print the figures of the package (or the one named); `--check` fails on a circle."""
    check = "--check" in argv
    named = [arg for arg in argv if arg != "--check"]
    package = Path(named[0]).resolve() if named else PACKAGE
    graph = import_graph(package)
    rooms = room_graph(graph, package)
    engine = f"{package.name}/engine/"
    inside = {r: {t for t in ts if t.startswith(engine)} for r, ts in rooms.items()}
    if check:
        found = house_circles(package)
        for circle in found:
            print("import circle:", " <-> ".join(circle), file=sys.stderr)
        return 1 if found else 0
    _print("modules", graph)
    _print("house", rooms)
    _print("engine", {r: ts for r, ts in inside.items() if r.startswith(engine)})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
