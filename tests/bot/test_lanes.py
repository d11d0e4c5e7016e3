"""Lanes (``bot.lanes``): on SQLite the change path and its reads run on kept connections, each with a session
bound to it; what a change writes on a lane commits or rolls back as one transaction, and a lane given back
holds nothing."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections import Counter
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession as SAAsyncSession

from bot import lean
from bot.db import SQLITE_LANES, create_engine, migrate, session_factory
from bot.lanes import Lanes
from bot.models import ChannelConfig, GuildConfig
from bot.settings import Settings
from bot.store import Store, Where, channel_key, write_turn

pytestmark = pytest.mark.sqlite_only

HERE = Where(guild_id=1, channel_id=10)
WAIT = 5.0
CONFIG = ChannelConfig.__table__  # type: ignore[attr-defined]


@pytest.fixture
def greenlet_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How often a session was begun, committed or rolled back through the greenlet."""
    trips: Counter[str] = Counter()
    for name in ("connection", "commit", "rollback"):
        passed_on = getattr(SAAsyncSession, name)

        async def counted(self, *args, _name=name, _passed_on=passed_on, **kwargs):  # type: ignore[no-untyped-def]
            trips[_name] += 1
            return await _passed_on(self, *args, **kwargs)

        monkeypatch.setattr(SAAsyncSession, name, counted)
    yield trips


def lanes_of(store: Store) -> Lanes:
    assert store._lanes is not None
    return store._lanes


def lent(store: Store) -> int:
    """Lanes lent now; each one given back holds no transaction and nothing in its session."""
    lanes = lanes_of(store)
    for lane in lanes.idle():
        assert not lane.driver.in_transaction
        assert not lane.session.in_transaction() and not lane.session.info
        assert not lane.session.sync_session.identity_map
    return len(lanes._all) - len(lanes.idle())


async def write_system(session: SAAsyncSession, system: str, *, last: bool = True) -> None:
    await write_turn(session)
    await lean.write_all(
        session,
        [lean.Write(CONFIG.update().where(CONFIG.c.channel_id == 10).values(system=system), {})],
        last=last,
    )


async def stored(store: Store) -> tuple[str | None, int | None]:
    """The channel's system and the guild's GM role, as committed (a connection of the pool's)."""
    async with store.sessions() as session:
        system = (await session.exec(select(ChannelConfig.system))).scalars().first()  # type: ignore[call-overload]
        guild = await session.get(GuildConfig, 1)
        return system, guild.gm_role_id if guild is not None else None


async def test_a_change_on_a_lane_begins_no_session_and_commits_its_writes(
    store: Store, greenlet_trips: Counter[str]
) -> None:
    await store.set_system(HERE, "d6")
    greenlet_trips.clear()
    async with store.change(channel_key(10)) as session:
        assert lent(store) == 1 and session in [lane.session for lane in lanes_of(store)._all]
        await write_system(session, "nyra")
    assert greenlet_trips == Counter()  # the session was never begun: nothing to commit or close through it
    assert await stored(store) == ("nyra", None) and lent(store) == 0


async def test_orm_writes_and_lean_writes_on_a_lane_are_one_transaction(store: Store) -> None:
    await store.set_system(HERE, "d6")
    async with store.change(channel_key(10)) as session:
        await write_system(session, "nyra", last=False)
        session.add(GuildConfig(guild_id=1, gm_role_id=5))  # begins the session on the lane's connection
    assert await stored(store) == ("nyra", 5) and lent(store) == 0
    with pytest.raises(sa.exc.IntegrityError):  # the flush at the commit fails: the lean write goes too
        async with store.change(channel_key(10)) as session:
            await write_system(session, "kaernest", last=False)
            session.add(GuildConfig(guild_id=1, gm_role_id=6))
    assert await stored(store) == ("nyra", 5) and lent(store) == 0
    with pytest.raises(RuntimeError):
        async with store.change(channel_key(10)) as session:
            await write_system(session, "kaernest", last=False)
            guild = await session.get(GuildConfig, 1)
            assert guild is not None
            guild.gm_role_id = 7
            await session.flush()
            raise RuntimeError("the rules refused")
    assert await stored(store) == ("nyra", 5) and lent(store) == 0


