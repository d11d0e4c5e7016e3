"""Encounters through the fake Discord, as members would use them: start, join, add, begin, turns (command,
GM and End turn button), every GM tool, undo, a restart in the middle, status, log, end — for each system
whose adapter exists.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
from typing import Any

import pytest
from sqlalchemy import select

from bot.encounter_reads import load_encounter
from bot.encounters import snapshot
from bot.models import Character, Combatant, Encounter, Grapple
from bot.playground.loopback import FakeMember, FakeMessage, InteractionResult
from bot.store import Where
from cogs.text.encounters import in_play_order
from rules.dice import RandomDice
from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness

SYSTEMS = system_names()
RETIRED_WITHIN = 5.0  # seconds: an old announcement is edited after the click's answer, as REST allows


async def retired(old: FakeMessage) -> bool:
    """Whether ``old`` lost its End turn button, waiting a bounded while: after a restart the bot first looks
    for it in the channel's history, and the fake's quiet spell after an answer need not cover that."""
    for _ in range(int(RETIRED_WITHIN / 0.05)):
        if not any(c.startswith("fray:end-turn:") for c in old.custom_ids):
            return True
        await asyncio.sleep(0.05)
    return False


# --- helpers --------------------------------------------------------------------------------------------


def here(fray: Harness) -> Where:
    return Where(fray.guild.id, fray.channel.id)


async def make_character(fray: Harness, member: FakeMember, name: str, system: str, sheet: Any = None) -> int:
    """A sheet owned by ``member`` (as `/character create` would store it)."""
    assert fray.bot is not None
    adapter = get_system(system)
    sheet = sheet if sheet is not None else adapter.new_sheet(name)
    now = fray.bot.clock()
    async with fray.bot.sessions() as session, session.begin():
        row = Character(
            guild_id=fray.guild.id,
            owner_id=member.id,
            name=name,
            name_key=name.casefold(),
            system=system,
            sheet=adapter.sheet_to_dict(sheet),
            created_at=now,
            updated_at=now,
        )
        session.add(row)
        await session.flush()
        return row.id or 0


async def db_state(fray: Harness, encounter_id: int) -> dict:
    assert fray.bot is not None
    async with fray.bot.sessions() as session:
        enc = await session.get(Encounter, encounter_id)
        rows = (
            (await session.exec(select(Combatant).where(Combatant.encounter_id == encounter_id)))
            .scalars()
            .all()
        )
        grapples = (
            (await session.exec(select(Grapple).where(Grapple.encounter_id == encounter_id))).scalars().all()
        )
        return snapshot(enc, rows, grapples)


def without_version(state: dict) -> dict:
    enc = dict(state["encounter"])
    enc.pop("version")
    return {**state, "encounter": enc}


def announcement(r: InteractionResult) -> FakeMessage:
    """The turn announcement a change posted (the last followup with an End turn button)."""
    found = [m for m in r.followups if any(c.startswith("fray:end-turn:") for c in m.custom_ids)]
    assert found, f"no turn announcement after: {r.content!r}"
    return found[-1]


def as_first_seen(message: FakeMessage) -> FakeMessage:
    """``message`` as a member's client still shows it when a later edit has not reached it (a stale view,
    whose buttons can still be clicked)."""
    return dataclasses.replace(message, components=copy.deepcopy(message.components))


def end_turn_id(message: FakeMessage) -> str:
    return next(c for c in message.custom_ids if c.startswith("fray:end-turn:"))


async def ok(fray: Harness, member: FakeMember, command: str, **options: Any) -> InteractionResult:
    r = await fray.fd.invoke(fray.channel, member, command, **options)
    assert not r.ephemeral, f"/{command} {options} was refused: {r.content}"
    return r


async def refused(
    fray: Harness, member: FakeMember, command: str, expect: str, **options: Any
) -> InteractionResult:
    r = await fray.fd.invoke(fray.channel, member, command, **options)
    assert r.ephemeral, f"/{command} {options} was not refused: {r.content}"
    assert expect.lower() in r.content.lower(), r.content
    return r


async def setup_gm(fray: Harness, system: str) -> None:
    await fray.make_gm_role()
    await ok(fray, fray.gm, "gm system", system=system)


async def current(fray: Harness) -> tuple[Any, Any]:
    assert fray.bot is not None
    read = await load_encounter(fray.bot, here(fray))
    assert read is not None
    return read, read.turn()


# --- the whole flow, per system -------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
async def test_a_fight_from_start_to_end(fray: Harness, system: str) -> None:
    adapter = get_system(system)
    fray.dice.current = RandomDice(11)  # any die; the D6 seed test below scripts every one
    await setup_gm(fray, system)
    templates = adapter.creature_names()
    await make_character(fray, fray.player, "Vale", system, adapter.creature_sheet(templates[0], "Vale"))

    r = await ok(fray, fray.gm, "encounter start", name="Ambush at the ford")
    assert "Ambush at the ford" in r.content
    r = await ok(fray, fray.player, "encounter join")
    assert "Vale" in r.content
    r = await ok(
        fray, fray.gm, "encounter add", name="Raider", template=templates[-1], count=2, side="raiders"
    )
    assert "Raider 1" in r.content and "Raider 2" in r.content
    r = await ok(fray, fray.gm, "encounter status", public=True)
    assert "Setup" in r.embeds[0]["description"]

    r = await ok(fray, fray.gm, "encounter begin", attackers="raiders", surprise=1)
    read, turn = await current(fray)
    assert read.encounter.status == "running"
    tracker = read.tracker()
    if system in ("nyra", "d6"):  # ordered by Sequence / initiative, highest first
        values = [c.initiative for c in tracker.order]
        assert values == sorted(values, reverse=True), values
    order_names = [c.name for c in tracker.order]
    status = await ok(fray, fray.player, "encounter status", public=True)
    shown = status.embeds[0]["description"]
    play_order = [c.name for c in in_play_order(tracker)]  # Kaernest: by when each acts next
    assert [shown.index(n) for n in play_order] == sorted(shown.index(n) for n in play_order)
    assert "▶️" in shown

    # Two full rounds (Kaernest: a bounded number of turns), by every way of ending a turn.
    turns = 2 * len(order_names) if not adapter.traits.segment_timeline else 8
    last_message = announcement(r) if turn.actors else None
    ways = ["gm next", "button", "as"]
    keys = []
    for i in range(turns):
        read, turn = await current(fray)
        assert turn.actors, f"nobody to act at {turn.key}"
        keys.append(turn.key)
        actor = read.combatant(read.names[turn.actors[0]])
        if last_message is not None:  # the announcement names the actor and pings its owner only
            assert actor.name in last_message.content
            pings = fray.fd.pings(last_message)
            assert set(pings) == ({fray.player.id} if actor.owner_id else set()) and not pings.roles
        if actor.owner_id == fray.player.id:
            r = (
                await ok(fray, fray.player, "turn end")
                if i % 2
                else await fray.fd.click(last_message, fray.player, end_turn_id(last_message))
            )
        else:
            way = ways[i % len(ways)]
            if way == "gm next":
                r = await ok(fray, fray.gm, "gm next")
            elif way == "button" and last_message is not None:
                r = await fray.fd.click(last_message, fray.gm, end_turn_id(last_message))
            else:
                r = await ok(fray, fray.gm, "turn end", **{"as": actor.name})
        assert not r.ephemeral, r.content
        last_message = announcement(r)
    assert len(set(keys)) == len(keys)
    read, turn = await current(fray)
    if adapter.traits.segment_timeline:
        assert read.encounter.minute is not None and read.encounter.segment is not None
    else:
        assert read.encounter.round == 3

    # Every GM tool; then undo three changes and compare the stored rows with the snapshot before them.
    target = "Raider 1"
    locations = adapter.damage_locations(read.state, str(read.combatant(target).id))
    await ok(
        fray,
        fray.gm,
        "gm damage",
        target=target,
        amount=2,
        **({"location": locations[0]} if locations else {}),
    )
    await ok(fray, fray.gm, "gm heal", target=target, amount=1)
    field, value = {"nyra": ("side", "bandits"), "kaernest": ("luck", "2"), "d6": ("distance", "4")}[system]
    await ok(fray, fray.gm, "gm set", target="raider 2", field=field, value=value)
    await ok(fray, fray.gm, "gm condition", target="vale", condition="prone")
    await ok(fray, fray.gm, "gm condition", target="vale", condition="prone", remove=True)
    if system == "d6":
        r = await ok(fray, fray.gm, "gm instance")
    else:
        await refused(fray, fray.gm, "gm instance", "D6")
    read, turn = await current(fray)
    before = await db_state(fray, read.encounter.id)
    await ok(fray, fray.gm, "gm condition", target="Raider 2", condition="prone")
    await ok(
        fray,
        fray.gm,
        "gm damage",
        target="Vale",
        amount=1,
        **({"location": locations[0]} if locations else {}),
    )
    r = await ok(fray, fray.gm, "gm next")
    assert await db_state(fray, read.encounter.id) != before
    r = await ok(fray, fray.gm, "gm undo", steps=3)
    assert "Undid 3" in r.content and "prone" in r.content
    assert r.followups and end_turn_id(r.followups[-1])  # the turn went back: announced again
    assert without_version(await db_state(fray, read.encounter.id)) == without_version(before)

    # A restart in the middle: the encounter goes on and the button posted before it still works; the next
    # announcement takes it off, and a client still showing it is told its turn is over.
    old = announcement(r)
    seen = as_first_seen(old)
    bot = await fray.restart()
    assert bot is fray.bot
    read, turn = await current(fray)
    actor = read.combatant(read.names[turn.actors[0]])
    clicker = fray.player if actor.owner_id == fray.player.id else fray.gm
    r = await fray.fd.click(old, clicker, end_turn_id(old))
    assert not r.ephemeral and actor.name in r.content
    await fray.fd.flush()
    assert await retired(old)
    stale = await fray.fd.click(seen, clicker, end_turn_id(seen))
    assert stale.ephemeral and "already over" in stale.content
    shown = await fray.fd.click(old, fray.player, f"fray:status:{read.encounter.id}")
    assert shown.ephemeral and shown.embeds and "Ambush at the ford" in shown.embeds[0]["title"]

    r = await fray.fd.invoke(fray.channel, fray.player, "encounter log", count=25)
    assert r.ephemeral and r.embeds
    log_text = "\n".join(e.get("description", "") for e in r.embeds)
    assert "🎲" in log_text and "(undone)" in log_text
    assert "Undid 3 change(s)" in log_text and "Encounter Ambush at the ford opened" in log_text
    r = await ok(fray, fray.gm, "encounter end")
    assert "over" in r.content
    ended = await fray.fd.invoke(fray.channel, fray.gm, "encounter status")
    assert ended.ephemeral and "no open encounter" in ended.content
    r = await fray.fd.invoke(fray.channel, fray.player, "encounter log", count=1)
    assert r.ephemeral and "The encounter ended" in r.embeds[0]["description"]
    async with fray.bot.sessions() as session:
        row = await session.get(Encounter, read.encounter.id)
        assert row.status == "ended" and row.ended_at is not None  # the record stays readable
    r = await fray.fd.click(old, fray.player, f"fray:status:{read.encounter.id}")
    assert r.ephemeral and "Ended" in r.embeds[0]["description"]
    assert not fray.fd.problems


async def test_the_reminder_loop_can_skip_a_turn(fray: Harness) -> None:
    from bot.encounters import skip_turn
    from cogs._turn_flow import announce_in_channel

    fray.dice.current = RandomDice(2)
    await setup_gm(fray, "nyra")
    nyra = get_system("nyra")
    await make_character(fray, fray.player, "Vale", "nyra", nyra.creature_sheet("Duelist", "Vale"))
    await ok(fray, fray.gm, "encounter start")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="Wolf")
    await ok(fray, fray.gm, "encounter begin")
    read, turn = await current(fray)
    posted = len(fray.fd.channel_messages(fray.channel))
    result = await skip_turn(fray.bot, read.encounter.id, turn.key)
    assert result is not None and result.turn.key != turn.key
    # the reminder sender (cogs.reminders) announces what the skip returned
    await announce_in_channel(fray.bot, read.encounter.channel_id, read.encounter.guild_id, result)
    await fray.fd.flush()
    new = fray.fd.channel_messages(fray.channel)[posted:]
    assert new and any(c.startswith("fray:end-turn:") for c in new[-1].custom_ids)
    assert await skip_turn(fray.bot, read.encounter.id, turn.key) is None  # that turn is over
    after, _ = await current(fray)
    assert after.encounter.version == read.encounter.version + 1
