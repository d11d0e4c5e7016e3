"""One writer per database: changes take turns from their first write to their commit; loading and the
rules of other changes go on meanwhile, and a change that fails gives its turn back."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from bot.db import create_engine, migrate, session_factory
from bot.settings import Settings
from bot.store import Store, Where, channel_key, write_turn

WAIT = 5.0


@pytest.fixture
async def store(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield Store(session_factory(engine), lambda: datetime(2026, 5, 6, tzinfo=UTC))
    await engine.dispose()


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
