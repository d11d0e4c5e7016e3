"""Sessions reused by the change path and its reads; on SQLite begun and closed without the greenlet only
where nothing of it awaits, and through it everywhere else.

On SQLite a store takes these only where it has no lane free (``bot.lanes``, tested in ``test_lanes``): the
database here has a pool with no room for lanes, so every change and read takes one."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession as SAAsyncSession

from bot import lean
from bot.db import create_engine, migrate, session_factory
from bot.errors import StaleChannel
from bot.models import ChannelConfig, GuildConfig
from bot.settings import Settings
from bot.store import Store, Where, channel_key, versioned_update, write_turn
from tests.databases import ON_POSTGRES

HERE = Where(guild_id=1, channel_id=10)
NOW = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)


@pytest.fixture
async def sessions(bot_settings: Settings):
    """A session factory on a freshly migrated database whose pool lends five connections at most: no room
    for lanes beside its other users."""
    engine = create_engine(
        bot_settings.database_url, database_path=bot_settings.database_path, max_overflow=1
    )
    await migrate(engine)
    yield session_factory(engine)
    await engine.dispose()


@pytest.fixture
def store(sessions) -> Store:
    made = Store(sessions, lambda: NOW)
    assert made._lanes is None
    return made


@pytest.fixture
def greenlet_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often a session was begun, committed or closed through the greenlet."""
    trips: Counter[str] = Counter()
    connection, run_sync = SAAsyncSession.connection, SAAsyncSession.run_sync

    async def counted_connection(self, *args, **kwargs):
        trips["connection"] += 1
        return await connection(self, *args, **kwargs)

    async def counted_run_sync(self, fn, *args, **kwargs):
        trips[fn.__name__] += 1
        return await run_sync(self, fn, *args, **kwargs)

    monkeypatch.setattr(SAAsyncSession, "connection", counted_connection)
    monkeypatch.setattr(SAAsyncSession, "run_sync", counted_run_sync)
    yield trips


async def write_system_last(session: SAAsyncSession, system: str) -> None:
    """The change's last write, committing itself (as an encounter's save does, ``lean.write_all``)."""
    await write_turn(session)
    table = ChannelConfig.__table__  # type: ignore[attr-defined]
    await lean.write_all(session, [lean.Write(table.update().values(system=system), {})], last=True)


async def system_of(store: Store) -> str | None:
    async with store.sessions() as session:
        row = (await session.exec(select(ChannelConfig.system).where(ChannelConfig.channel_id == 10))).first()
        return row[0] if row else None


async def test_one_session_serves_change_after_change_and_each_commits(store: Store) -> None:
    seen = []
    for system in ("d6", "nyra", "kaernest"):
        async with store.edit_channel(HERE) as edit:
            seen.append(edit.session)
            edit.config.system = system
        assert await system_of(store) == system
    assert seen[0] is seen[1] is seen[2]
    assert not seen[0].info and seen[0].sync_session.get_transaction() is None
    assert list(seen[0].sync_session.identity_map.values()) == []


async def test_a_failed_change_saves_nothing_and_the_next_change_starts_clean(store: Store) -> None:
    await store.set_system(HERE, "d6")
    with pytest.raises(RuntimeError):
        async with store.edit_channel(HERE) as edit:
            edit.config.system = "nyra"
            await versioned_update(
                edit.session, ChannelConfig, 10, edit.config.version, {"system": "nyra"}, stale=StaleChannel
            )
            raise RuntimeError("the rules refused")
    assert await system_of(store) == "d6"
    async with store.change(channel_key(10)) as session:
        assert list(session.sync_session.identity_map.values()) == []
        assert not session.new and not session.dirty
    await store.set_system(HERE, "kaernest")
    assert await system_of(store) == "kaernest"


async def test_concurrent_changes_each_get_a_session_of_their_own(store: Store) -> None:
    held: list[object] = []

    async def change(channel_id: int) -> None:
        async with store.change(channel_key(channel_id)) as session:
            held.append(session)
            await asyncio.sleep(0)  # all of them hold theirs at once

    for channel_id in range(20, 25):  # one after another: sessions kept for the next
        async with store.change(channel_key(channel_id)):
            pass
    await asyncio.gather(*(change(c) for c in range(20, 25)))
    assert len({id(s) for s in held}) == 5


@pytest.mark.sqlite_only
async def test_a_change_that_committed_its_writes_itself_ends_without_the_greenlet(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")  # the pool holds a connection from now on
    greenlet_trips.clear()
    async with store.change(channel_key(10)) as session:
        await write_system_last(session, "nyra")
    assert greenlet_trips == Counter()
    assert await system_of(store) == "nyra"
    async with store.reading() as session:
        rows = await lean.select(session, select(ChannelConfig.system), {})
    assert rows == [{"system": "nyra"}] and greenlet_trips == Counter()


@pytest.mark.sqlite_only
async def test_what_is_left_to_commit_goes_through_the_greenlet(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")
    greenlet_trips.clear()
    async with store.change(("guild", 1)) as session:  # an ORM object to flush
        await write_turn(session)
        session.add(GuildConfig(guild_id=1, gm_role_id=5))
    assert greenlet_trips["_commit_and_close"] == 1
    greenlet_trips.clear()
    await store.set_system(HERE, "nyra")  # a write SQLAlchemy ran: its transaction is still open
    assert greenlet_trips["_commit_and_close"] == 1
    async with store.sessions() as session:
        assert (await session.get(GuildConfig, 1)).gm_role_id == 5
    assert await system_of(store) == "nyra"


@pytest.mark.sqlite_only
async def test_a_pooled_connection_that_must_connect_again_is_begun_through_the_greenlet(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")
    engine = store.sessions.kw["bind"]
    async with engine.connect() as connection:  # the pooled one, invalidated: the pool connects anew
        await connection.invalidate()
    greenlet_trips.clear()
    await store.set_system(HERE, "nyra")
    assert greenlet_trips["connection"] == 1
    assert await system_of(store) == "nyra"


@pytest.mark.sqlite_only
async def test_a_connection_the_full_pool_closes_on_its_return_is_closed_through_the_greenlet(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")
    engine = store.sessions.kw["bind"]
    pool = engine.sync_engine.pool
    others = [await engine.connect() for _ in range(pool.size())]  # the change's connection is an overflow
    try:
        greenlet_trips.clear()
        async with store.change(channel_key(10)) as session:
            for other in others:  # given back meanwhile: the pool is full when the change's comes back
                await other.close()
            await write_system_last(session, "nyra")
        assert greenlet_trips["_commit_and_close"] == 1
        assert pool.checkedout() == 0 and pool.overflow() <= 0
    finally:
        for other in others:
            await other.close()
    assert await system_of(store) == "nyra"


@pytest.mark.skipif(not ON_POSTGRES, reason="about PostgreSQL: runs in the PostgreSQL pass")
async def test_on_postgresql_every_session_is_begun_and_ended_through_the_greenlet(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")
    greenlet_trips.clear()
    await store.set_system(HERE, "nyra")
    assert greenlet_trips["connection"] == 1 and greenlet_trips["_commit_and_close"] == 1
