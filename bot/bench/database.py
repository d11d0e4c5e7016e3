"""Fray's database for one benchmark run, and the driver's few reads and writes on it.

SQLite (the default): a file in the run's work folder. PostgreSQL (``--database-url``, a server URL): a new
database of the run's own on that server, dropped at the end even if the run fails, so runs never share
state. The driver reads and writes through the same async engine and tables (``bot.models``) as Fray, so
one piece of code serves both.
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db import create_engine, migrate
from bot.models import Combatant, Encounter, EventLog

ENCOUNTER: sa.Table = Encounter.__table__  # type: ignore[attr-defined]
COMBATANT: sa.Table = Combatant.__table__  # type: ignore[attr-defined]
EVENT_LOG: sa.Table = EventLog.__table__  # type: ignore[attr-defined]
STORED_CHANNELS = 9_000_000_000  # channel ids of the copied encounters (no fake channel has one this high)


@dataclass
class BenchDatabase:
    """Where Fray's data lives in this run: ``target`` is what the bot process gets (a file or a URL)."""

    target: str
    label: str  # for the report, without a password
    url: str  # the driver's engine URL
    path: Path | None = None  # the SQLite file
    _engine: AsyncEngine | None = None

    @property
    def engine(self) -> AsyncEngine:
        """The driver's engine, made on first use."""
        if self._engine is None:
            self._engine = create_engine(self.url, database_path=self.path)
        return self._engine

    async def dispose(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.dispose()


def _admin_dsn(server_url: str) -> str:
    return make_url(server_url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _server_execute(server_url: str, statement: str) -> str:
    import asyncpg

    connection = await asyncpg.connect(_admin_dsn(server_url), timeout=30)
    try:
        await connection.execute(statement)
        return str(await connection.fetchval("SHOW server_version"))
    finally:
        await connection.close()


@contextlib.asynccontextmanager
async def fray_database(workdir: Path, server_url: str | None) -> AsyncIterator[BenchDatabase]:
    """A fresh database for Fray: ``workdir/fray.db``, or a new database on the PostgreSQL server at
    ``server_url`` (``CREATE DATABASE … TEMPLATE template0``), dropped afterwards whatever happened. It is
    migrated here, before Fray starts: a deployed bot restarts on a database at the schema's head."""
    if server_url is None:
        path = (workdir / "fray.db").resolve()
        url = f"sqlite+aiosqlite:///{path.as_posix()}"
        db = BenchDatabase(str(path), f"SQLite {sqlite3.sqlite_version} (file {path})", url, path)
        try:
            await migrate(db.engine)
            yield db
        finally:
            await db.dispose()
        return
    name = f"fray_bench_{uuid.uuid4().hex[:16]}"
    version = await _server_execute(server_url, f'CREATE DATABASE "{name}" TEMPLATE template0')
    url = make_url(server_url).set(database=name)
    text = url.render_as_string(hide_password=False)
    db = BenchDatabase(text, f"PostgreSQL {version} ({url.render_as_string(hide_password=True)})", text)
    try:
        await migrate(db.engine)
        yield db
    finally:
        try:
            await db.dispose()
        finally:
            await _server_execute(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def turn_holders(engine: AsyncEngine) -> dict[int, str]:
    """Channel id → the name of the combatant holding the turn, for every running encounter."""
    e, c = ENCOUNTER.c, COMBATANT.c
    query = (
        sa.select(e.channel_id, c.name)
        .join_from(ENCOUNTER, COMBATANT, c.id == e.turn_combatant_id)
        .where(e.status == "running")
    )
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return {int(channel): name for channel, name in rows}


async def _count(conn: Any) -> int:
    return int((await conn.execute(sa.select(sa.func.count()).select_from(ENCOUNTER))).scalar_one())


def _copies(table: sa.Table, of: Any, numbers: Any, changed: dict[str, Any]) -> Any:
    """``INSERT … SELECT``: the rows of ``table`` matching ``of``, once per number, with ``changed`` columns."""
    names = [column.name for column in table.columns]
    rows = sa.select(*(changed.get(n, table.c[n]).label(n) for n in names))
    rows = rows.select_from(table.join(numbers, sa.true())).where(of)
    return sa.insert(table).from_select(names, rows)


async def store_more_encounters(engine: AsyncEngine, total: int) -> int:
    """Copy the first running encounter (row and combatants) into other channels until ``total`` are
    stored; returns how many are. The database copies the rows itself (``INSERT … SELECT`` over a counting
    CTE, the same SQL on SQLite and PostgreSQL), so 10,000 copies take a moment. Ids are chosen here, so
    each copy's turn points at its own combatant; PostgreSQL's id sequences are then moved past them for
    the rows Fray adds later."""
    e, c = ENCOUNTER.c, COMBATANT.c
    async with engine.begin() as conn:
        have = await _count(conn)
        template = (
            await conn.execute(
                sa.select(e.id, e.turn_combatant_id).where(e.status == "running").order_by(e.id).limit(1)
            )
        ).first()
        if template is None or have >= total:
            return have
        fighters = list(
            (
                await conn.execute(sa.select(c.id).where(c.encounter_id == template.id).order_by(c.id))
            ).scalars()
        )
        next_id = int((await conn.execute(sa.select(sa.func.max(e.id)))).scalar_one()) + 1
        next_fighter = int((await conn.execute(sa.select(sa.func.max(c.id)))).scalar_one() or 0) + 1

        count = total - have
        seq = sa.select(sa.literal(0, sa.BigInteger).label("n")).cte("copy_number", recursive=True)
        seq = seq.union_all(sa.select(seq.c.n + 1).where(seq.c.n < count - 1))
        n = seq.c.n
        first = sa.literal(next_fighter, sa.BigInteger) + n * len(fighters)  # the copy's first combatant
        turn = (
            first + fighters.index(template.turn_combatant_id)
            if template.turn_combatant_id in fighters
            else e.turn_combatant_id
        )
        await conn.execute(
            _copies(
                ENCOUNTER,
                e.id == template.id,
                seq,
                {
                    "id": sa.literal(next_id, sa.BigInteger) + n,
                    "channel_id": sa.literal(STORED_CHANNELS, sa.BigInteger) + n,
                    "name": sa.literal("Stored ", sa.String) + sa.cast(n, sa.String),
                    "turn_combatant_id": turn,
                },
            )
        )
        if fighters:
            index = sa.case({fid: i for i, fid in enumerate(fighters)}, value=c.id)
            await conn.execute(
                _copies(
                    COMBATANT,
                    c.encounter_id == template.id,
                    seq,
                    {"id": first + index, "encounter_id": sa.literal(next_id, sa.BigInteger) + n},
                )
            )
        if conn.dialect.name == "postgresql":
            for table in (ENCOUNTER, COMBATANT):
                await conn.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT max(id) FROM {table.name}))"
                    )
                )
        return await _count(conn)


async def applied_by(engine: AsyncEngine, channel_id: int, command: str) -> list[int]:
    """The members whose ``command`` is in the log of the encounter in ``channel_id`` (once per change)."""
    e, log = ENCOUNTER.c, EVENT_LOG.c
    query = (
        sa.select(log.actor_id)
        .join_from(EVENT_LOG, ENCOUNTER, e.id == log.encounter_id)
        .where(e.channel_id == channel_id, log.command == command)
    )
    async with engine.connect() as conn:
        return [int(a) for a in (await conn.execute(query)).scalars()]
