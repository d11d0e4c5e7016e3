"""The one change path: the store's lock registry, version-checked writes of every kind, starts, migration 0004."""

from __future__ import annotations

import asyncio
import gc
import random
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot import characters, lean
from bot.characters import CharacterBook, StaleCharacter
from bot.db import create_engine, migrate, session_factory
from bot.encounter_reads import load_encounter
from bot.encounters import EncounterOpen, StaleEncounter, edit_encounter, start_encounter
from bot.errors import Stale
from bot.lanes import Lanes
from bot.models import ChannelConfig, Character, Encounter, EventLog, ReminderConfig
from bot.reminders import StaleReminderSettings, save_policy
from bot.settings import Settings
from bot.store import (
    StaleChannel,
    Store,
    Where,
    channel_key,
    characters_key,
    compare_and_set,
    versioned_delete,
    versioned_update,
    write_turn,
)
from cogs.text.errors import describe
from cogs.text.log import opened_summary
from rules.systems.registry import system_names
from tests.bot.stand_ins import Clock, FakeBot
from tests.databases import ON_POSTGRES

HERE = Where(guild_id=1, channel_id=10)
PIA = 100
ROOT = Path(__file__).resolve().parents[2]
SYSTEM = system_names()[0]
WAIT = 2.0  # seconds: every wait in these tests is bounded


