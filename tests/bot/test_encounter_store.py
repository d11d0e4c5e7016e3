"""The encounter change path: lock → one transaction → rules → version-checked save + log row → commit; undo."""

from __future__ import annotations

import contextlib
import gc
import json
import re
from collections.abc import Iterator
from datetime import timedelta
from types import ModuleType
from typing import Any

import pytest
from sqlalchemy import func, select, update

from bot import undo_record
from bot.db import create_engine, migrate, session_factory
from bot.encounter_reads import load_encounter
from bot.encounters import (
    BadName,
    EncounterOpen,
    NoEncounter,
    StaleEncounter,
    UndoRefused,
    edit_encounter,
    snapshot,
    start_encounter,
    undo,
)
from bot.errors import BotError, NoSystem
from bot.models import ChannelConfig, Combatant, Encounter, EventLog, Grapple
from bot.settings import Settings
from bot.store import Store, Where
from cogs.text.errors import describe
from rules.errors import NotAllowed, RulesError
from tests.bot.stand_ins import Clock, FakeBot

HERE = Where(guild_id=1, channel_id=10)
THREAD = Where(guild_id=1, channel_id=11, parent_id=10)
GM = 7


@contextlib.contextmanager
def refused(kind: type[Exception], said: str) -> Iterator[Any]:
    """``pytest.raises(kind)`` whose sentence (as the member reads it) contains ``said``."""
    with pytest.raises(kind) as err:
        yield err
    assert re.search(said, describe(err.value)), describe(err.value)  # type: ignore[arg-type]


@pytest.fixture
async def bot(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    clock = Clock()
    yield FakeBot(Store(session_factory(engine), clock), clock)
    await engine.dispose()


async def db_state(bot: FakeBot, encounter_id: int) -> dict:
    """Every column of the encounter, its combatants and its grapples, as stored."""
    async with bot.store.sessions() as session:
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


async def log_count(bot: FakeBot, encounter_id: int) -> int:
    async with bot.store.sessions() as session:
        found = await session.exec(select(func.count()).where(EventLog.encounter_id == encounter_id))
        return int(found.scalar_one())


async def setup_fight(bot: FakeBot, system: str = "nyra", begin: bool = True) -> int:
    await bot.store.set_system(HERE, system)
    result = await start_encounter(bot, HERE, GM, "Ambush")
    async with edit_encounter(bot, HERE, GM, "encounter add") as edit:
        templates = edit.system.creature_names()
        for i, name in enumerate(("Ash", "Birch", "Cedar")):
            sheet = edit.system.creature_sheet(templates[i % len(templates)], name)
            await edit.add_combatant(
                sheet, name=name, owner_id=None, character_id=None, is_pc=False, side="foes", distance=i
            )
        edit.summary = "added three"
    if begin:
        async with edit_encounter(bot, HERE, GM, "encounter begin") as edit:
            edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))
            edit.summary = "began"
    return result.encounter_id


async def test_start_needs_a_system_and_only_one_open_encounter(bot: FakeBot) -> None:
    with pytest.raises(NoSystem):
        await start_encounter(bot, HERE, GM, "Ambush")
    await bot.store.set_system(HERE, "nyra")
    await start_encounter(bot, HERE, GM, "Ambush")
    with pytest.raises(EncounterOpen):
        await start_encounter(bot, HERE, GM, "Again")
    # a thread inherits the system and holds its own encounter
    thread = await start_encounter(bot, THREAD, GM, "Side fight")
    assert thread.system == "nyra"
    with pytest.raises(BadName):
        await start_encounter(bot, Where(1, 12, 10), GM, "x" * 65)
    with pytest.raises(NoEncounter):
        async with edit_encounter(bot, Where(1, 99), GM, "gm next"):
            pass


