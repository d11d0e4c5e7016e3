"""The project's modules import each other without a circle, and the layers point one way.

The graph is read from the source (every ``import`` statement, at module level or inside a function), so a
late import that hides a circle from Python is still a circle here. Imports under ``if TYPE_CHECKING:`` are
annotations only (nothing runs them) and are left out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs", "rules", "data")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _project_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:  # Alembic loads these by file, not by import
                continue
            found[_module_name(path)] = path
    return found


MODULES = _project_modules()


def _resolve(name: str) -> str | None:
    """The project module ``name`` stands for (a submodule import, else its nearest package)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of import nodes inside ``if TYPE_CHECKING:`` blocks."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                guarded.update(id(n) for n in ast.walk(inner))
    return guarded


def _imported(module: str, path: Path) -> Iterator[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = _type_checking_only(tree)
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name)
                if target:
                    yield target
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                target = _resolve(f"{source}.{alias.name}") or _resolve(source)
                if target:
                    yield target


def _graph() -> dict[str, set[str]]:
    return {m: {t for t in _imported(m, p) if t != m} for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_the_project() -> None:
    graph = _graph()
    assert len(graph) > 50
    assert "rules.encounter" in graph["rules.systems.registry"]


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_late_imports_count_and_type_only_imports_do_not(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cogs.text import errors\n"
        "def late():\n    from bot import store\n    from . import models\n",
        encoding="utf-8",
    )
    assert sorted(_imported("bot.probe", source)) == ["bot.models", "bot.store"]


def test_no_import_circle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import circles: " + "; ".join(" ↔ ".join(c) for c in cycles)


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [("rules", ("bot", "cogs", "data")), ("bot", ("cogs",))],
)
def test_layers_point_one_way(layer: str, forbidden: tuple[str, ...]) -> None:
    graph = _graph()
    bad = sorted(
        f"{module} → {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == layer
        for target in targets
        if target.split(".")[0] in forbidden
    )
    assert not bad, "\n".join(bad)
