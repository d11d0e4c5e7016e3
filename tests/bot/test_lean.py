"""Statements on the driver connection read and write exactly what SQLAlchemy reads and writes: JSON (a
``None`` included), timezone-aware datetimes, booleans, big integers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError

from bot import lean
from bot.db import create_engine, migrate, session_factory
from bot.models import Encounter, EventLog
from bot.settings import Settings

LOG = EventLog.__table__  # type: ignore[attr-defined]
WHEN = datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)


@pytest.fixture
async def sessions(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    made = session_factory(engine)
    async with made() as session:
        session.add(
            Encounter(
                guild_id=1, channel_id=10, system="d6", name="Ford", started_by=5, state={}, created_at=WHEN
            )
        )
        await session.commit()
    yield made
    await engine.dispose()


def log_values(seq: int, **changes: object) -> dict[str, object]:
    return {
        "encounter_id": 1,
        "seq": seq,
        "actor_id": 2**62,
        "command": "gm damage",
        "summary": "Ash takes 2 — “quoted”, ünïcode",
        "events": [{"kind": "damage", "amount": 2, "nested": {"a": [1, None, True]}}],
        "dice": [],
        "undo": None,
        "undone": False,
        "created_at": WHEN,
        **changes,
    }


INSERT = sa.insert(LOG).values({c.name: sa.bindparam(c.name) for c in LOG.columns if c.name != "id"})
BY_SEQ = sa.select(LOG).where(LOG.c.seq == sa.bindparam("seq"))
STORED = sa.text(
    "SELECT encounter_id, actor_id, command, summary, events, dice, undo, undone, created_at FROM event_log WHERE seq = :seq"
)


async def test_a_lean_insert_stores_what_sqlalchemy_stores(sessions) -> None:
    for undo in (None, {"encounter": {"hp": 3}}):
        async with sessions() as session:
            await session.exec(INSERT, params=log_values(1, undo=undo))  # type: ignore[call-overload]
            await lean.execute(session, INSERT, log_values(2, undo=undo))
            await session.commit()
        async with sessions() as session:
            stored = [(await session.exec(STORED, params={"seq": s})).one() for s in (1, 2)]  # type: ignore[call-overload]
            assert stored[0] == stored[1]
            await session.exec(sa.delete(LOG))  # type: ignore[call-overload]
            await session.commit()


async def test_a_lean_select_reads_what_sqlalchemy_reads(sessions) -> None:
    async with sessions() as session:
        await session.exec(INSERT, params=log_values(1, undone=True, undo={"x": [1, 2]}))  # type: ignore[call-overload]
        await session.commit()
    async with sessions() as session:
        through_sqlalchemy = dict((await session.exec(BY_SEQ, params={"seq": 1})).mappings().one())  # type: ignore[call-overload]
        rows = await lean.select(session, BY_SEQ, {"seq": 1})
    assert rows == [through_sqlalchemy]
    row = rows[0]
    assert row["created_at"] == WHEN and row["created_at"].tzinfo is not None
    assert row["undone"] is True and row["actor_id"] == 2**62 and row["undo"] == {"x": [1, 2]}


async def test_a_lean_update_counts_the_rows_it_matched(sessions) -> None:
    table = Encounter.__table__  # type: ignore[attr-defined]
    update = (
        sa.update(table)
        .where(table.c.id == sa.bindparam("pk"), table.c.version == sa.bindparam("was"))
        .values(version=sa.bindparam("now"), ended_at=sa.bindparam("ended"))
    )
    async with sessions() as session:
        assert await lean.execute(session, update, {"pk": 1, "was": 0, "now": 1, "ended": WHEN}) == 1
        assert await lean.execute(session, update, {"pk": 1, "was": 0, "now": 1, "ended": WHEN}) == 0
        await session.commit()
    async with sessions() as session:
        assert (await session.get(Encounter, 1)).ended_at == WHEN  # type: ignore[union-attr]


def test_a_statement_that_expands_its_parameters_is_refused() -> None:
    from sqlalchemy.dialects import sqlite

    statement = sa.select(LOG).where(LOG.c.command.in_(["a", "b"]))
    with pytest.raises(ValueError, match="IN lists"):
        lean._compile(statement, sqlite.dialect())


async def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(sessions) -> None:
    """Callers catch SQLAlchemy's ``IntegrityError`` (a name another process took first)."""
    async with sessions() as session:
        await lean.execute(session, INSERT, log_values(1))
        with pytest.raises(IntegrityError):  # the log's (encounter, seq) is unique
            await lean.execute(session, INSERT, log_values(1))


