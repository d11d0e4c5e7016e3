"""/character create|set|weapon|armour|show|list and the ``character`` option, through the fake Discord."""

from __future__ import annotations

from typing import Any

import pytest

from bot.characters import CharacterBook, CharacterRecord
from bot.playground.loopback import FakeMember
from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness

SYSTEMS = system_names()
ANY_SYSTEM = system_names()[0]

# a field and value that the system takes, one it refuses, and another system's field it refuses
SAMPLES: dict[str, dict[str, str]] = {
    "nyra": {"field": "STR", "value": "7", "bad": "lots", "foreign": "physique", "foreign_value": "3D+1"},
    "kaernest": {
        "field": "Grace",
        "value": "6",
        "bad": "lots",
        "foreign": "physique",
        "foreign_value": "3D+1",
    },
    "d6": {"field": "physique", "value": "3D+1", "bad": "7", "foreign": "STR", "foreign_value": "7"},
}


def book(fray: Harness) -> CharacterBook:
    assert fray.bot is not None
    return CharacterBook(fray.bot.store)


async def stored(fray: Harness, owner: FakeMember, name: str) -> CharacterRecord | None:
    refs = await book(fray).refs(fray.guild.id, owner_id=owner.id, name=name)
    return await book(fray).get(refs[0].id) if refs else None


async def set_system(fray: Harness, system: str, channel: Any = None) -> None:
    r = await fray.fd.invoke(channel or fray.channel, fray.owner, "gm system", system=system)
    assert not r.ephemeral, r.content


async def invoke(fray: Harness, member: FakeMember, command: str, **options: Any):
    return await fray.fd.invoke(fray.channel, member, command, **options)


# --- create ---------------------------------------------------------------------------------------------


async def test_create_needs_a_system(fray: Harness) -> None:
    r = await invoke(fray, fray.player, "character create", name="Ana")
    assert r.ephemeral and "/gm system" in r.content
    assert await stored(fray, fray.player, "Ana") is None
    r = await invoke(fray, fray.player, "character create", name="Ana", system="kaernest")
    assert not r.ephemeral and "Ana" in r.content and "Kaernest" in r.content
    assert (await stored(fray, fray.player, "Ana")).system == "kaernest"


async def test_a_thread_uses_its_parents_system(fray: Harness) -> None:
    await set_system(fray, ANY_SYSTEM)
    r = await fray.fd.invoke(fray.thread, fray.player, "character create", name="Threaded")
    assert not r.ephemeral, r.content
    assert (await stored(fray, fray.player, "Threaded")).system == ANY_SYSTEM


async def test_duplicate_names_are_refused_ignoring_case(fray: Harness) -> None:
    await set_system(fray, ANY_SYSTEM)
    assert not (await invoke(fray, fray.player, "character create", name="Ana")).ephemeral
    r = await invoke(fray, fray.player, "character create", name="  aNA ")
    assert r.ephemeral and "already have" in r.content
    r = await invoke(fray, fray.owner, "character create", name="Ana")  # another member may
    assert not r.ephemeral
    assert len(await book(fray).refs(fray.guild.id)) == 2


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("x" * 65, "at most 64"),
        ("Ana\nBo", "control characters"),
        ("Ana\u0007", "control characters"),
        ("   ", "needs a name"),
    ],
)
async def test_bad_names_are_refused(fray: Harness, name: str, expected: str) -> None:
    await set_system(fray, ANY_SYSTEM)
    r = await invoke(fray, fray.player, "character create", name=name)
    assert r.ephemeral and expected in r.content
    assert await book(fray).refs(fray.guild.id) == []


async def test_mentions_in_names_ping_nobody(fray: Harness) -> None:
    await set_system(fray, ANY_SYSTEM)
    r = await invoke(fray, fray.player, "character create", name="@everyone <@&1>")
    assert not r.ephemeral
    assert not fray.fd.pings(r).everyone and not fray.fd.pings(r).roles


