"""Command payload validation (pure functions, no server)."""

from __future__ import annotations

from bot.playground.loopback import valid_chat_input_name, validate_commands
from bot.playground.loopback.commands import errors_body


def cmd(name="roll", description="Roll dice", options=None, **kw):
    return {"name": name, "description": description, "type": 1, "options": options or [], **kw}


def opt(name, type=3, description="An option", **kw):
    return {"name": name, "type": type, "description": description, **kw}


def messages(payload) -> list[str]:
    return [str(p) for p in validate_commands(payload)]


def test_names() -> None:
    for ok in ("roll", "gm-system", "a_b", "héros", "攻撃", "ダイス", "x1", "हिन्दी", "ไทย"):
        assert valid_chat_input_name(ok) is None, ok
    for bad in ("Roll", "ÉPÉE", "roll dice", "roll!", "", "x" * 33, "😀"):
        assert valid_chat_input_name(bad) is not None, bad


def test_valid_tree_passes() -> None:
    payload = [
        cmd(options=[opt("expression", required=True), opt("secret", type=5)]),
        cmd(
            "gm",
            "GM tools",
            options=[
                opt("system", type=1, options=[opt("system", choices=[{"name": "D6", "value": "d6"}])]),
                opt("npc", type=2, options=[opt("add", type=1, options=[opt("name", required=True)])]),
            ],
        ),
        {"name": "Inspect", "type": 2, "description": ""},
    ]
    assert messages(payload) == []


def test_each_rule() -> None:
    assert any("lowercase" in m for m in messages([cmd("Roll")]))
    assert any("description must be 1-100" in m for m in messages([cmd(description="")]))
    assert any("description must be 1-100" in m for m in messages([cmd(description="x" * 101)]))
    assert any("(max 25)" in m for m in messages([cmd(options=[opt(f"o{i}") for i in range(26)])]))
    choices = [{"name": f"c{i}", "value": f"c{i}"} for i in range(26)]
    assert any("26 choices" in m for m in messages([cmd(options=[opt("x", choices=choices)])]))
    order = [opt("a"), opt("b", required=True)]
    assert any("required options must be placed before" in m for m in messages([cmd(options=order)]))
    assert any("duplicate option" in m for m in messages([cmd(options=[opt("a"), opt("a")])]))
    assert any("duplicate command" in m for m in messages([cmd(), cmd()]))
    assert any("max 100" in m for m in messages([cmd(f"c{i}") for i in range(101)]))
    both = opt("x", autocomplete=True, choices=[{"name": "a", "value": "a"}])
    assert any("autocomplete cannot be combined" in m for m in messages([cmd(options=[both])]))
    mixed = [opt("sub", type=1), opt("plain")]
    assert any("cannot mix" in m for m in messages([cmd(options=mixed)]))
    deep = opt("g", type=2, options=[opt("g2", type=2, options=[opt("s", type=1)])])
    assert any(
        "groups only at top level" in m or "only hold subcommands" in m
        for m in messages([cmd(options=[deep])])
    )
    nested = opt("s", type=1, options=[opt("s2", type=1)])
    assert any("cannot nest" in m for m in messages([cmd(options=[nested])]))
    assert any(
        "integer choice" in m
        for m in messages([cmd(options=[opt("n", type=4, choices=[{"name": "a", "value": "1"}])])])
    )
    assert any("min_value only" in m for m in messages([cmd(options=[opt("s", min_value=1)])]))
    assert any("Option name" in m or "option name" in m for m in messages([cmd(options=[opt("Bad")])]))


def test_error_body_shape() -> None:
    body = errors_body(validate_commands([cmd("Roll")]))
    assert body["code"] == 50035
    assert body["errors"]["0"]["name"]["_errors"][0]["code"] == "APPLICATION_COMMAND_INVALID_NAME"
