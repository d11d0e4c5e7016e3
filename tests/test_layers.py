"""rules/ is the pure core: it must not import discord, the database, asyncio, the clock or the global random."""

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[1] / "rules"
FORBIDDEN = {
    "discord",
    "sqlmodel",
    "sqlalchemy",
    "aiosqlite",
    "asyncio",
    "time",
    "datetime",
    "os",
    "dotenv",
    "bot",
    "cogs",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


RULE_FILES = sorted(RULES.rglob("*.py"))


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(RULES)))
def test_rules_module_is_pure(path: Path) -> None:
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path} imports {sorted(bad)}"


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(RULES)))
def test_rules_module_never_uses_global_random(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        # random.Random(...) is the owned generator; any other random.<fn> call uses the global one.
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            assert node.attr == "Random", f"{path}:{node.lineno} uses random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert [a.name for a in node.names] == ["Random"], f"{path} imports from random"


def test_the_layer_check_sees_files() -> None:
    assert len(RULE_FILES) >= 5
