"""The database: an async SQLAlchemy engine over aiosqlite, SQLite PRAGMAs on connect, a session factory,
and the migration runner (Alembic, configured in code; no alembic.ini needed).

The schema is managed only by migrations: ``migrate(engine)`` upgrades to head and is called at every start
and by ``python -m bot migrate``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
    "PRAGMA synchronous=NORMAL",
)


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def _compact_json(value: Any) -> str:
    """JSON columns without the blanks after separators (states and log rows are a tenth smaller)."""
    return json.dumps(value, separators=(",", ":"))


def create_engine(database_url: str, *, database_path: Path | None = None, **kwargs: Any) -> AsyncEngine:
    """An engine with the PRAGMAs applied to every new connection. Creates the file's folder if needed."""
    if database_path is not None:
        database_path.parent.mkdir(parents=True, exist_ok=True)
    kwargs.setdefault("json_serializer", _compact_json)
    engine = create_async_engine(database_url, **kwargs)
    event.listen(engine.sync_engine, "connect", _on_connect)
    return engine


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config built in code. With ``connection``, env.py migrates over that connection."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    config.attributes["configure_logging"] = False
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _upgrade(connection: Connection, revision: str) -> None:
    command.upgrade(alembic_config(connection), revision)


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_current)


async def migrate(engine: AsyncEngine, revision: str = "head") -> str | None:
    """Upgrade the schema to ``revision`` in one transaction; returns the revision now applied."""
    before = await current_revision(engine)
    async with engine.begin() as conn:
        await conn.run_sync(_upgrade, revision)
    after = await current_revision(engine)
    if before != after:
        log.info("database migrated from %s to %s", before or "empty", after)
    return after


def _revision(connection: Connection, message: str) -> None:
    command.revision(alembic_config(connection), message=message, autogenerate=True)


async def make_revision(engine: AsyncEngine, message: str) -> None:
    """Autogenerate a new migration from the models (developers; the database must be at head)."""
    async with engine.begin() as conn:
        await conn.run_sync(_revision, message)
