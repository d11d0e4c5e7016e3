"""SQLite connections skip the rollbacks with nothing to roll back (every read, every committed change),
and still roll back a transaction left open. SQLAlchemy's adapter asks the connection first: a commit or
rollback with nothing to do is not even a trip through the greenlet to the loop."""

from __future__ import annotations

import aiosqlite
import pytest
import sqlalchemy as sa

from bot import db
from bot.models import ChannelConfig

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def driver_rollbacks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each rollback that reaches the driver's thread."""
    seen: list[int] = []
    real = aiosqlite.Connection.rollback

    async def counted(self) -> None:
        seen.append(1)
        await real(self)

    monkeypatch.setattr(aiosqlite.Connection, "rollback", counted)
    return seen


@pytest.fixture
def adapter_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each commit or rollback SQLAlchemy's adapter hands to the connection (through the greenlet)."""
    seen: list[str] = []
    for name in ("commit", "rollback"):
        real = getattr(db.SQLiteConnection, name)

        async def counted(self, real=real, name=name) -> None:
            seen.append(name)
            await real(self)

        monkeypatch.setattr(db.SQLiteConnection, name, counted)
    return seen


async def test_reads_hand_no_commit_or_rollback_to_the_connection(sessions, adapter_trips) -> None:
    async with sessions() as session:
        await session.get(ChannelConfig, 1)
    async with sessions() as session, session.begin():
        await session.get(ChannelConfig, 1)
    assert adapter_trips == []
    async with sessions() as session, session.begin():
        session.add(ChannelConfig(channel_id=3, guild_id=1))
    assert adapter_trips == ["commit"]  # a write's transaction is committed by the connection


async def test_a_read_and_a_committed_change_make_no_rollback_round_trip(sessions, driver_rollbacks) -> None:
    async with sessions() as session:
        await session.get(ChannelConfig, 1)
    async with sessions() as session, session.begin():
        session.add(ChannelConfig(channel_id=1, guild_id=1))
    async with sessions() as session:
        assert (await session.get(ChannelConfig, 1)) is not None
    assert driver_rollbacks == []


async def test_a_transaction_left_open_is_still_rolled_back(sessions, driver_rollbacks) -> None:
    async with sessions() as session:
        await session.exec(sa.insert(ChannelConfig).values(channel_id=2, guild_id=1))  # type: ignore[call-overload]
        # closed without a commit
    assert driver_rollbacks == [1]
    async with sessions() as session:
        assert (await session.get(ChannelConfig, 2)) is None
