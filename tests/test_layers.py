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


# --- bot/ never imports cogs/ ---------------------------------------------------------------------------

ROOT = RULES.parent
BOT_FILES = sorted((ROOT / "bot").rglob("*.py"))
TEXT_FILES = sorted((ROOT / "cogs" / "text").rglob("*.py"))
IMPORTERS = {("importlib", "import_module"), ("builtins", "__import__")}


def _all_imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, anywhere (inside functions too), and every module name a call to
    ``import_module``/``__import__`` names with a string: (line, dotted name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in {n for _, n in IMPORTERS} and node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
    return found


def _is_under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("path", BOT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_bot_imports_nothing_from_cogs(path: Path) -> None:
    """The shell returns results and domain errors; the cogs (Discord, text) build on it, never the reverse.
    ``bot.app`` names the extensions it loads (``load_extension("cogs.…")``): that composes the bot with its
    cogs through discord.py's extension mechanism and is not an import."""
    bad = [
        f"{path.name}:{line} imports {name}" for line, name in _all_imports(path) if _is_under(name, "cogs")
    ]
    assert not bad, bad


def test_the_import_check_sees_late_and_importlib_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import importlib\n"
        "def f():\n"
        "    from cogs.encounters import announce_in_channel\n"
        "    return importlib.import_module('cogs.turns')\n",
        encoding="utf-8",
    )
    assert {n for _, n in _all_imports(sample) if _is_under(n, "cogs")} == {
        "cogs.encounters",
        "cogs.encounters.announce_in_channel",
        "cogs.turns",
    }


# --- the text layer touches neither the database nor Discord's client ------------------------------------

# The text layer builds plain values: strings and ``discord.Embed``/``Colour`` data (and uses
# ``discord.utils.escape_*``). It may read the shell's result and error types (``bot.errors``,
# ``bot.reminder_policy``, ``bot.channel_rules``' refusal data), never the database or the client.
TEXT_FORBIDDEN = (
    "sqlalchemy",
    "sqlmodel",
    "aiosqlite",
    "bot.db",
    "bot.store",
    "bot.models",
    "bot.app",
    "bot.encounters",
    "bot.characters",
    "bot.reminders",
    "bot.sheet_files",
    "discord.ext",
    "discord.app_commands",
    "discord.client",
    "discord.Client",
    "discord.Interaction",
    "discord.ui",
    "discord.http",
    "discord.gateway",
    "discord.abc",
)
TEXT_MAY_USE_FROM_COGS = ("cogs.text",)


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_text_layer_touches_neither_database_nor_client(path: Path) -> None:
    bad = [
        f"{path.name}:{line} imports {name}"
        for line, name in _all_imports(path)
        if any(_is_under(name, f) for f in TEXT_FORBIDDEN)
        or (_is_under(name, "cogs") and not any(_is_under(name, c) for c in TEXT_MAY_USE_FROM_COGS))
    ]
    assert not bad, bad


def test_the_text_layer_uses_no_discord_client_objects() -> None:
    """``import discord`` is allowed for ``discord.Embed``/``discord.Colour`` only."""
    allowed = {"Embed", "Colour", "Color", "utils"}
    for path in TEXT_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "discord"
        }
        assert used <= allowed, f"{path.name} uses discord.{sorted(used - allowed)}"


def test_the_layer_checks_see_bot_and_text_files() -> None:
    assert len(BOT_FILES) >= 10 and len(TEXT_FILES) >= 10


# --- the shell and the cogs word no log summary or change reply themselves ------------------------------

COG_FILES = sorted(p for p in (ROOT / "cogs").glob("*.py"))  # the cogs outside their text layer


def _has_words(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str))
        for n in ast.walk(node)
    )


def _worded_here(path: Path) -> list[int]:
    """Lines where ``path`` words a log summary (``….summary = "…"``) or the reply to a change
    (``reply_change(interaction, "…", result)``) itself, with a string or f-string of its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Attribute) and t.attr == "summary" for t in node.targets)
            and _has_words(node.value)
        ):
            found.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "reply_change"
            and len(node.args) > 1
            and _has_words(node.args[1])
        ):
            found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", BOT_FILES + COG_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_summaries_and_change_replies_are_worded_by_the_text_layer(path: Path) -> None:
    """A log row's summary (`/encounter log`, `/gm undo`) and the reply to a change are shown to members:
    ``cogs.text`` words them; the shell's changes are given the wording."""
    assert not _worded_here(path), f"{path.name} words text itself at lines {_worded_here(path)}"


def test_the_wording_check_sees_worded_summaries_and_replies(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "async def f(edit, name, words, interaction, result):\n"
        '    edit.summary = f"{name} opened"\n'
        "    edit.summary = words(name)\n"
        '    await reply_change(interaction, "The fight begins!", result)\n'
        "    await reply_change(interaction, words(name), result)\n",
        encoding="utf-8",
    )
    assert _worded_here(sample) == [2, 4]
