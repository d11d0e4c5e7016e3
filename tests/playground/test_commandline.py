"""What the page's command box refuses before anything reaches the bot, in the client's words."""

from __future__ import annotations

import base64

import pytest

from bot.playground.commandline import Refusal, focused_options, parse_command
from bot.playground.loopback import FakeDiscord
from bot.playground.table import Table, lay_table

COMMANDS = [
    {
        "name": "roll",
        "type": 1,
        "options": [
            {"type": 3, "name": "expression", "required": True, "max_length": 200},
            {"type": 5, "name": "secret"},
        ],
    },
    {
        "name": "encounter",
        "type": 1,
        "options": [
            {
                "type": 1,
                "name": "log",
                "options": [{"type": 4, "name": "count", "min_value": 1, "max_value": 25}],
            },
            {"type": 1, "name": "join", "options": [{"type": 3, "name": "character", "autocomplete": True}]},
        ],
    },
    {
        "name": "gm",
        "type": 1,
        "options": [
            {"type": 1, "name": "role", "options": [{"type": 8, "name": "role", "required": True}]},
            {
                "type": 1,
                "name": "system",
                "options": [
                    {
                        "type": 3,
                        "name": "system",
                        "required": True,
                        "choices": [{"name": "Nyra", "value": "nyra"}, {"name": "D6", "value": "d6"}],
                    }
                ],
            },
        ],
    },
    {
        "name": "character",
        "type": 1,
        "options": [
            {"type": 1, "name": "import", "options": [{"type": 11, "name": "file", "required": True}]}
        ],
    },
]


@pytest.fixture
def table() -> Table:
    return lay_table(FakeDiscord())


@pytest.mark.parametrize(
    ("words", "options", "refusal"),
    [
        ("summon", {}, "/summon is not a command in this server"),
        ("encounter", {}, "/encounter needs a subcommand: log, join"),
        ("encounter flee", {}, "/encounter has no subcommand flee. Pick one of: log, join"),
        ("roll", {}, "The option expression is required"),
        ("roll", {"expression": "d6", "loud": "yes"}, "/roll has no option loud"),
        ("roll", {"expression": "d6", "secret": "maybe"}, "secret must be True or False"),
        ("roll", {"expression": "d" * 201}, "expression must be at most 200 characters"),
        ("encounter log", {"count": "many"}, "count must be a whole number"),
        ("encounter log", {"count": "2.5"}, "count must be a whole number"),
        ("encounter log", {"count": "0"}, "count must be at least 1"),
        ("encounter log", {"count": "99"}, "count must be at most 25"),
        ("gm system", {"system": "gurps"}, "system must be one of: Nyra, D6"),
        ("gm role", {"role": "Wizards"}, "role must be a role of this server"),
        ("character import", {"file": "sheet.json"}, "file needs a file"),
    ],
)
def test_refusals(table: Table, words: str, options: dict, refusal: str) -> None:
    with pytest.raises(Refusal, match=refusal):
        parse_command(COMMANDS, table, words.split(), options)


def test_values_become_their_types(table: Table) -> None:
    line = parse_command(COMMANDS, table, ["/roll"], {"expression": "2d6+3", "secret": "True"})
    assert (line.path, line.options) == ("roll", {"expression": "2d6+3", "secret": True})
    assert parse_command(COMMANDS, table, ["encounter", "log"], {"count": "3"}).options == {"count": 3}
    assert parse_command(COMMANDS, table, ["gm", "system"], {"system": "d6"}).options == {"system": "d6"}
    assert parse_command(COMMANDS, table, ["gm", "system"], {"system": "Nyra"}).options == {"system": "nyra"}
    assert parse_command(COMMANDS, table, ["encounter", "log"], {"count": " "}).options == {}  # left empty
    file = {
        "filename": "ana.json",
        "data": base64.b64encode(b"{}").decode(),
        "content_type": "application/json",
    }
    sent = parse_command(COMMANDS, table, ["character", "import"], {"file": file}).options
    assert sent == {"file": ("ana.json", b"{}", "application/json")}


def test_autocomplete_sends_partial_input(table: Table) -> None:
    path, options = focused_options(COMMANDS, ["encounter", "join"], {"character": "Ro"}, "character")
    assert (path, options) == ("encounter join", {"character": "Ro"})
    with pytest.raises(Refusal, match="offers no suggestions for count"):
        focused_options(COMMANDS, ["encounter", "log"], {}, "count")