@pytest.fixture
async def engine(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield engine
    await engine.dispose()


@pytest.fixture
def store(engine) -> Store:
    return Store(session_factory(engine), Clock())


@pytest.fixture
def bot(store: Store) -> FakeBot:
    return FakeBot(store, store.clock)  # type: ignore[arg-type]


async def bump_version(store: Store, model: type, pk: Any) -> None:
    """Another process saves the row meanwhile (its own connection, committed)."""
    table = model.__table__  # type: ignore[attr-defined]
    (column,) = table.primary_key.columns
    async with store.sessions() as other, other.begin():
        await other.exec(update(table).where(column == pk).values(version=table.c.version + 1))


# --- the lock registry ----------------------------------------------------------------------------------


def test_the_store_keeps_the_only_locks() -> None:
    # The playground's loopback Discord stands in for Discord's servers: its locks guard its own sockets and
    # the page's queue, never Fray's state.
    keeping = re.compile(r"asyncio\.(Lock|Semaphore|Condition)\(|WeakValueDictionary")
    found = [
        path.relative_to(ROOT).as_posix()
        for folder in ("bot", "cogs", "rules")
        for path in (ROOT / folder).rglob("*.py")
        if "playground" not in path.parts and keeping.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["bot/store.py"]


def test_only_the_change_path_opens_a_write_transaction() -> None:
    """A session saves nothing unless its transaction is begun and committed; only ``Store.change`` does
    that. ``bot/db.py`` migrates the schema before the bot serves, the load benchmark (``bot/bench``)
    builds its own database beside Fray, ``bot/lean.py`` commits a change's last writes in their one
    hand-off to SQLite's thread, inside the transaction ``Store.change`` began (``write_all(last=True)``),
    and ``bot/lanes.py`` and ``bot/session_reuse.py`` commit what the sessions ``Store.change`` takes from
    them hold."""
    opening = re.compile(r"\.(begin|commit)\(\)")
    found = [
        path.relative_to(ROOT).as_posix()
        for folder in ("bot", "cogs")
        for path in (ROOT / folder).rglob("*.py")
        if not {"migrations", "bench"} & set(path.parts)
        and path.name != "db.py"
        and opening.search(path.read_text(encoding="utf-8"))
    ]
    assert sorted(found) == ["bot/lanes.py", "bot/lean.py", "bot/session_reuse.py", "bot/store.py"]


async def test_one_lock_per_resource_held_only_while_in_use(store: Store) -> None:
    key = characters_key(1, PIA)
    async with store.lock(key):
        assert store.lock(key) is store.lock(("characters", 1, PIA))
        assert store.lock(key) is not store.lock(characters_key(1, PIA + 1))
        assert store.lock(key) is not store.lock(channel_key(PIA))
        assert store.lock(key).locked()
    gc.collect()
    assert len(store._locks) == 0  # weakly held: nothing stays behind once no change uses it


async def test_changes_to_one_resource_serialise_and_others_do_not_wait(store: Store) -> None:
    order: list[str] = []
    inside = asyncio.Event()
    release = asyncio.Event()

    async def first() -> None:
        async with store.change(channel_key(10)):
            order.append("first in")
            inside.set()
            await asyncio.wait_for(release.wait(), WAIT)
            order.append("first out")

    async def same() -> None:
        async with store.change(channel_key(10)):
            order.append("same in")

    async def other() -> None:
        async with store.change(channel_key(11)):
            order.append("other in")

    holder = asyncio.create_task(first())
    await asyncio.wait_for(inside.wait(), WAIT)
    waiting = asyncio.create_task(same())
    await asyncio.wait_for(other(), WAIT)  # another channel is not blocked by the held one
    await asyncio.sleep(0.05)
    assert order == ["first in", "other in"]  # the same channel waits
    release.set()
    await asyncio.wait_for(asyncio.gather(holder, waiting), WAIT)
    assert order == ["first in", "other in", "first out", "same in"]


def _lent(engine) -> int:
    """Connections lent out now to changes and reads: the pool's, less the lanes kept free for them
    (``bot.lanes``), each of which must hold no transaction."""
    lanes = Lanes.of(engine)
    idle = lanes.idle() if lanes is not None else ()
    for lane in idle:
        assert not lane.driver.in_transaction and not lane.session.in_transaction() and not lane.session.info
    return int(engine.sync_engine.pool.checkedout()) - len(idle)


async def _stored_channels(store: Store) -> set[int]:
    async with store.sessions() as session:
        return set((await session.exec(select(ChannelConfig.channel_id))).scalars())  # type: ignore[call-overload]


async def test_a_change_commits_on_a_clean_exit_and_gives_its_connection_back(engine, store: Store) -> None:
    async with store.change(channel_key(10)) as session:
        await write_turn(session)
        session.add(ChannelConfig(channel_id=10, guild_id=1))
    assert await _stored_channels(store) == {10} and _lent(engine) == 0
    assert not session.in_transaction()


async def test_a_change_that_fails_in_its_block_or_its_commit_saves_nothing(engine, store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.change(channel_key(11)) as session:
            await write_turn(session)
            session.add(ChannelConfig(channel_id=11, guild_id=1))
            await session.flush()
            raise RuntimeError("the rules refused")
    await test_a_change_commits_on_a_clean_exit_and_gives_its_connection_back(engine, store)
    with pytest.raises(sa.exc.IntegrityError):  # the same channel again: refused by the commit's flush
        async with store.change(channel_key(10)) as session:
            await write_turn(session)
            session.add(ChannelConfig(channel_id=12, guild_id=1))
            session.add(ChannelConfig(channel_id=10, guild_id=1))
    assert await _stored_channels(store) == {10} and _lent(engine) == 0


async def _cancelled_inside(block: Any) -> None:
    """Run ``block(inside)`` (it sets ``inside`` once in the block, then waits) and cancel it there."""
    inside = asyncio.Event()
    task = asyncio.create_task(block(inside))
    await asyncio.wait_for(inside.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)


async def test_a_change_cancelled_in_its_block_saves_nothing(engine, store: Store) -> None:
    async def change(inside: asyncio.Event) -> None:
        async with store.change(channel_key(13)) as session:
            await write_turn(session)
            session.add(ChannelConfig(channel_id=13, guild_id=1))
            await session.flush()
            inside.set()
            await asyncio.sleep(WAIT * 10)

    await _cancelled_inside(change)
    assert await _stored_channels(store) == set() and _lent(engine) == 0
    assert not store.lock(channel_key(13)).locked()


async def test_a_read_gives_its_connection_back_however_it_ends(engine, store: Store) -> None:
    async with store.reading() as session:
        assert await session.get(ChannelConfig, 10) is None
    assert _lent(engine) == 0 and not session.in_transaction()
    with pytest.raises(RuntimeError):
        async with store.reading() as session:
            await session.get(ChannelConfig, 10)
            raise RuntimeError("a bad option")
    assert _lent(engine) == 0

    async def read(inside: asyncio.Event) -> None:
        async with store.reading() as session:
            await session.get(ChannelConfig, 10)
            inside.set()
            await asyncio.sleep(WAIT * 10)

    await _cancelled_inside(read)
    assert _lent(engine) == 0


async def test_a_closed_session_keeps_nothing_of_its_transaction(store: Store) -> None:
    """A change's session is kept for the next change or read (a lane's on SQLite, ``bot.lanes``; else
    ``bot.session_reuse``), its ``info`` emptied: that referred to its transaction, a cycle that waited for
    the garbage collector (a storm of changes peaked 5 MB higher). The transaction is freed at once. A lane's
    session is not even begun by statements that run on its driver connection."""
    import weakref

    def transaction_of(session: AsyncSession) -> Any:
        begun = session.sync_session.get_transaction()
        assert (begun is None) == (store._lanes is not None)
        return weakref.ref(begun) if begun is not None else lambda: None

    gc.collect()
    gc.disable()
    try:
        async with store.change(channel_key(10)) as session:
            await lean.select(session, sa.select(ChannelConfig.channel_id), {})  # type: ignore[arg-type]
            changed = transaction_of(session)
        assert changed() is None and not session.info
        kept = session
        async with store.reading() as session:
            await lean.select(session, sa.select(ChannelConfig.channel_id), {})  # type: ignore[arg-type]
            read = transaction_of(session)
        assert read() is None and not session.info
        assert session is kept  # the change's session served the read
    finally:
        gc.enable()


# --- the guarded writes ---------------------------------------------------------------------------------


async def test_versioned_update_and_delete_refuse_a_moved_on_row(store: Store) -> None:
    await store.set_system(HERE, SYSTEM)
    async with store.change(channel_key(HERE.channel_id)) as session:
        assert (
            await versioned_update(session, ChannelConfig, 10, 1, {"dice_queue": [3]}, stale=StaleChannel)
            == 2
        )
    with pytest.raises(StaleChannel):
        async with store.change(channel_key(HERE.channel_id)) as session:
            await versioned_update(session, ChannelConfig, 10, 1, {"dice_queue": [4]}, stale=StaleChannel)
    with pytest.raises(StaleChannel):
        async with store.change(channel_key(HERE.channel_id)) as session:
            await versioned_delete(session, ChannelConfig, 10, 1, stale=StaleChannel)
    async with store.sessions() as session:
        row = await session.get(ChannelConfig, 10)
        assert row is not None and row.dice_queue == [3] and row.version == 2
    async with store.change(channel_key(HERE.channel_id)) as session:
        assert not await compare_and_set(session, ChannelConfig, 10, {"system": None}, {"dice_queue": []})
        assert await compare_and_set(session, ChannelConfig, 10, {"system": SYSTEM}, {"dice_queue": []})


async def test_a_stale_channel_edit_is_refused_and_saves_nothing(store: Store) -> None:
    await store.set_system(HERE, SYSTEM)
    with pytest.raises(StaleChannel):
        async with store.edit_channel(HERE) as edit:
            edit.config.dice_queue = [6, 6]
            await bump_version(store, ChannelConfig, HERE.channel_id)
    async with store.sessions() as session:
        row = await session.get(ChannelConfig, HERE.channel_id)
        assert row is not None and row.dice_queue == [] and row.version == 2  # only the other write


async def test_a_channel_row_created_by_someone_else_first_is_stale(store: Store) -> None:
    with pytest.raises(StaleChannel):
        async with store.edit_channel(HERE) as edit:
            edit.config.system = SYSTEM
            async with store.sessions() as other, other.begin():
                other.add(ChannelConfig(channel_id=HERE.channel_id, guild_id=1, dice_queue=[2]))
    async with store.sessions() as session:
        row = await session.get(ChannelConfig, HERE.channel_id)
        assert row is not None and row.system is None and row.dice_queue == [2]


async def test_a_stale_encounter_change_saves_nothing_not_even_the_dice_queue(bot: FakeBot) -> None:
    store = bot.store
    await store.set_system(HERE, SYSTEM)
    await start_encounter(bot, HERE, 7, "Ambush")
    async with store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [1]
    read = await load_encounter(bot, HERE)
    assert read is not None
    with pytest.raises(StaleEncounter):
        async with edit_encounter(bot, HERE, 7, "gm note") as edit:
            edit.dice.roll(6)  # uses the queued die: the queue would be saved back too
            await bump_version(store, Encounter, read.encounter.id)
    async with store.sessions() as session:
        logs = (
            await session.exec(select(func.count()).where(EventLog.encounter_id == read.encounter.id))
        ).one()
        assert logs[0] == 1
        assert (await session.get(ChannelConfig, HERE.channel_id)).dice_queue == [1]


async def test_an_encounter_change_whose_channel_moved_on_is_stale(bot: FakeBot) -> None:
    store = bot.store
    await store.set_system(HERE, SYSTEM)
    async with store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [1, 1]
    await start_encounter(bot, HERE, 7, "Ambush")
    read = await load_encounter(bot, HERE)
    assert read is not None
    with pytest.raises(StaleChannel):
        async with edit_encounter(bot, HERE, 7, "gm note") as edit:
            edit.dice.roll(6)  # uses a queued die: the queue is saved back, version-checked
            await bump_version(store, ChannelConfig, HERE.channel_id)
    after = await load_encounter(bot, HERE)
    assert after is not None and after.encounter.version == read.encounter.version


async def test_a_stale_character_change_is_refused_and_saves_nothing(store: Store, monkeypatch) -> None:
    book = CharacterBook(store)
    ana = await book.create(1, PIA, "Ana", SYSTEM)

    async def someone_else_saves_first(*args: Any, **kwargs: Any) -> int:
        await bump_version(store, Character, ana.id)  # between this change's load and its write
        return await versioned_update(*args, **kwargs)

    monkeypatch.setattr(characters, "versioned_update", someone_else_saves_first)
    with pytest.raises(StaleCharacter) as refused:
        await book.rename(ana, "Bea")
    assert "try again" in describe(refused.value)
    monkeypatch.undo()
    stored = await book.get(ana.id)
    assert stored is not None and stored.name == "Ana" and dict(stored.sheet) == dict(ana.sheet)
    assert stored.version == ana.version + 1  # only the other write
    assert isinstance(StaleCharacter(), Stale)


async def test_character_writes_count_versions_and_a_stale_delete_keeps_the_row(
    store: Store, monkeypatch
) -> None:
    book = CharacterBook(store)
    ana = await book.create(1, PIA, "Ana", SYSTEM)
    assert ana.version == 0
    renamed = await book.rename(ana, "Bea")
    assert renamed.after.version == 1 and renamed.after.name == "Bea"
    rules = renamed.after.rules
    saved, replaced = await book.save_import(1, PIA, SYSTEM, rules.sheet_from_dict(renamed.after.sheet))
    assert replaced is not None and replaced.version == 1 and saved.version == 2
    assert (await book.get(ana.id)) == saved

    async def someone_else_saves_first(*args: Any, **kwargs: Any) -> None:
        await bump_version(store, Character, ana.id)
        await versioned_delete(*args, **kwargs)

    monkeypatch.setattr(characters, "versioned_delete", someone_else_saves_first)
    with pytest.raises(StaleCharacter):
        await book.delete(ana.id)
    monkeypatch.undo()
    assert (await book.get(ana.id)) is not None
    assert (await book.delete(ana.id)) is not None and (await book.get(ana.id)) is None


async def test_reminder_settings_writes_are_versioned(store: Store) -> None:
    await save_policy(store, HERE, 7, {"max_reminders": 3}, store.clock())
    await save_policy(store, HERE, 7, {"after": timedelta(hours=2)}, store.clock())
    async with store.sessions() as session:
        row = await session.get(ReminderConfig, HERE.channel_id)
        assert row is not None and row.version == 1 and row.max_reminders == 3 and row.after_seconds == 7200
    with pytest.raises(StaleReminderSettings):
        async with store.change(channel_key(HERE.channel_id)) as session:
            await versioned_update(
                session, ReminderConfig, HERE.channel_id, 0, {"enabled": False}, stale=StaleReminderSettings
            )


# --- opening an encounter -------------------------------------------------------------------------------


async def test_start_goes_through_the_change_path(bot: FakeBot) -> None:
    await bot.store.set_system(HERE, SYSTEM)
    result = await start_encounter(bot, HERE, 7, "Ambush", summary=opened_summary)
    async with bot.store.sessions() as session:
        encounter = await session.get(Encounter, result.encounter_id)
        log = (
            (await session.exec(select(EventLog).where(EventLog.encounter_id == result.encounter_id)))
            .scalars()
            .all()
        )
    assert encounter is not None and encounter.version == 1 and encounter.status == "setup"
    assert [(r.seq, r.command, r.undo, r.summary) for r in log] == [
        (1, "encounter start", None, "Encounter Ambush opened")
    ]
    assert (
        result.summary == "Encounter Ambush opened" and result.status == "setup" and result.combatants == ()
    )


async def test_two_starts_in_one_channel_one_wins(bot: FakeBot) -> None:
    await bot.store.set_system(HERE, SYSTEM)
    results = await asyncio.wait_for(
        asyncio.gather(
            *(start_encounter(bot, HERE, 7, f"Fight {n}") for n in range(3)), return_exceptions=True
        ),
        WAIT * 5,
    )
    won = [r for r in results if not isinstance(r, BaseException)]
    assert len(won) == 1
    assert all(isinstance(r, EncounterOpen) for r in results if isinstance(r, BaseException))


async def test_two_processes_starting_at_once_open_one(engine, bot: FakeBot) -> None:
    await bot.store.set_system(HERE, SYSTEM)
    other = FakeBot(Store(session_factory(engine), bot.clock), bot.clock)  # its own locks, like a 2nd process
    results = await asyncio.wait_for(
        asyncio.gather(
            start_encounter(bot, HERE, 7, "Mine"),
            start_encounter(other, HERE, 8, "Theirs"),
            return_exceptions=True,
        ),
        WAIT * 5,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, EncounterOpen) for r in results if isinstance(r, BaseException))
    async with bot.store.sessions() as session:
        count = (await session.exec(select(func.count()).select_from(Encounter))).one()
        assert count[0] == 1


# --- migration 0004 -------------------------------------------------------------------------------------


async def test_migration_0004_gives_existing_characters_a_version(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        assert await migrate(engine, "0003") == "0003"
        async with engine.begin() as conn:
            await conn.execute(
                sa.text(
                    "INSERT INTO character (guild_id, owner_id, name, name_key, system, sheet, created_at,"
                    " updated_at) VALUES (1, :owner, 'Ana', 'ana', :system, '{}', :at, :at)"
                ),
                {"owner": PIA, "system": SYSTEM, "at": datetime(2026, 1, 1)},
            )
            await conn.execute(sa.text("INSERT INTO reminder_config (channel_id, guild_id) VALUES (10, 1)"))
        assert await migrate(engine, "0004") == "0004"
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.text("SELECT name, version FROM character"))).all()
            reminders = (await conn.execute(sa.text("SELECT channel_id, version FROM reminder_config"))).all()
        assert [tuple(r) for r in rows] == [("Ana", 0)]
        assert [tuple(r) for r in reminders] == [(10, 0)]
        store = Store(session_factory(engine), Clock())
        async with store.change(characters_key(1, PIA)) as session:
            assert (
                await versioned_update(session, Character, 1, 0, {"name": "Bea"}, stale=StaleCharacter) == 1
            )
    finally:
        await engine.dispose()


@pytest.mark.skipif(ON_POSTGRES, reason="PostgreSQL: a change's round trips order the entries too")
async def test_changes_take_the_pools_connections_in_the_order_they_asked(bot_settings: Settings) -> None:
    """The pool's own queue lets a newcomer take a connection given back before the change woken for it
    runs, and that change queues again at the end; the store's gate keeps arrival order. Forty changes to
    forty channels arrive a few steps apart over a pool of two connections."""
    engine = create_engine(
        bot_settings.database_url, database_path=bot_settings.database_path, pool_size=2, max_overflow=0
    )
    await migrate(engine)
    store = Store(session_factory(engine), Clock())
    steps = random.Random(1)
    asked: list[int] = []
    entered: list[int] = []

    async def change(channel: int) -> None:
        asked.append(channel)
        async with store.change(channel_key(channel)):
            entered.append(channel)
            for _ in range(steps.randrange(1, 4)):
                await asyncio.sleep(0)

    try:
        await asyncio.gather(change(100), change(101))  # both connections made
        asked.clear()
        entered.clear()
        changes = []
        for channel in range(40):
            changes.append(asyncio.create_task(change(channel)))
            for _ in range(steps.randrange(0, 3)):
                await asyncio.sleep(0)
        await asyncio.gather(*changes)
    finally:
        await engine.dispose()
    assert entered == asked
