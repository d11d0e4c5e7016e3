"""PostgreSQL's pooled connections: one the server closed is replaced at checkout, without a round trip."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from bot.db import create_engine
from tests.databases import ON_POSTGRES, SERVER_URL, postgres_database

pytestmark = pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's pool")


async def backend_pid(engine) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    """The server process behind the connection a checkout lends, and that asyncpg connection."""
    async with engine.connect() as connection:
        pid = int((await connection.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one())
        return pid, (await connection.get_raw_connection()).driver_connection


async def test_a_connection_the_server_closed_is_replaced_at_checkout() -> None:
    with postgres_database() as url:
        engine = create_engine(url, pool_size=1, max_overflow=0)
        other = create_engine(SERVER_URL)
        try:
            first, pooled = await backend_pid(engine)  # the pool's one connection, back in the pool
            async with other.connect() as admin:
                await admin.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
            for _ in range(200):  # bounded: the loop reads the server's goodbye
                if pooled.is_closed():  # type: ignore[attr-defined]
                    break
                await asyncio.sleep(0.01)
            assert pooled.is_closed()  # type: ignore[attr-defined]
            again, _ = await backend_pid(engine)
            assert again != first  # a new connection, and no error
        finally:
            await engine.dispose()
            await other.dispose()


async def test_a_checkout_makes_no_round_trip() -> None:
    with postgres_database() as url:
        engine = create_engine(url)
        seen: list[str] = []
        event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        try:
            await backend_pid(engine)
            seen.clear()
            await backend_pid(engine)
            assert seen == ["SELECT pg_backend_pid()"], seen
        finally:
            await engine.dispose()