@pytest.mark.parametrize("system", ["nyra", "kaernest", "d6"])
async def test_a_change_commits_state_typed_columns_and_one_log_row(bot: FakeBot, system: str) -> None:
    eid = await setup_fight(bot, system, begin=False)
    before = await db_state(bot, eid)
    logs = await log_count(bot, eid)
    bot.clock.now += timedelta(minutes=5)
    async with edit_encounter(bot, HERE, GM, "encounter begin") as edit:
        edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))
        edit.summary = "began"
    result = edit.result
    assert result is not None and result.turn_changed and result.status == "running"
    after = await db_state(bot, eid)
    enc = after["encounter"]
    assert enc["status"] == "running" and enc["version"] == before["encounter"]["version"] + 1
    read = await load_encounter(bot, HERE)
    assert read is not None
    turn, tracker = read.turn(), read.tracker()
    assert enc["turn_key"] == turn.key == result.turn.key
    assert enc["turn_combatant_id"] == (int(turn.actors[0]) if turn.actors else None)
    assert enc["turn_started_at"] == bot.clock.now.isoformat()
    assert (enc["round"], enc["minute"], enc["segment"]) == (tracker.round, tracker.minute, tracker.segment)
    by_id = {c["id"]: c for c in after["combatants"]}
    for row in tracker.order:
        assert by_id[int(row.id)]["initiative"] == row.initiative
        assert by_id[int(row.id)]["conditions"] == list(row.conditions)
    assert await log_count(bot, eid) == logs + 1
    async with bot.store.sessions() as session:
        last = (
            (
                await session.exec(
                    select(EventLog).where(EventLog.encounter_id == eid).order_by(EventLog.seq.desc())
                )
            )
            .scalars()
            .first()
        )
    assert last.command == "encounter begin" and last.summary == "began" and last.actor_id == GM
    assert last.events and all("kind" in e for e in last.events)
    assert last.dice == [d for e in last.events for d in e.get("dice", [])]
    # the record (a reverse patch) gives back the encounter exactly as loaded, from the encounter as stored
    assert undo_record.earlier(after, last.undo) == before
    assert len(json.dumps(last.undo)) < len(json.dumps(before)) / 2


def reachable_from(roots: list[Any], *, skip: set[int]) -> set[int]:
    """Ids of every object reachable from ``roots`` (``gc.get_referents``), not going through ``skip``."""
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or id(obj) in skip or isinstance(obj, type | ModuleType):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return seen


@pytest.mark.parametrize("system", ["nyra", "d6"])
async def test_a_committed_change_lets_go_of_what_it_worked_with(bot: FakeBot, system: str) -> None:
    """Its reply may wait long on Discord (a burst queues hundreds): meanwhile the change keeps only what
    it left, not its rows, its state or its undo snapshot."""
    await setup_fight(bot, system)
    async with edit_encounter(bot, HERE, GM, "gm condition") as edit:
        target = edit.combatant("Birch")
        edit.apply(edit.system.gm_condition(edit.state, str(target.id), "prone", False, edit.house))
        edit.summary = "Birch prone"
        worked_with = {id(edit.combatants), *map(id, edit.combatants), id(edit.before), id(edit.state)}
        shared = {id(edit.bot), id(edit.session), id(edit.system), id(edit.view), id(edit.house)}
        del target
    assert edit.result is not None and edit.result.summary == "Birch prone" and edit.seq > 0
    assert "Birch" in edit.result.names.values()
    with pytest.raises(AttributeError):
        edit.state  # noqa: B018
    assert not worked_with & reachable_from([edit], skip=shared)


async def test_a_rules_error_saves_nothing(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    before = await db_state(bot, eid)
    logs = await log_count(bot, eid)
    with pytest.raises(RulesError):
        async with edit_encounter(bot, HERE, GM, "gm damage") as edit:
            target = edit.combatant("ash")
            edit.apply(edit.system.gm_condition(edit.state, str(target.id), "prone", False, edit.house))
            edit.set(status="ended")
            turn = edit.turn()
            other = next(c for c in edit.combatants if str(c.id) not in turn.actors)
            edit.apply(edit.system.end_turn(edit.state, str(other.id), edit.dice, edit.house))  # not its turn
    assert await db_state(bot, eid) == before
    assert await log_count(bot, eid) == logs


async def test_a_stale_version_is_refused_and_saves_nothing(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    before = await db_state(bot, eid)
    logs = await log_count(bot, eid)
    with refused(StaleEncounter, "Someone else changed the encounter"):
        async with edit_encounter(bot, HERE, GM, "gm condition") as edit:
            target = edit.combatant("Birch")
            edit.apply(edit.system.gm_condition(edit.state, str(target.id), "prone", False, edit.house))
            async with bot.store.sessions() as other, other.begin():  # another process saved meanwhile
                await other.exec(
                    update(Encounter).where(Encounter.id == eid).values(version=Encounter.version + 1)
                )
    after = await db_state(bot, eid)
    assert after["encounter"]["version"] == before["encounter"]["version"] + 1
    after["encounter"]["version"] = before["encounter"]["version"]
    assert after == before
    assert await log_count(bot, eid) == logs


async def test_queued_dice_are_consumed_and_the_rest_saved_back(bot: FakeBot) -> None:
    eid = await setup_fight(bot, "d6", begin=False)
    async with bot.store.edit_channel(HERE) as channel:
        channel.config.dice_queue = [9, 1]
    with pytest.raises(RulesError, match="queued die is 9"):
        async with edit_encounter(bot, HERE, GM, "encounter begin") as edit:
            edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))
    async with bot.store.sessions() as session:
        assert (await session.get(ChannelConfig, HERE.channel_id)).dice_queue == [9, 1]  # untouched
    async with bot.store.edit_channel(HERE) as channel:
        channel.config.dice_queue = [4, 5]
    async with edit_encounter(bot, HERE, GM, "encounter begin") as edit:
        edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))
    async with bot.store.sessions() as session:
        assert (await session.get(ChannelConfig, HERE.channel_id)).dice_queue == []
        log = (
            (
                await session.exec(
                    select(EventLog).where(EventLog.encounter_id == eid).order_by(EventLog.seq.desc())
                )
            )
            .scalars()
            .first()
        )
    assert [(d["value"], d["origin"]) for d in log.dice[:2]] == [(4, "gm"), (5, "gm")]
    assert {d["origin"] for d in log.dice[2:]} == {"random"}


