"""A store that is its SQLite database's only writer trusts its kept reads without a probe, until a write it
does not account for (``bot.outside_writes``): a channel's settings, a party's heal pool, the tracker's
message id, a reminder's claim, an undo, a new encounter. Whatever such a write changed, the next change
and the next read see it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import update

from bot import encounters
from bot.encounter_reads import OPEN, load_encounter
from bot.encounter_rows import read_for_change
from bot.encounters import StaleEncounter, edit_encounter, set_tracker_message, start_encounter, undo
from bot.errors import StaleChannel
from bot.models import ChannelConfig, Encounter
from bot.outside_writes import written_table
from bot.parsed_states import parsed_states
from bot.store import Store, channel_key, compare_and_set, versioned_update
from tests.bot.test_encounter_store import GM, HERE, THREAD, FakeBot, refused, setup_fight
from tests.bot.test_encounter_store import bot as bot  # the fixture
from tests.bot.test_kept_reads import seen_by_a_change
from tests.bot.test_lean_change import _condition, statements, what
from tests.databases import ON_POSTGRES

pytestmark = pytest.mark.skipif(ON_POSTGRES, reason="SQLite's only writer; on PostgreSQL a change probes")


@pytest.fixture
def only(bot: FakeBot) -> FakeBot:
    bot.store.sole_writer()
    return bot


async def _read(fake: FakeBot) -> Any:
    """The channel's read as a change would start from it (no lock taken)."""
    counted = fake.store.trusted_count()
    assert counted is not None
    async with fake.store.reading() as session:
        return await read_for_change(
            session, parsed_states(fake.store).reads, HERE.channel_id, None, OPEN, counted
        )


async def test_a_known_encounter_is_changed_and_read_without_a_probe(only: FakeBot) -> None:
    await setup_fight(only)
    await _condition(only, False)
    with statements(only) as seen:
        await _condition(only, True)
    assert [what(s) for s in seen] == ["UPDATE encounter", "UPDATE combatant", "INSERT event_log"], seen
    with statements(only) as seen:
        read = await load_encounter(only, HERE)
    assert seen == [] and read is not None
    assert "prone" not in read.combatant("Ash").conditions


async def test_settings_written_meanwhile_are_read_again(only: FakeBot) -> None:
    await setup_fight(only)
    assert (await seen_by_a_change(only))["dice"] == []
    async with only.store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [3, 4]
    assert (await seen_by_a_change(only))["dice"] == [3, 4]
    await start_encounter(only, THREAD, GM, "In the thread")
    assert (await seen_by_a_change(only, THREAD))["rules"] == {}
    async with only.store.edit_channel(HERE) as edit:  # the thread's parent
        edit.config.house_rules = {"nyra": {"tie_reroll_limit": 2}}
    assert (await seen_by_a_change(only, THREAD))["rules"] == {"tie_reroll_limit": 2}


async def test_the_tracker_message_and_a_reminder_claim_are_read_again(only: FakeBot) -> None:
    eid = await setup_fight(only)
    before = await seen_by_a_change(only)
    assert await set_tracker_message(only, HERE.channel_id, eid, 555, before["tracker_message_id"])
    assert (await seen_by_a_change(only))["tracker_message_id"] == 555
    async with only.store.change(channel_key(HERE.channel_id), across_processes=False) as session:
        assert await compare_and_set(session, Encounter, eid, {"reminders_sent": 0}, {"reminders_sent": 2})
    assert (await seen_by_a_change(only))["reminders_sent"] == 2


async def test_a_new_tracker_message_distrusts_its_own_channels_read_only(only: FakeBot) -> None:
    """A re-posted tracker is told to the kept reads by its writer: its channel's next read asks the
    database (and sees the new id); every other channel's stays trusted, without a probe."""
    eid = await setup_fight(only)
    await start_encounter(only, THREAD, GM, "In the thread")
    before = await seen_by_a_change(only)
    await seen_by_a_change(only, THREAD)
    counted = only.store.trusted_count()
    assert await set_tracker_message(only, HERE.channel_id, eid, 555, before["tracker_message_id"])
    assert only.store.trusted_count() == counted  # not an outside write
    with statements(only) as seen:
        read = await load_encounter(only, THREAD)
    assert seen == [] and read is not None
    with statements(only) as seen:
        read = await load_encounter(only, HERE)
    assert [what(s) for s in seen] == ["SELECT encounter"]  # the probe of the versions
    assert read is not None and read.encounter.tracker_message_id == 555
    assert (await seen_by_a_change(only))["tracker_message_id"] == 555


