"""Sheets in one go: `/character set` takes several fields at once (all or nothing, every problem listed), a
new sheet says which key fields are unset, and the seed duel's two sheets take at most four commands each."""

from __future__ import annotations

from bot.characters import field_pairs
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import ok, setup_gm


def test_field_pairs_read_names_and_values() -> None:
    assert field_pairs("STR", "7 AGI 6 Swords 7") == [("STR", "7"), ("AGI", "6"), ("Swords", "7")]
    assert field_pairs("physique", "3D+1 agility 2D") == [("physique", "3D+1"), ("agility", "2D")]
    assert field_pairs("Clubs/Maces", "7 Left Arm slight 5") == [
        ("Clubs/Maces", "7"),
        ("Left Arm slight", "5"),
    ]
    assert field_pairs("notes", "a long free text") == [("notes", "a long free text")]
    assert field_pairs("STR", "7") == [("STR", "7")]


async def sheet(fray: Harness, member, name: str, fields: str, skill: str) -> int:
    """The commands a player needs for a seed duelist's sheet; returns how many."""
    commands = [
        ("character create", {"name": name}),
        ("character set", {"field": "STR", "value": f"7 AGI 6 CON 6 {fields}", "character": name}),
        ("character weapon", {"name": "Short Sword", "character": name}),
    ]
    for command, options in commands:
        await ok(fray, member, command, **options)
    return len(commands)


async def test_the_seed_duel_sheets_take_at_most_four_commands_each(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    r = await ok(fray, fray.player, "character create", name="Probe")
    assert "Still unset:" in r.content and "`STR`" in r.content and "value:" in r.content
    assert await sheet(fray, fray.player, "Duelist 1", "Swords 7 Dodge 5 sequence 5", "Dodge") <= 4
    assert await sheet(fray, fray.gm, "Duelist 2", "Swords 7 Defense 5 sequence 4", "Defense") <= 4
    shown = await ok(fray, fray.player, "character show", character="Duelist 1")
    text = str(shown.embeds)
    assert "Swords" in text and "Dodge" in text and "Short Sword" in text
    await ok(fray, fray.gm, "encounter start", name="Friendly duel")
    await ok(fray, fray.player, "encounter join", character="Duelist 1")
    await ok(fray, fray.gm, "encounter join", character="Duelist 2")


async def test_several_fields_are_all_or_nothing_with_every_problem_listed(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    await ok(fray, fray.player, "character create", name="Vale")
    r = await fray.fd.invoke(
        fray.channel, fray.player, "character set", field="STR", value="7 AGI 0 CON -5", character="Vale"
    )
    assert r.ephemeral and "nothing was set" in r.content and "AGI" in r.content and "CON" in r.content
    shown = await ok(fray, fray.player, "character show", character="Vale")
    assert "STR 7" not in str(shown.embeds).replace("**", "")


async def test_the_create_form_fills_the_key_fields_in_one_go(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    r = await fray.fd.invoke(fray.channel, fray.player, "character create", name="Duelist 1", form=True)
    assert r.modal is not None
    ids = [
        c["custom_id"]
        for row in r.modal["components"]
        for c in row.get("components", [row.get("component", {})])
    ]
    assert "field:STR" in ids and "more" in ids
    done = await fray.fd.submit_modal(
        r,
        fray.player,
        {"field:STR": "7", "field:AGI": "6", "field:CON": "6", "more": "Swords 7 Dodge 5 sequence 5"},
    )
    assert not done.ephemeral and "created **Duelist 1**" in done.content
    assert "`STR`" not in done.content and "`MAG`" in done.content  # what is still unset
    await ok(fray, fray.player, "character weapon", name="Short Sword", character="Duelist 1")
    shown = await ok(fray, fray.player, "character show", character="Duelist 1")
    assert "Swords" in str(shown.embeds) and "Dodge" in str(shown.embeds)
    bad = await fray.fd.invoke(fray.channel, fray.player, "character create", name="Bad", form=True)
    refused = await fray.fd.submit_modal(bad, fray.player, {"field:STR": "0"})
    assert refused.ephemeral and "STR" in refused.content
    names = await fray.fd.invoke(fray.channel, fray.player, "character list")
    assert "Bad" not in names.content + str(names.embeds)