async def test_undo_restores_the_exact_snapshot(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    async with bot.store.sessions() as session, session.begin():  # one reminder was sent for this turn
        await session.exec(
            update(Encounter)
            .where(Encounter.id == eid)
            .values(reminder_due_at=bot.clock.now, reminders_sent=1)
        )
    before = await db_state(bot, eid)
    read = await load_encounter(bot, HERE)
    first_turn = read.turn().key
    bot.clock.now += timedelta(hours=1)
    async with edit_encounter(bot, HERE, GM, "gm condition") as edit:
        edit.apply(
            edit.system.gm_condition(edit.state, str(edit.combatant("Ash").id), "prone", False, edit.house)
        )
        edit.summary = "Ash prone"
    async with edit_encounter(bot, HERE, GM, "encounter remove") as edit:
        await edit.remove_combatant(edit.combatant("Cedar"))
        edit.summary = "Cedar removed"
    async with edit_encounter(bot, HERE, GM, "gm next") as edit:
        edit.apply(edit.system.gm_next(edit.state, edit.dice, edit.house))
        edit.summary = "next"
    changed = await db_state(bot, eid)
    assert changed != before and len(changed["combatants"]) == 2
    with pytest.raises(UndoRefused):
        await undo(bot, HERE, GM, 6)  # five changes since the start: add, begin, condition, remove, next
    result = await undo(bot, HERE, GM, 3)
    assert result.extra["undone"] == ["next", "Cedar removed", "Ash prone"]
    assert result.turn.key == first_turn and result.turn_changed
    after = await db_state(bot, eid)
    assert after["encounter"]["version"] > before["encounter"]["version"]
    after["encounter"]["version"] = before["encounter"]["version"]
    # The turn given back keeps the reminder it already had; its past due time is not written back (that
    # reminder would be sent again), it falls due `after` (24 h by default) from the undo.
    assert after["encounter"]["reminders_sent"] == 1
    assert after["encounter"]["reminder_due_at"] == (bot.clock.now + timedelta(hours=24)).isoformat()
    after["encounter"]["reminder_due_at"] = before["encounter"]["reminder_due_at"]
    assert after == before  # every other column of the encounter, each combatant (same ids) and each grapple
    async with bot.store.sessions() as session:
        rows = (
            (await session.exec(select(EventLog).where(EventLog.encounter_id == eid).order_by(EventLog.seq)))
            .scalars()
            .all()
        )
    assert [r.undone for r in rows] == [False, False, False, True, True, True, False]
    assert rows[-1].command == "gm undo" and rows[-1].undo is None


async def test_undo_never_sends_a_reminder_again(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    due = bot.clock.now + timedelta(hours=2)
    async with bot.store.sessions() as session, session.begin():  # the first reminder is due
        await session.exec(
            update(Encounter)
            .where(Encounter.id == eid)
            .values(reminder_due_at=bot.clock.now - timedelta(minutes=1), reminders_sent=0)
        )
    async with edit_encounter(bot, HERE, GM, "gm condition") as edit:
        edit.apply(
            edit.system.gm_condition(edit.state, str(edit.combatant("Ash").id), "prone", False, edit.house)
        )
        edit.summary = "Ash prone"
    async with bot.store.sessions() as session, session.begin():  # the loop sends it
        await session.exec(
            update(Encounter).where(Encounter.id == eid).values(reminder_due_at=due, reminders_sent=1)
        )
    await undo(bot, HERE, GM, 1)
    async with bot.store.sessions() as session:
        row = await session.get(Encounter, eid)
        assert row is not None
        assert (row.reminders_sent, row.reminder_due_at) == (1, due)  # as sent, not as in the snapshot
        assert "prone" not in str(row.state)


async def test_undo_stops_at_the_start_and_checks_its_steps(bot: FakeBot) -> None:
    await bot.store.set_system(HERE, "nyra")
    await start_encounter(bot, HERE, GM, "Ambush")
    with refused(UndoRefused, "nothing to undo"):
        await undo(bot, HERE, GM, 1)
    for bad in (0, 21):
        with refused(BotError, "steps"):
            await undo(bot, HERE, GM, bad)
    eid = (await load_encounter(bot, HERE)).encounter.id
    empty = await db_state(bot, eid)
    async with edit_encounter(bot, HERE, GM, "encounter add") as edit:
        sheet = edit.system.creature_sheet(edit.system.creature_names()[0], "Ash")
        await edit.add_combatant(
            sheet, name="Ash", owner_id=None, character_id=None, is_pc=False, side="foes", distance=0
        )
        with pytest.raises(BadName):
            edit.check_free_name("ASH")
    with refused(UndoRefused, "Only 1"):
        await undo(bot, HERE, GM, 2)
    await undo(bot, HERE, GM, 1)
    restored = await db_state(bot, eid)
    restored["encounter"]["version"] = empty["encounter"]["version"]
    assert restored == empty


async def test_names_resolve_exactly_then_partially(bot: FakeBot) -> None:
    await setup_fight(bot, begin=False)
    async with edit_encounter(bot, HERE, GM, "gm set") as edit:
        sheet = edit.system.creature_sheet(edit.system.creature_names()[0], "Ash 2")
        await edit.add_combatant(
            sheet, name="Ash 2", owner_id=None, character_id=None, is_pc=False, side="foes", distance=0
        )
        assert edit.combatant("ASH").name == "Ash"  # exact wins over the partial "Ash 2"
        assert edit.combatant("bir").name == "Birch"
        with refused(BadName, "which one"):
            edit.combatant("a")  # Ash, Ash 2, Cedar
        with refused(BadName, "No combatant"):
            edit.combatant("Zed")
        with pytest.raises(NotAllowed):
            edit.system.new_instance(edit.state, edit.house)


def test_the_tracker_embed_summarises_within_discord_limits() -> None:
    from cogs.text.encounters import tracker_embed
    from cogs.text.log import log_embeds
    from rules.encounter import (
        CombatantView,
        GrappleView,
        HealPoolView,
        LocationView,
        TrackerView,
        TurnStatus,
    )

    rows = tuple(
        CombatantView(
            id=str(i),
            name=f"{'N' * 60} {i}",
            side="foes",
            is_pc=i % 2 == 0,
            initiative=100 - i,
            hp=-12345,
            hp_max=99999,
            health="Last Gasp",
            locations=tuple(LocationView(f"location {j}", 123, "critical") for j in range(10)),
            conditions=tuple(f"condition number {j}" for j in range(10)),
            last_gasp_round=3,
            stored_healing=12,
        )
        for i in range(80)
    )
    view = TrackerView(
        system="d6",
        begun=True,
        round=4,
        order=rows,
        current=("0",),
        grapples=tuple(GrappleView(str(i), str(i + 1), 2, str(i + 1)) for i in range(60)),
        heal_pool=HealPoolView(5, 2, 1),
        notes=tuple(f"note {i} " + "x" * 200 for i in range(40)),
    )
    embed = tracker_embed("E" * 200, view, TurnStatus("4.0", ("0",), "Round 4"), "running")
    data = embed.to_dict()
    assert len(data["title"]) <= 256 and len(data["description"]) <= 4096
    assert len(data.get("fields", [])) <= 25 and all(len(f["value"]) <= 1024 for f in data["fields"])
    assert len(embed) <= 6000
    assert "more combatants" in data["description"] and "HP −12345/99999" in data["description"]
    assert "Last Gasp turn 3" in data["description"] and "stored healing 12" in data["description"]
    assert not data["description"].endswith(("-", "1234"))  # whole lines only
    rows_ = [
        {
            "seq": i,
            "actor_id": 1,
            "command": "gm damage",
            "summary": "s" * 150,
            "undone": i % 3 == 0,
            "events": [
                {
                    "kind": "DamageApplied",
                    "target": "1",
                    "amount": 5,
                    "dice": [{"value": 4, "origin": "gm"}] * 30,
                }
            ]
            * 8,
        }
        for i in range(25, 0, -1)
    ]
    embeds = log_embeds("Fight", rows_, {"1": "Ash"}, 40)
    assert sum(len(e) for e in embeds) <= 6000 and len(embeds) <= 10
    assert all(len(e.description or "") <= 4096 for e in embeds)
    assert "More with `page`" in embeds[-1].footer.text
    from cogs.text.log import log_pages

    pages = log_pages(rows_, {"1": "Ash"})
    assert len(pages) > 1 and all(len(t) <= 4096 for p in pages for t in p)
    shown = "\n".join(t for p in pages for t in p)
    assert all(f"**#{i}**" in shown for i in range(1, 26))  # every entry on some page, none cut
    last = log_embeds("Fight", rows_, {"1": "Ash"}, 40, page=len(pages))
    assert f"page {len(pages)} of {len(pages)}" in last[0].title and sum(len(e) for e in last) <= 6000
