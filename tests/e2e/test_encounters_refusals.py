"""Every refusal of the encounter commands is ephemeral, says what to do, and changes nothing."""

from __future__ import annotations

import statistics
import time

import pytest

from bot.encounter_reads import load_encounter
from bot.store import Where
from cogs._autocomplete_encounters import combatant_choices
from rules.dice import RandomDice
from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import (
    announcement,
    as_first_seen,
    current,
    db_state,
    end_turn_id,
    here,
    make_character,
    ok,
    refused,
    setup_gm,
)


async def test_refusals_change_nothing(fray: Harness) -> None:
    nyra = get_system("nyra")
    fray.dice.current = RandomDice(5)
    await fray.make_gm_role()
    await refused(fray, fray.gm, "encounter start", "/gm system")
    await ok(fray, fray.gm, "gm system", system="nyra")
    await refused(fray, fray.player, "encounter status", "no open encounter")
    await refused(fray, fray.player, "turn end", "no open encounter")
    await refused(fray, fray.gm, "gm next", "no open encounter")
    await refused(fray, fray.player, "encounter start", "Only a GM")
    await refused(fray, fray.gm, "encounter start", "at most 64", name="x" * 65)
    await refused(fray, fray.gm, "encounter start", "control characters", name="bell\x07")

    await ok(fray, fray.gm, "encounter start", name="Ford")
    await refused(fray, fray.gm, "encounter start", "already open", name="Second")
    await refused(fray, fray.player, "encounter join", "/character create")
    await make_character(fray, fray.player, "Mico", "kaernest")
    await refused(fray, fray.player, "encounter join", "Kaernest character", character="Mico")
    await refused(fray, fray.player, "encounter join", "/character create", character="Nobody")
    await make_character(fray, fray.player, "Vale", "nyra", nyra.creature_sheet("Duelist", "Vale"))
    await refused(fray, fray.player, "encounter join", "`distance` must be from 0 to 1000", distance=-1)
    await ok(fray, fray.player, "encounter join")
    await refused(fray, fray.player, "encounter join", "already in this encounter", character="vale")
    await refused(fray, fray.player, "encounter add", "Only a GM", name="Wolf", template="Wolf")
    await refused(fray, fray.gm, "encounter add", "already in this encounter", name="VALE", template="Wolf")
    await refused(
        fray, fray.gm, "encounter add", "`count` must be from 1 to 20", name="Wolf", template="Wolf", count=21
    )
    await refused(fray, fray.gm, "encounter add", "no creature template", name="Wolf", template="Dragon")
    await refused(fray, fray.gm, "encounter add", "no saved sheet", name="Wolf")
    await refused(fray, fray.gm, "encounter add", "at most 64", name="W" * 62, template="Wolf", count=20)
    await ok(fray, fray.gm, "encounter add", name="Raider", template="Bandit", count=2)
    await refused(fray, fray.player, "turn end", "has not begun")
    await refused(fray, fray.gm, "gm next", "has not begun")
    await refused(fray, fray.gm, "encounter begin", "`surprise` must be from -100 to 100", surprise=101)

    read, _ = await current(fray)
    before = await db_state(fray, read.encounter.id)
    await ok(fray, fray.gm, "encounter begin")
    await refused(fray, fray.gm, "encounter begin", "already begun")
    read, turn = await current(fray)
    # make sure an NPC holds the turn, then try everything a player must not do
    while read.combatant(read.names[turn.actors[0]]).owner_id is not None:
        await ok(fray, fray.player, "turn end")
        read, turn = await current(fray)
    r = await ok(fray, fray.gm, "gm set", target="raider 1", field="side", value="bandits")  # no turn change
    r = await ok(fray, fray.gm, "gm next")
    read, turn = await current(fray)
    while read.combatant(read.names[turn.actors[0]]).owner_id is not None:
        r = await ok(fray, fray.player, "turn end")
        read, turn = await current(fray)
    npc_turn = announcement(r)
    mid = await db_state(fray, read.encounter.id)

    await refused(fray, fray.player, "turn end", "not your turn")
    await refused(fray, fray.player, "turn end", "Only a GM", **{"as": "Raider 1"})
    outsider = fray.guild.add_member("otto")
    await refused(fray, outsider, "turn end", "do not control")
    r = await fray.fd.click(npc_turn, fray.player, end_turn_id(npc_turn))
    assert r.ephemeral and "not your turn to end" in r.content
    await refused(fray, fray.gm, "gm damage", "No combatant", target="Zed", amount=3)
    await refused(fray, fray.gm, "gm damage", "which one", target="raider", amount=3)
    await refused(fray, fray.gm, "gm damage", "`amount` must be from 1 to 1000", target="Raider 1", amount=0)
    await refused(fray, fray.gm, "gm heal", "`amount` must be from 1 to 1000", target="Raider 1", amount=1001)
    await refused(fray, fray.gm, "gm instance", "D6")
    await refused(fray, fray.gm, "gm undo", "`steps` must be from 1 to 20", steps=0)
    await refused(fray, fray.gm, "gm undo", "`steps` must be from 1 to 20", steps=21)
    await refused(fray, fray.player, "gm undo", "Only a GM")
    await refused(fray, fray.player, "encounter end", "Only a GM")
    await refused(fray, fray.player, "encounter log", "`count` must be from 1 to 25", count=26)
    assert await db_state(fray, read.encounter.id) == mid  # not even the version moved

    seen = as_first_seen(npc_turn)  # a client the edit taking its End turn off has not reached yet
    await fray.restart()
    r = await ok(fray, fray.gm, "gm next")
    stale = await fray.fd.click(seen, fray.gm, end_turn_id(seen))
    assert stale.ephemeral and "already over" in stale.content
    r = await fray.fd.invoke(fray.channel, fray.gm, "gm undo", steps=20)
    assert r.ephemeral and "can be undone" in r.content
    assert before["encounter"]["status"] == "setup"