async def test_a_change_cancelled_on_a_lane_saves_nothing_and_gives_it_back(store: Store) -> None:
    await store.set_system(HERE, "d6")
    inside = asyncio.Event()

    async def change() -> None:
        async with store.change(channel_key(10)) as session:
            await write_system(session, "nyra", last=False)  # SQLite's transaction open, write lock held
            inside.set()
            await asyncio.sleep(WAIT * 10)

    task = asyncio.create_task(change())
    await asyncio.wait_for(inside.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    for _ in range(100):  # bounded: the rollback finishes in its own task
        if lent(store) == 0:
            break
        await asyncio.sleep(0.01)
    assert lent(store) == 0 and await stored(store) == ("d6", None)
    await store.set_system(HERE, "kaernest")  # the write lock was let go
    assert await stored(store) == ("kaernest", None)


async def test_concurrent_changes_take_a_lane_each_and_the_rest_wait_for_one(store: Store) -> None:
    await store.set_system(HERE, "d6")
    holding: set[int] = set()
    most = 0
    release = asyncio.Event()

    async def change(channel_id: int) -> None:
        nonlocal most
        async with store.change(channel_key(channel_id)) as session:
            holding.add(id(session))
            most = max(most, lent(store))
            await asyncio.wait_for(release.wait(), WAIT)

    tasks = [asyncio.create_task(change(c)) for c in range(20, 20 + 2 * SQLITE_LANES)]
    for _ in range(100):
        if lent(store) == SQLITE_LANES:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert most == SQLITE_LANES and len(holding) == SQLITE_LANES  # no change took the pool's sessions
    release.set()
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    assert len(holding) == SQLITE_LANES and lent(store) == 0


async def test_a_read_takes_a_free_lane_else_a_session_of_the_pools(store: Store) -> None:
    await store.set_system(HERE, "d6")
    release = asyncio.Event()
    inside = asyncio.Event()

    async def change(channel_id: int) -> None:
        async with store.change(channel_key(channel_id)):
            if lent(store) == SQLITE_LANES:
                inside.set()
            await asyncio.wait_for(release.wait(), WAIT)

    async with store.reading() as session:
        assert lent(store) == 1
        lane_session = session
        assert (await session.get(ChannelConfig, 10)).system == "d6"  # an ORM read on the lane
    assert lent(store) == 0
    tasks = [asyncio.create_task(change(c)) for c in range(20, 20 + SQLITE_LANES)]
    await asyncio.wait_for(inside.wait(), WAIT)
    async with store.reading() as session:  # every lane lent: the pool's
        assert all(session is not lane.session for lane in lanes_of(store)._all)
        assert (await session.get(ChannelConfig, 10)).system == "d6"
    release.set()
    await asyncio.wait_for(asyncio.gather(*tasks), WAIT)
    async with store.reading() as session:
        assert session is lane_session or session in [lane.session for lane in lanes_of(store)._all]
    assert lent(store) == 0


async def test_disposing_the_engine_closes_its_lanes(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    store = Store(session_factory(engine), lambda: None)  # type: ignore[arg-type, return-value]
    await store.set_system(HERE, "d6")
    lanes = lanes_of(store)
    kept = list(lanes._all)
    assert kept and all(lane.driver._connection is not None for lane in kept)
    await engine.dispose()
    assert all(lane.driver._connection is None for lane in kept)  # closed, their threads stopped
    assert not lanes._all and not lanes.idle()
    gone = weakref.ref(engine)
    del engine, store, lanes, kept
    gc.collect()
    assert gone() is None  # the lanes keep no engine alive once nothing else does


async def test_only_a_pool_with_room_beside_them_gets_lanes(bot_settings: Settings) -> None:
    small = create_engine(
        bot_settings.database_url, database_path=bot_settings.database_path, pool_size=2, max_overflow=2
    )
    default = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        assert Lanes.of(small) is None
        assert Lanes.of(default) is Lanes.of(default) is not None  # one set per engine
    finally:
        await small.dispose()
        await default.dispose()