async def test_values_written_into_the_statement_are_sent_too(sessions) -> None:
    """A literal in the statement (an anonymous parameter) is sent with the named ones."""
    statement = sa.select(Encounter.__table__.c.name).where(  # type: ignore[attr-defined]
        Encounter.__table__.c.system == "d6",  # type: ignore[attr-defined]
        Encounter.__table__.c.channel_id == sa.bindparam("channel_id"),  # type: ignore[attr-defined]
    )
    async with sessions() as session:
        assert await lean.select(session, statement, {"channel_id": 10}) == [{"name": "Ford"}]
        assert await lean.select(session, statement, {"channel_id": 11}) == []


STALE_AT = (
    sa.update(Encounter.__table__)
    .where(  # type: ignore[attr-defined]
        Encounter.__table__.c.id == sa.bindparam("pk"),  # type: ignore[attr-defined]
        Encounter.__table__.c.version == sa.bindparam("was"),  # type: ignore[attr-defined]
    )
    .values(version=sa.bindparam("now"))
)


class Stale(Exception):
    pass


async def test_a_batch_runs_its_writes_in_order(sessions) -> None:
    writes = [
        lean.Write(STALE_AT, {"pk": 1, "was": 0, "now": 1}, must_match=1, stale=Stale),
        lean.Write(INSERT, [log_values(1), log_values(2)], many=True),
        lean.Write(STALE_AT, {"pk": 1, "was": 1, "now": 2}, must_match=1, stale=Stale),
    ]
    async with sessions() as session:
        await lean.write_all(session, writes)
        await session.commit()
    async with sessions() as session:
        assert (await session.get(Encounter, 1)).version == 2  # type: ignore[union-attr]
        assert [r["seq"] for r in await lean.select(session, sa.select(LOG.c.seq), {})] == [1, 2]


async def test_a_guarded_write_that_matches_nothing_stops_the_batch(sessions) -> None:
    writes = [
        lean.Write(STALE_AT, {"pk": 1, "was": 7, "now": 8}, must_match=1, stale=Stale),  # not version 7
        lean.Write(INSERT, log_values(1)),
    ]
    async with sessions() as session:
        with pytest.raises(Stale):
            await lean.write_all(session, writes)
        assert await lean.select(session, sa.select(LOG.c.seq), {}) == []  # in the same transaction


async def test_a_driver_error_in_a_batch_names_its_statement(sessions) -> None:
    writes = [
        lean.Write(STALE_AT, {"pk": 1, "was": 0, "now": 1}, must_match=1, stale=Stale),
        lean.Write(INSERT, log_values(1)),
        lean.Write(INSERT, log_values(1)),  # the log's (encounter, seq) is unique
    ]
    async with sessions() as session:
        with pytest.raises(IntegrityError) as raised:
            await lean.write_all(session, writes)
    assert "INSERT INTO event_log" in str(raised.value.statement)


async def test_the_engines_listeners_may_rewrite_what_a_lean_statement_sends(sessions) -> None:
    """As on SQLAlchemy's own path (PostgreSQL's NUL guard in ``bot.db`` rewrites text this way)."""
    engine = sessions.kw["bind"].sync_engine

    def rewrite(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if isinstance(parameters, tuple):
            parameters = tuple("hidden" if v == "secret" else v for v in parameters)
        return statement, parameters

    event.listen(engine, "before_cursor_execute", rewrite, retval=True)
    try:
        async with sessions() as session:
            await session.exec(sa.text("SELECT 1"))  # type: ignore[call-overload]  # begins the transaction
            await lean.execute(session, INSERT, log_values(1, command="secret"))
            await session.commit()
    finally:
        event.remove(engine, "before_cursor_execute", rewrite)
    async with sessions() as session:
        assert [r["command"] for r in await lean.select(session, sa.select(LOG.c.command), {})] == ["hidden"]


async def test_the_driver_connection_is_found_without_a_trip_through_the_greenlet(
    sessions, monkeypatch
) -> None:
    from sqlalchemy.ext.asyncio import AsyncConnection

    async with sessions() as session:
        await session.connection()  # a transaction holds its connection, as every change's does

        async def refused(self: AsyncConnection) -> None:
            raise AssertionError("get_raw_connection goes through the greenlet")

        monkeypatch.setattr(AsyncConnection, "get_raw_connection", refused)
        assert len(await lean.select(session, sa.select(LOG.c.id), {})) == 0