async def test_a_thread_holds_its_own_encounter_in_the_inherited_system(fray: Harness) -> None:
    await setup_gm(fray, "kaernest")
    await ok(fray, fray.gm, "encounter start", name="Main")
    r = await fray.fd.invoke(fray.thread, fray.gm, "encounter start", name="Side")
    assert not r.ephemeral and "Kaernest" in r.content
    thread = await load_encounter(fray.bot, Where(fray.guild.id, fray.thread.id, fray.channel.id))
    main = await load_encounter(fray.bot, here(fray))
    assert thread.encounter.name == "Side" and main.encounter.name == "Main"
    assert thread.encounter.system == "kaernest"


async def test_the_starter_of_the_running_encounter_is_a_gm_there(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    fray.dice.current = RandomDice(3)
    await ok(fray, fray.gm, "encounter start")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="Wolf")
    await ok(fray, fray.gm, "encounter begin")
    fray.guild.update_member(fray.gm, roles=[])  # loses the GM role, still runs this fight
    await ok(fray, fray.gm, "gm next")
    r = await fray.fd.invoke(fray.thread, fray.gm, "encounter start", name="Elsewhere")
    assert r.ephemeral and "Only a GM" in r.content


async def test_autocomplete_answers_from_this_channel(fray: Harness) -> None:
    await setup_gm(fray, "nyra")
    await make_character(fray, fray.player, "Vale", "nyra")
    await make_character(fray, fray.player, "Valerie", "nyra")
    await make_character(fray, fray.player, "Mico", "kaernest")
    choices = await fray.fd.autocomplete(
        fray.channel, fray.player, "encounter join", focused="character", value=""
    )
    assert [c["name"] for c in choices] == ["Vale", "Valerie"]  # only this channel's system
    await ok(fray, fray.gm, "encounter start")
    choices = await fray.fd.autocomplete(
        fray.channel, fray.gm, "encounter add", name="x", focused="template", value="WOL"
    )
    assert [c["name"] for c in choices] == ["Wolf"]
    await ok(fray, fray.gm, "encounter add", name="Raider", template="Bandit", count=20)
    choices = await fray.fd.autocomplete(
        fray.channel, fray.gm, "gm damage", focused="target", value="raider 1", target="raider 1", amount=1
    )
    assert [c["name"] for c in choices] == ["Raider 1", *(f"Raider {i}" for i in range(10, 20))]
    choices = await fray.fd.autocomplete(
        fray.channel, fray.gm, "gm damage", focused="location", value="", target="Raider 3", amount=1
    )
    assert choices and all(isinstance(c["value"], str) for c in choices)
    choices = await fray.fd.autocomplete(
        fray.channel, fray.gm, "gm set", focused="field", value="SEQ", target="Raider 3"
    )
    assert [c["name"] for c in choices] == ["sequence"]
    choices = await fray.fd.autocomplete(
        fray.channel, fray.gm, "gm condition", focused="condition", value="pro", target="Raider 3"
    )
    assert [c["name"] for c in choices] == ["prone"]
    choices = await fray.fd.autocomplete(fray.channel, fray.player, "turn end", focused="as", value="")
    assert len(choices) == 20
    elsewhere = await fray.fd.autocomplete(
        fray.thread, fray.gm, "gm damage", focused="target", value="", amount=1
    )
    assert elsewhere == []


@pytest.mark.slow
async def test_autocomplete_answers_within_50_ms(fray: Harness) -> None:
    """A benchmark (``-m slow``): Discord gives autocomplete 3 s, a member types faster than that."""
    await setup_gm(fray, "nyra")
    await ok(fray, fray.gm, "encounter start")
    await ok(fray, fray.gm, "encounter add", name="Raider", template="Bandit", count=20)
    where = here(fray)
    await combatant_choices(fray.bot, where, "")  # warm up
    timings = []
    for _ in range(15):
        started = time.perf_counter()
        answer = await combatant_choices(fray.bot, where, "raider")
        timings.append(time.perf_counter() - started)
    assert len(answer) == 20
    median = statistics.median(timings)
    assert median < 0.050, f"combatant autocomplete took {median * 1000:.1f} ms"
    timings = []
    for _ in range(15):
        started = time.perf_counter()
        read = await load_encounter(fray.bot, where)
        read.system.damage_locations(read.state, str(read.combatants[5].id))
        timings.append(time.perf_counter() - started)
    median = statistics.median(timings)
    assert median < 0.050, f"location autocomplete took {median * 1000:.1f} ms"


async def test_npc_hp_is_a_word_unless_a_gm_shows_numbers(fray: Harness) -> None:
    d6 = get_system("d6")
    fray.dice.current = RandomDice(3)
    await setup_gm(fray, "d6")
    await make_character(fray, fray.player, "Ayla", "d6", d6.new_sheet("Ayla"))
    await ok(fray, fray.gm, "encounter start", name="Road")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter add", name="Thug", template=d6.creature_names()[0], side="foes")
    await ok(fray, fray.gm, "gm damage", target="Thug", amount=2)

    def line(r, name: str) -> str:
        return next(x for x in r.embeds[0]["description"].splitlines() if f"**{name}**" in x)

    plain = await ok(fray, fray.player, "encounter status", public=True)
    assert (
        "HP" in line(plain, "Ayla") and "HP" not in line(plain, "Thug") and "wounded" in line(plain, "Thug")
    )
    await refused(fray, fray.player, "encounter status", "Only a GM can show NPC numbers", numbers=True)
    shown = await ok(fray, fray.gm, "encounter status", numbers=True, public=True)
    assert "HP" in line(shown, "Thug")
