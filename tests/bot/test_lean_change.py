"""The change path's statements: the next log row's number comes from the change before (no ``max(seq)``)
while this process made that version; another process's change makes it look the number up again."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import aiosqlite
import pytest
import sqlalchemy as sa
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import db, lean
from bot.encounter_rows import COMBATANTS, GRAPPLES, CombatantRow, GrappleRow
from bot.encounters import edit_encounter
from bot.models import ChannelConfig, Combatant, EventLog, UTCDateTime
from bot.settings import Settings
from bot.store import Store, write_turn
from tests.bot.test_encounter_store import GM, HERE, FakeBot, setup_fight
from tests.bot.test_encounter_store import bot as bot  # the fixture
from tests.databases import ON_POSTGRES


@contextmanager
def statements(fake: FakeBot, told: str = "before_cursor_execute") -> Iterator[list[str]]:
    """The statements the engine's listeners are told of (``after_cursor_execute``: only those SQLAlchemy
    ran itself)."""
    engine = fake.store.sessions.kw["bind"].sync_engine
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(statement)

    event.listen(engine, told, record)
    try:
        yield seen
    finally:
        event.remove(engine, told, record)


ACROSS_PROCESSES = ["LOCK"] if ON_POSTGRES else []


def what(statement: str) -> str:
    """``SELECT encounter``, ``UPDATE combatant``, …: the verb and the (first) table of a statement;
    ``LOCK`` for PostgreSQL's advisory lock (the channel's lock across processes)."""
    if "pg_advisory_xact_lock" in statement:
        return "LOCK"
    found = re.match(
        r"\s*(SELECT)\b.*?\bFROM (\w+)|\s*(UPDATE) (\w+)|\s*(INSERT) INTO (\w+)", statement, re.S
    )
    assert found is not None, statement
    verb, table = [g for g in found.groups() if g]
    return f"{verb} {table}"


async def _condition(fake: FakeBot, remove: bool) -> None:
    async with edit_encounter(fake, HERE, GM, "gm condition") as edit:
        cid = str(edit.combatant("Ash").id)
        edit.apply(edit.system.gm_condition(edit.state, cid, "prone", remove, edit.house))


async def test_the_next_log_number_is_known_without_asking(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    await _condition(bot, False)  # a fresh process would look it up once
    with statements(bot) as seen:
        await _condition(bot, True)
    assert not [s for s in seen if "max(" in s.lower()], seen
    other = FakeBot(Store(bot.store.sessions, bot.clock), bot.clock)  # another process changes it
    await _condition(other, False)
    await _condition(bot, True)
    async with bot.store.sessions() as session:
        seqs = (await session.exec(select(EventLog.seq).where(EventLog.encounter_id == eid))).scalars().all()
    assert sorted(seqs) == list(range(1, len(seqs) + 1))


async def test_a_change_reads_once_and_writes_only_what_changed(bot: FakeBot) -> None:
    """One statement reads the encounter with its channel's settings and party instance (of a version this
    process knows, only their versions: ``tests/bot/test_kept_reads.py``; its rows are not read again); the
    writes are the encounter, the changed combatant and the log row."""
    await setup_fight(bot)
    await _condition(bot, False)
    with statements(bot) as seen:
        await _condition(bot, True)
    assert [what(s) for s in seen] == [
        *ACROSS_PROCESSES,
        "SELECT encounter",  # joined with the channel's settings and party instance
        "UPDATE encounter",
        "UPDATE combatant",
        "INSERT event_log",
    ], seen
    with statements(bot) as seen:
        async with edit_encounter(bot, HERE, GM, "gm note") as edit:
            edit.summary = "a change that changes no combatant"
    assert [what(s) for s in seen] == [
        *ACROSS_PROCESSES,
        "SELECT encounter",
        "UPDATE encounter",
        "INSERT event_log",
    ], seen


async def test_a_change_runs_its_statements_on_the_driver(bot: FakeBot) -> None:
    """The lock across processes (PostgreSQL), the read and the writes go straight to the driver (about
    0.2 ms of CPU less each than through SQLAlchemy); the engine's listeners still see them all. On
    PostgreSQL the transaction is begun as SQLAlchemy's adapter begins it, which commits it."""
    eid = await setup_fight(bot)
    await _condition(bot, False)
    with statements(bot) as seen, statements(bot, "after_cursor_execute") as through_sqlalchemy:
        await _condition(bot, True)
    assert len(seen) == len(ACROSS_PROCESSES) + 4, seen
    assert [what(s) for s in seen[: len(ACROSS_PROCESSES)]] == ACROSS_PROCESSES
    assert through_sqlalchemy == []
    async with bot.store.sessions() as session:  # committed: another connection sees it
        summaries = (
            (await session.exec(select(EventLog.command).where(EventLog.encounter_id == eid))).scalars().all()
        )
    assert summaries.count("gm condition") == 2, summaries