# --- set / weapon / armour / show, per system -----------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
async def test_a_sheet_is_filled_and_shown(fray: Harness, system: str) -> None:
    rules = get_system(system)
    sample = SAMPLES[system]
    await set_system(fray, system)
    await invoke(fray, fray.player, "character create", name="Ana")
    before = await stored(fray, fray.player, "Ana")

    r = await invoke(fray, fray.player, "character set", field=sample["field"], value=sample["value"])
    assert not r.ephemeral and sample["value"] in r.content, r.content
    after_set = await stored(fray, fray.player, "Ana")
    assert after_set.sheet != before.sheet
    assert after_set.sheet == rules.sheet_to_dict(
        rules.set_sheet_field(rules.new_sheet("Ana"), sample["field"], sample["value"])
    )

    r = await invoke(fray, fray.player, "character set", field=sample["field"], value=sample["bad"])
    assert r.ephemeral and "not changed" in r.content
    r = await invoke(
        fray, fray.player, "character set", field=sample["foreign"], value=sample["foreign_value"]
    )
    assert r.ephemeral, r.content
    assert (await stored(fray, fray.player, "Ana")).sheet == after_set.sheet

    weapon = rules.weapon_names()[0]
    r = await invoke(fray, fray.player, "character weapon", name=weapon)
    assert not r.ephemeral and weapon in r.content
    assert weapon in rules.sheet_weapons((await stored(fray, fray.player, "Ana")).load())
    r = await invoke(fray, fray.player, "character weapon", name="No Such Weapon")
    assert r.ephemeral
    r = await invoke(fray, fray.player, "character weapon", name=weapon, remove=True)
    assert not r.ephemeral and "put away" in r.content
    assert weapon not in rules.sheet_weapons((await stored(fray, fray.player, "Ana")).load())
    await invoke(fray, fray.player, "character weapon", name=weapon)

    armour = rules.armour_names()[0]
    r = await invoke(fray, fray.player, "character armour", name=armour)
    assert not r.ephemeral and armour in r.content, r.content
    expected = rules.set_armour(
        rules.set_weapon(
            rules.set_sheet_field(rules.new_sheet("Ana"), sample["field"], sample["value"]), weapon
        ),
        armour,
    )
    assert (await stored(fray, fray.player, "Ana")).sheet == rules.sheet_to_dict(expected)
    r = await invoke(fray, fray.player, "character armour", name="No Such Armour")
    assert r.ephemeral

    r = await invoke(fray, fray.player, "character show")
    assert not r.ephemeral and len(r.embeds) == 1
    embed = r.embeds[0]
    assert "Ana" in embed["title"]
    shown = r.text
    assert weapon.split(",")[0] in shown
    view = rules.sheet_view(expected)
    assert [f["name"] for f in embed["fields"]][: len(view.sections)] == [s for s, _ in view.sections]
    r = await invoke(fray, fray.player, "character show", character="ana", private=True)
    assert r.ephemeral and r.embeds


async def test_nyra_armour_by_location_and_other_systems_refuse_locations(fray: Harness) -> None:
    for system in list(system_names()):
        rules = get_system(system)
        name = f"Loc {system}"
        await invoke(fray, fray.player, "character create", name=name, system=system)
        r = await invoke(
            fray,
            fray.player,
            "character armour",
            name=rules.armour_names()[0],
            location="Head",
            character=name,
        )
        if system == "nyra":
            assert not r.ephemeral and "Head" in r.content, r.content
        else:
            assert r.ephemeral and "location" in r.content, r.content


async def test_rename_through_set_name(fray: Harness) -> None:
    await set_system(fray, ANY_SYSTEM)
    await invoke(fray, fray.player, "character create", name="Ana")
    await invoke(fray, fray.player, "character create", name="Bo")
    r = await invoke(fray, fray.player, "character set", field="name", value="bo", character="Ana")
    assert r.ephemeral and "already have" in r.content
    r = await invoke(fray, fray.player, "character set", field="Name", value="Anabel", character="Ana")
    assert not r.ephemeral and "Anabel" in r.content
    record = await stored(fray, fray.player, "anabel")
    assert record is not None and get_system(ANY_SYSTEM).sheet_name(record.load()) == "Anabel"


