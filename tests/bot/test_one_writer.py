"""One writer per SQLite database: changes take turns from their first write to their commit; loading and
the rules of other changes go on meanwhile, and a change that fails gives its turn back. On PostgreSQL,
which locks rows, changes to different resources write side by side."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from bot.db import create_engine, migrate, session_factory
from bot.models import CommandSync, GuildConfig
from bot.settings import Settings
from bot.store import Store, Where, WriteOutOfTurn, channel_key, guild_key, put_row, write_turn
from tests.databases import ON_POSTGRES

WAIT = 5.0
NOW = datetime(2026, 5, 6, tzinfo=UTC)


@pytest.fixture
async def store(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield Store(session_factory(engine), lambda: datetime(2026, 5, 6, tzinfo=UTC))
    await engine.dispose()


@pytest.mark.sqlite_only
async def test_changes_take_turns_from_their_first_write_to_their_commit(store: Store) -> None:
    order: list[str] = []
    wrote, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with store.change(channel_key(10)) as session:
            await write_turn(session)
            order.append("first writes")
            wrote.set()
            await asyncio.wait_for(release.wait(), WAIT)
            order.append("first commits")

    async def second() -> None:
        async with store.change(channel_key(11)) as session:
            order.append("second loads")
            await write_turn(session)
            await write_turn(session)  # once taken, the turn is kept until the commit
            order.append("second writes")

    holder = asyncio.create_task(first())
    await asyncio.wait_for(wrote.wait(), WAIT)
    waiting = asyncio.create_task(second())
    await asyncio.sleep(0.05)
    assert order == ["first writes", "second loads"]
    release.set()
    await asyncio.wait_for(asyncio.gather(holder, waiting), WAIT)
    assert order == ["first writes", "second loads", "first commits", "second writes"]


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's row locks")
async def test_on_postgresql_changes_to_different_resources_write_side_by_side(store: Store) -> None:
    """A change holding its transaction open after its writes does not keep another channel's change from
    writing and committing meanwhile (a turn held across a change's round trips made every change in the
    process wait for them: 259 changes a second at concurrency 50, 384 without)."""
    order: list[str] = []
    wrote, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with store.change(channel_key(10)) as session:
            await put_row(session, CommandSync, {"scope": "a", "payload_hash": "1", "synced_at": NOW})
            order.append("first writes")
            wrote.set()
            await asyncio.wait_for(release.wait(), WAIT)
        order.append("first commits")

    async def second() -> None:
        await asyncio.wait_for(wrote.wait(), WAIT)
        async with store.change(channel_key(11)) as session:
            await put_row(session, CommandSync, {"scope": "b", "payload_hash": "2", "synced_at": NOW})
        order.append("second commits")
        release.set()

    await asyncio.wait_for(asyncio.gather(first(), second()), 2 * WAIT)
    assert order == ["first writes", "second commits", "first commits"]
    async with store.sessions() as session:
        scopes = (await session.exec(sa.select(CommandSync.scope))).scalars().all()  # type: ignore[call-overload]
    assert sorted(scopes) == ["a", "b"]


async def test_a_failed_change_gives_its_turn_back(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.change(channel_key(10)) as session:
            await write_turn(session)
            raise RuntimeError("the rules refused")

    async def set_system() -> None:
        async with store.edit_channel(Where(1, 11)) as edit:
            edit.config.system = "d6"

    await asyncio.wait_for(set_system(), WAIT)  # the next write goes through at once
    assert (await store.channel_view(Where(1, 11))).system == "d6"


async def test_a_change_waiting_for_a_connection_does_not_hold_the_turn(bot_settings: Settings) -> None:
    """Every pooled connection held by changes that wait for the turn, and the next change's first statement
    a write: it must wait for a connection before it takes the turn, or nobody can go on."""
    engine = create_engine(
        bot_settings.database_url,
        database_path=bot_settings.database_path,
        pool_size=1,
        max_overflow=0,
        pool_timeout=WAIT,
    )
    await migrate(engine)
    store = Store(session_factory(engine), lambda: datetime(2026, 5, 6, tzinfo=UTC))
    holding = asyncio.Event()

    async def reads_then_writes() -> None:  # holds the only connection, then wants the turn
        async with store.change(channel_key(10)) as session:
            await session.exec(sa.select(sa.literal(1)))  # type: ignore[call-overload]
            holding.set()
            await asyncio.sleep(0.2)  # the other change is waiting for the connection meanwhile
            await put_row(session, CommandSync, {"scope": "a", "payload_hash": "1", "synced_at": NOW})

    async def writes_first() -> None:  # its first statement is a write
        await asyncio.wait_for(holding.wait(), WAIT)
        async with store.change(channel_key(11)) as session:
            await put_row(session, CommandSync, {"scope": "b", "payload_hash": "2", "synced_at": NOW})

    try:
        await asyncio.wait_for(asyncio.gather(reads_then_writes(), writes_first()), 3 * WAIT)
        async with store.sessions() as session:
            scopes = (await session.exec(sa.select(CommandSync.scope))).scalars().all()  # type: ignore[call-overload]
        assert sorted(scopes) == ["a", "b"]
    finally:
        await engine.dispose()


@pytest.mark.sqlite_only
async def test_a_write_before_the_turn_is_refused_and_saves_nothing(store: Store) -> None:
    """A write helper that forgets ``write_turn`` would hold SQLite's write lock while waiting for the turn
    (a stall until the busy timeout): the engine refuses its statement instead."""

    with pytest.raises(WriteOutOfTurn):
        async with store.change(guild_key(1)) as session:
            session.add(GuildConfig(guild_id=1, gm_role_id=5))
            await session.flush()
    assert await store.gm_role_id(1) is None
    await store.set_gm_role(1, 5)  # the store's own helper takes its turn
    assert await store.gm_role_id(1) == 5


async def test_after_a_change_its_connection_writes_freely_again(store: Store) -> None:
    async with store.change(channel_key(10)) as session:
        await put_row(session, CommandSync, {"scope": "a", "payload_hash": "1", "synced_at": NOW})
    async with store.sessions() as session, session.begin():  # a plain session on the same pooled connection
        await session.exec(sa.delete(CommandSync))  # type: ignore[call-overload]