async def test_a_read_while_a_tracker_message_is_stored_is_read_again(
    only: FakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read confirmed after the tracker's new id was written but before it was committed cannot have seen
    it: the writer tells the reads again once it has committed."""
    eid = await setup_fight(only)
    await _read(only)
    written, go_on = asyncio.Event(), asyncio.Event()

    async def compare_and_set_then_wait(*args: Any) -> bool:
        done = await compare_and_set(*args)
        written.set()
        await go_on.wait()
        return done

    monkeypatch.setattr(encounters, "compare_and_set", compare_and_set_then_wait)
    storing = asyncio.create_task(set_tracker_message(only, HERE.channel_id, eid, 555, None))
    await asyncio.wait_for(written.wait(), 5)
    assert (await _read(only)).encounter.tracker_message_id is None  # not committed yet
    go_on.set()
    assert await asyncio.wait_for(storing, 5)
    assert (await _read(only)).encounter.tracker_message_id == 555


async def test_a_write_committed_after_a_read_was_trusted_is_read_again(only: FakeBot) -> None:
    """A read confirmed after another change wrote a channel's row but before that change committed cannot
    have seen the write: the change's end counts again."""
    await setup_fight(only)
    await _read(only)
    written, go_on = asyncio.Event(), asyncio.Event()

    async def write_then_wait() -> None:
        async with only.store.change(channel_key(HERE.channel_id)) as session:
            config = await session.get(ChannelConfig, HERE.channel_id)
            assert config is not None
            await versioned_update(
                session,
                ChannelConfig,
                HERE.channel_id,
                config.version,
                {"dice_queue": [6]},
                stale=StaleChannel,
            )
            written.set()
            await go_on.wait()

    writing = asyncio.create_task(write_then_wait())
    await asyncio.wait_for(written.wait(), 5)
    assert (await _read(only)).own.dice_queue == []  # not committed yet
    go_on.set()
    await asyncio.wait_for(writing, 5)
    assert (await _read(only)).own.dice_queue == [6]


async def test_another_process_joining_ends_the_trust(only: FakeBot) -> None:
    others: list[bool] = []
    only.store.sole_writer(lambda: not others)
    await setup_fight(only)
    await seen_by_a_change(only)
    others.append(True)  # a second process announced itself (``bot.sole_writer``)
    other = FakeBot(Store(only.store.sessions, only.clock), only.clock)
    async with other.store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [4]
    await _condition(other, False)  # its own save: nothing this store counts
    seen = await seen_by_a_change(only)
    assert seen["dice"] == [4] and only.store.trusted_count() is None


async def test_a_write_outside_any_change_is_read_again(only: FakeBot) -> None:
    """Every write goes through a change; one that does not (a maintenance script's, bumping the row's
    version as every write must) still counts."""
    await setup_fight(only)
    await _read(only)
    async with only.store.sessions() as session:
        await session.exec(
            update(ChannelConfig)
            .where(ChannelConfig.channel_id == HERE.channel_id)
            .values(dice_queue=[2], version=ChannelConfig.version + 1)
        )  # type: ignore[call-overload]
        await session.commit()
    assert (await _read(only)).own.dice_queue == [2]


async def test_an_undo_an_end_and_a_new_encounter_are_seen(only: FakeBot) -> None:
    await setup_fight(only)
    await _condition(only, False)
    await undo(only, HERE, GM, 1)
    read = await load_encounter(only, HERE)
    assert read is not None and "prone" not in read.combatant("Ash").conditions
    async with edit_encounter(only, HERE, GM, "encounter end") as edit:
        edit.set(status="ended")
    assert await load_encounter(only, HERE) is None
    started = await start_encounter(only, HERE, GM, "Second wave")
    read = await load_encounter(only, HERE)
    assert read is not None and read.encounter.id == started.encounter_id


async def test_a_kept_read_someone_unknown_outdated_is_refused_once_then_read_anew(only: FakeBot) -> None:
    """Only a second writer can outdate a trusted read (what the database's writer lock rules out,
    ``bot.sole_writer``): its save is refused, nothing is saved, and the next change asks the database."""
    await setup_fight(only)
    await seen_by_a_change(only)
    other = FakeBot(Store(only.store.sessions, only.clock), only.clock)
    await _condition(other, False)  # a change of its own: nothing this store counts
    with refused(StaleEncounter, "changed"):
        await seen_by_a_change(only)
    async with edit_encounter(only, HERE, GM, "gm note") as edit:
        assert "prone" in edit.combatant("Ash").conditions
        edit.summary = "looked again"


@pytest.mark.parametrize(
    ("statement", "table"),
    [
        ("UPDATE encounter SET version=? WHERE encounter.id = ?", "encounter"),
        ('  update "channel_config" SET x=1', "channel_config"),
        ("INSERT INTO party_instance (channel_id) VALUES (?)", "party_instance"),
        ("INSERT OR REPLACE INTO encounter VALUES (?)", "encounter"),
        ("DELETE FROM combatant WHERE encounter_id = ?", "combatant"),
        ("REPLACE INTO channel_config VALUES (?)", "channel_config"),
        ("SELECT encounter.id FROM encounter", None),
        ("PRAGMA data_version", None),
    ],
)
def test_the_table_a_statement_writes(statement: str, table: str | None) -> None:
    assert written_table(statement) == table