async def test_a_change_asks_the_session_for_its_connection_once_and_flushes_nothing(
    bot: FakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each ask is a trip through SQLAlchemy's greenlet (none on SQLite, where the pool lends a connection
    it holds: ``bot.session_reuse``); the rows are written as plain statements, so the unit of work has
    nothing to flush."""
    await setup_fight(bot)
    await _condition(bot, False)
    asked: list[str] = []
    for name in ("connection", "flush"):
        passed_on = getattr(AsyncSession, name)

        async def counted(self, *args, _name=name, _passed_on=passed_on, **kwargs):  # type: ignore[no-untyped-def]
            asked.append(_name)
            return await _passed_on(self, *args, **kwargs)

        monkeypatch.setattr(AsyncSession, name, counted)
    await _condition(bot, True)
    assert asked == (["connection"] if ON_POSTGRES else []), asked


def handed_off(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The calls handed to aiosqlite's thread from now on."""
    handed: list[str] = []
    passed_on = aiosqlite.Connection._execute

    async def counted(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        handed.append(getattr(fn, "__name__", repr(fn)))
        return await passed_on(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    return handed


async def ash_conditions(fake: FakeBot) -> list[str]:
    async with fake.store.sessions() as session:  # another connection: what is committed
        found = await session.exec(select(Combatant.conditions).where(Combatant.name == "Ash"))
        return list(found.scalar_one())


@pytest.mark.skipif(ON_POSTGRES, reason="aiosqlite's thread: SQLite only")
async def test_a_change_hands_nothing_to_the_drivers_thread(
    bot: FakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-off to aiosqlite's thread and back costs about 80 µs of CPU, and SQLite answers a change's
    statements in microseconds: the read, the writes and the commit run on the loop's thread, and
    SQLAlchemy's own commit and the session's closing rollback, finding nothing to do, hand nothing off."""
    await setup_fight(bot)
    await _condition(bot, False)
    handed = handed_off(monkeypatch)
    with statements(bot) as seen:
        await _condition(bot, True)
    assert len(seen) == 4, seen  # the read and three writes
    assert handed == [], handed
    assert await ash_conditions(bot) == []  # committed


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's write lock")
async def test_a_change_that_must_wait_for_the_write_lock_waits_in_the_drivers_thread(
    bot: FakeBot, bot_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding SQLite's write lock must not stop the loop: the change's writes go to
    aiosqlite's thread, which waits there as the busy timeout says, while the loop serves the rest; once the
    lock is let go the change is saved whole, once."""
    await setup_fight(bot)
    await _condition(bot, False)
    holder = sqlite3.connect(str(bot_settings.database_path), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, held
    handed = handed_off(monkeypatch)
    change = asyncio.create_task(_condition(bot, True))
    ticks = 0
    for _ in range(200):  # bounded: the loop turns while the change waits
        await asyncio.sleep(0.005)
        ticks += 1
        if "_then_commit" in handed and ticks >= 20:
            break
    assert not change.done() and ticks >= 20
    assert await ash_conditions(bot) == ["prone"]  # nothing saved yet
    holder.execute("COMMIT")
    holder.close()
    await asyncio.wait_for(change, 10)
    assert handed[0] == "_then_commit" and handed.count("_then_commit") == 1, handed  # writes and commit
    assert await ash_conditions(bot) == []
    async with bot.store.sessions() as session:
        logged = await session.exec(select(EventLog.command).order_by(EventLog.seq.desc()).limit(2))  # type: ignore[union-attr]
        assert logged.scalars().all() == ["gm condition", "gm condition"]


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's busy timeout")
async def test_a_change_sets_sqlites_busy_timeout_only_when_it_changes(
    bot: FakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements on the loop's thread must not wait (busy timeout 0); the timeout is set when that changes,
    not around every call: a connection that served a change before serves the next without setting it."""
    await setup_fight(bot)
    await _condition(bot, False)
    set_to: list[int] = []
    real = db.set_busy_timeout
    monkeypatch.setattr(db, "set_busy_timeout", lambda conn, ms: (set_to.append(ms), real(conn, ms)))
    for remove in (True, False, True):
        await _condition(bot, remove)
    assert set_to == []
    assert await ash_conditions(bot) == []  # committed
    async with bot.store.reading() as session:  # the connection the changes used, through SQLAlchemy:
        await session.exec(select(Combatant.conditions))  # the timeout back first
    assert set_to == [db.BUSY_TIMEOUT_MS]
    await _condition(bot, False)
    assert set_to == [db.BUSY_TIMEOUT_MS, 0]


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's write lock")
async def test_sqlalchemy_statements_after_the_loops_still_wait_for_the_write_lock(
    bot: FakeBot, bot_settings: Settings
) -> None:
    """On one connection, a statement on the loop's thread (no waiting) and then one SQLAlchemy runs in
    aiosqlite's thread: the second waits for another process's write lock as the busy timeout says, instead
    of failing at once with "database is locked"."""
    holder = sqlite3.connect(str(bot_settings.database_path), isolation_level=None)
    try:
        async with bot.store.change(("test",)) as session:
            assert await lean.select(session, sa.select(ChannelConfig.channel_id), {}) == []
            driver = await session.connection()
            assert not (await driver.get_raw_connection()).driver_connection.waits  # told not to wait
            holder.execute("BEGIN IMMEDIATE")  # the write lock, held for a moment
            asyncio.get_running_loop().call_later(0.3, holder.execute, "COMMIT")
            await write_turn(session)
            session.add(ChannelConfig(channel_id=77, guild_id=1))
            await session.flush()  # SQLAlchemy's INSERT: waits for the lock, then succeeds
    finally:
        holder.close()
    async with bot.store.sessions() as session:
        assert await session.get(ChannelConfig, 77) is not None


def test_a_combatant_row_holds_no_datetimes() -> None:
    """Undo snapshots take a combatant's values as they are (a datetime would need its text form)."""
    import sqlalchemy as sa

    assert not [c.name for c in COMBATANTS.columns if isinstance(c.type, sa.DateTime | UTCDateTime)]


def test_the_plain_rows_have_the_tables_columns() -> None:
    for row, table in ((CombatantRow, COMBATANTS), (GrappleRow, GRAPPLES)):
        assert [f.name for f in dataclasses.fields(row)] == [c.name for c in table.columns]


def test_a_plain_row_keeps_its_models_table_and_columns() -> None:
    """What a change reads is plain data that still names its table (undo snapshots read the columns)."""
    from bot.encounter_rows import plain
    from bot.models import Encounter

    row = plain(Encounter)(id=1, name="Ford", version=3)
    assert type(row).__table__ is Encounter.__table__  # type: ignore[attr-defined]
    assert (row.name, row.version) == ("Ford", 3) and plain(Encounter) is type(row)