async def test_a_change_to_a_sheet_gone_invalid_says_what_is_wrong(fray: Harness) -> None:
    """The shell's own refusal reaches the member in its words, not as a technical summary."""
    from bot.models import Character
    from bot.store import write_turn

    await set_system(fray, ANY_SYSTEM)
    await invoke(fray, fray.player, "character create", name="Ana")
    ana = await stored(fray, fray.player, "Ana")
    async with fray.bot.store.change(("test", ana.id)) as session:
        await write_turn(session)
        row = await session.get(Character, ana.id)
        row.sheet = {**row.sheet, "bogus_field": 1}
    sample = SAMPLES[ANY_SYSTEM]
    weapon = get_system(ANY_SYSTEM).weapon_names()[0]
    for command, options in (
        ("character set", {"field": sample["field"], "value": sample["value"]}),
        ("character weapon", {"name": weapon}),
    ):
        r = await invoke(fray, fray.player, command, **options)
        assert r.ephemeral and "bogus_field" in r.content, r.content
        assert "StoredSheetInvalid" not in r.content, r.content


# --- which character ------------------------------------------------------------------------------------


async def test_the_character_option_may_be_left_out_only_when_it_is_clear(fray: Harness) -> None:
    systems = list(system_names())
    await set_system(fray, systems[0])
    r = await invoke(fray, fray.player, "character show")
    assert r.ephemeral and "/character create" in r.content
    await invoke(fray, fray.player, "character create", name="Ana")
    if len(systems) > 1:
        await invoke(fray, fray.player, "character create", name="Other", system=systems[1])
    r = await invoke(fray, fray.player, "character show")
    assert not r.ephemeral and "Ana" in r.embeds[0]["title"]  # the only one of this channel's system
    await invoke(fray, fray.player, "character create", name="Bo")
    r = await invoke(fray, fray.player, "character show")
    assert r.ephemeral and "Which character" in r.content and "Ana" in r.content and "Bo" in r.content


async def test_players_act_on_their_own_and_gms_on_anyones(fray: Harness) -> None:
    system = ANY_SYSTEM
    sample = SAMPLES[system]
    await set_system(fray, system)
    await invoke(fray, fray.player, "character create", name="Ana")
    r = await invoke(
        fray, fray.gm, "character set", field=sample["field"], value=sample["value"], character="Ana"
    )
    assert r.ephemeral and "no character" in r.content  # gerd is not a GM yet and has no Ana
    r = await invoke(fray, fray.gm, "character show", character="Ana")
    assert r.ephemeral
    await fray.make_gm_role()
    r = await invoke(
        fray, fray.gm, "character set", field=sample["field"], value=sample["value"], character="Ana"
    )
    assert not r.ephemeral, r.content
    assert (await stored(fray, fray.player, "Ana")).sheet != get_system(system).sheet_to_dict(
        get_system(system).new_sheet("Ana")
    )
    r = await invoke(fray, fray.owner, "character show", character="ana")
    assert not r.ephemeral and "Ana" in r.embeds[0]["title"]
    # two members with an "Ana": the GM must pick one (the autocomplete values are exact)
    await invoke(fray, fray.owner, "character create", name="Bo")
    await invoke(fray, fray.gm, "character create", name="Zed")
    await invoke(fray, fray.player, "character create", name="Zed")
    r = await invoke(fray, fray.owner, "character show", character="Zed")
    assert r.ephemeral and "Several members" in r.content
    choices = await fray.fd.autocomplete(
        fray.channel, fray.owner, "character show", focused="character", value="zed"
    )
    assert len(choices) == 2
    r = await invoke(fray, fray.owner, "character show", character=choices[0]["value"])
    assert not r.ephemeral and "Zed" in r.embeds[0]["title"]
    # a player cannot reach someone else's sheet, even with its exact reference
    zed = (await book(fray).refs(fray.guild.id, owner_id=fray.gm.id, name="Zed"))[0]
    r = await invoke(fray, fray.player, "character show", character=zed.reference)
    assert r.ephemeral and "belongs to another member" in r.content


async def test_list_player_sees_own_gm_sees_all(fray: Harness) -> None:
    await set_system(fray, ANY_SYSTEM)
    await invoke(fray, fray.player, "character create", name="Ana")
    await invoke(fray, fray.player, "character create", name="Bo")
    await invoke(fray, fray.gm, "character create", name="Gerd's NPC")
    r = await invoke(fray, fray.player, "character list")
    assert r.ephemeral and "Ana" in r.content and "Bo" in r.content and "NPC" not in r.content
    r = await invoke(fray, fray.owner, "character list")
    assert r.ephemeral and "(3)" in r.content
    assert "Ana" in r.content and "NPC" in r.content
    assert f"<@{fray.player.id}>" in r.content and f"<@{fray.gm.id}>" in r.content
    r = await invoke(fray, fray.owner, "character list")
    r = await fray.fd.invoke(fray.channel, fray.guild.add_member("newbie"), "character list")
    assert r.ephemeral and "no character" in r.content


# --- autocomplete ---------------------------------------------------------------------------------------


async def test_autocomplete(fray: Harness) -> None:
    system = ANY_SYSTEM
    rules = get_system(system)
    await set_system(fray, system)
    for i in range(30):
        await invoke(fray, fray.player, "character create", name=f"Pia {i:02d}")
    await invoke(fray, fray.owner, "character create", name="Olga's")
    fd = fray.fd
    mine = await fd.autocomplete(fray.channel, fray.player, "character show", focused="character", value="")
    assert len(mine) == 25 and all(c["name"].startswith("Pia") for c in mine)
    some = await fd.autocomplete(
        fray.channel, fray.player, "character show", focused="character", value="pia 2"
    )
    assert [c["name"].split(" (")[0] for c in some] == [f"Pia {i}" for i in range(20, 30)]
    olga = await fd.autocomplete(
        fray.channel, fray.player, "character export", focused="character", value="olga"
    )
    assert olga == []  # not hers
    gm = await fd.autocomplete(fray.channel, fray.owner, "character delete", focused="character", value="")
    assert gm[0]["name"].startswith("Olga's") and len(gm) == 25  # a GM sees everyone's, own first
    fields = await fd.autocomplete(
        fray.channel, fray.player, "character set", focused="field", value="", character="Pia 01"
    )
    assert 0 < len(fields) <= 25
    assert {c["value"] for c in fields} <= {*rules.sheet_fields(), "name"}
    typed = rules.sheet_fields()[0][:2]
    narrowed = await fd.autocomplete(
        fray.channel, fray.player, "character set", focused="field", value=typed, character="Pia 01"
    )
    assert narrowed and all(typed.lower() in c["value"].lower() for c in narrowed)
    weapons = await fd.autocomplete(fray.channel, fray.player, "character weapon", focused="name", value="")
    assert {c["value"] for c in weapons} <= set(rules.weapon_names())  # ambiguous default: the table
    armour = await fd.autocomplete(fray.channel, fray.player, "character armour", focused="name", value="")
    assert {c["value"] for c in armour} == set(rules.armour_names()[:25])
    # a channel without a system and no character chosen: nothing to offer, no error
    other = fray.guild.add_channel("elsewhere")
    assert await fd.autocomplete(other, fray.gm, "character set", focused="field", value="") == []


# --- restart --------------------------------------------------------------------------------------------


async def test_sheets_survive_a_restart(fray: Harness) -> None:
    system = ANY_SYSTEM
    sample = SAMPLES[system]
    await set_system(fray, system)
    await invoke(fray, fray.player, "character create", name="Ana")
    await invoke(fray, fray.player, "character set", field=sample["field"], value=sample["value"])
    before = await stored(fray, fray.player, "Ana")
    await fray.restart()
    after = await stored(fray, fray.player, "Ana")
    assert after == before
    r = await invoke(fray, fray.player, "character show")
    assert not r.ephemeral and "Ana" in r.embeds[0]["title"]
