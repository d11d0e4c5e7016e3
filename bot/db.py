"""The database: an async SQLAlchemy engine (SQLite through aiosqlite, the default; or PostgreSQL through
asyncpg), SQLite's PRAGMAs on connect, a session factory, and the migration runner (Alembic, configured in
code; no alembic.ini needed).

The schema is managed only by migrations: ``migrate(engine)`` upgrades to head and is called at every start
and by ``python -m bot migrate``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import logging
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite
import orjson
from sqlalchemy import event, text
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.util.concurrency import await_only
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.checkpoints import SAFETY_NET_PAGES

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SQLITE_POOL_SIZE = 4
SQLITE_LANES = 4  # of them kept out of the pool by the change path and its reads (``bot.lanes``)
SQLITE_POOL_OVERFLOW = SQLITE_LANES  # so the pool still lends four at once beside the lanes
BUSY_TIMEOUT_MS = 5000  # how long a connection waits for another's write lock

PRAGMAS = (
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    "PRAGMA foreign_keys=ON",
    "PRAGMA synchronous=NORMAL",
    # 1 MiB of pages a connection (SQLite's default is 2): what is read hot is a few rows per encounter in
    # play, and the operating system's cache holds the file besides.
    "PRAGMA cache_size=-1024",
    # The log is copied into the file by a worker thread (``bot.checkpoints``), not by the commit that
    # fills it, which runs on the event loop's thread: a commit does it only past this safety net.
    f"PRAGMA wal_autocheckpoint={SAFETY_NET_PAGES}",
)


WAL_TRIES = 50  # a tenth of a second apart
WAL_PAUSE = 0.1


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        for pragma in PRAGMAS:
            cursor.execute(pragma)
        use_wal(cursor)
    finally:
        cursor.close()


def use_wal(cursor: Any, pause: Callable[[float], None] = time.sleep) -> None:
    """Write-ahead logging (the file keeps it once set). Processes opening a new file at once each switch
    it, and SQLite refuses some of them at once, without waiting ("database is locked": its guard against
    a deadlock); those try again, a bounded number of times. Only a new file's first connections contend."""
    for attempt in range(WAL_TRIES):
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or attempt == WAL_TRIES - 1:
                raise
            pause(WAL_PAUSE)


def _nul_to_replacement(
    _conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, executemany: bool
) -> tuple[str, Any]:
    """PostgreSQL text cannot hold U+0000 (SQLite's can): a stray NUL typed into a name or a lookup becomes
    U+FFFD, the visible replacement character, instead of failing the command."""
    rows = parameters if executemany else [parameters]
    if not any(isinstance(v, str) and "\x00" in v for row in rows for v in _values(row)):
        return statement, parameters
    fixed = [_replace_nul(row) for row in rows]
    return statement, fixed if executemany else fixed[0]


def _values(row: Any) -> Any:
    if isinstance(row, dict):
        return row.values()
    return row if isinstance(row, (list, tuple)) else (row,)  # a batched insert's flat list of scalars


def _replace_nul(row: Any) -> Any:
    def fix(v: Any) -> Any:
        return v.replace("\x00", "\ufffd") if isinstance(v, str) else v

    if isinstance(row, dict):
        return {k: fix(v) for k, v in row.items()}
    if isinstance(row, (list, tuple)):
        return type(row)(fix(v) for v in row)
    return fix(row)


# What orjson cannot write exactly (an integer beyond 64 bits) ``json`` writes, behind one leading blank that
# orjson never writes: the reader sees the blank and reads it with ``json`` too (orjson would read such an
# integer as a float).
_BY_JSON = " "


def _compact_json(value: Any) -> str:
    """JSON columns without blanks (states and log rows are a tenth smaller), written by orjson: a state of
    eight combatants is 12 KB of JSON written and read on every change, a tenth of the time of ``json``'s."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        pass
    try:  # a dict with keys other than text (half as fast for every value, so only when needed)
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _BY_JSON + json.dumps(value, separators=(",", ":"))


def _json_value(text: str) -> Any:
    """A JSON column's value, read as it was written (see ``_BY_JSON``)."""
    if text.startswith(_BY_JSON):
        return json.loads(text)
    return orjson.loads(text)


def set_busy_timeout(connection: sqlite3.Connection, milliseconds: int) -> None:
    connection.execute(f"PRAGMA busy_timeout={int(milliseconds)}").close()


class SQLiteConnection(aiosqlite.Connection):
    """aiosqlite's connection without the commits and rollbacks that have nothing to do. SQLAlchemy rolls
    back at the end of every session, and commits where a change already committed with its writes
    (``bot.lean.write_all``); on a connection with no transaction open (every read, every committed change)
    that is a hand-off to the driver's thread and back for nothing.

    It also keeps which busy timeout SQLite has: none while statements run on the event loop's thread
    (``bot.lean``: the loop must never wait for another connection's write lock), the configured one before
    anything runs in aiosqlite's thread (``may_wait``, which ``_SQLiteAdapter`` calls for SQLAlchemy's
    statements). Set only when it changes: setting it around every call was four statements a change."""

    waits = True  # SQLite's busy timeout is BUSY_TIMEOUT_MS (else 0)

    def no_wait(self) -> None:
        """SQLite fails at once where it would wait (on the loop's thread, with nothing else using it)."""
        if self.waits:
            set_busy_timeout(self._conn, 0)
            self.waits = False

    def may_wait(self) -> None:
        """The configured busy timeout again, before a call in aiosqlite's thread (or SQLAlchemy's)."""
        if not self.waits and self._connection is not None:  # a closed one has nothing to set
            set_busy_timeout(self._conn, BUSY_TIMEOUT_MS)
            self.waits = True

    async def commit(self) -> None:
        if self.in_transaction:
            self.may_wait()
            await super().commit()

    async def rollback(self) -> None:
        if self.in_transaction:
            await super().rollback()


class _SQLiteAdapter(AsyncAdapt_aiosqlite_connection):
    """SQLAlchemy's adapter of a ``SQLiteConnection``, asking first whether a commit or rollback has
    anything to do. Each goes through the greenlet to the loop and back before the connection could say
    so itself; a session's commit and the pool's rollback when it takes the connection back are two such
    trips on every change."""

    __slots__ = ()

    def _has_transaction(self) -> bool:
        driver = self._connection
        return driver._connection is not None and driver.in_transaction  # closed: nothing open

    def commit(self) -> None:
        if self._has_transaction():
            super().commit()

    def rollback(self) -> None:
        if self._has_transaction():
            super().rollback()

    def cursor(self, server_side: bool = False) -> Any:
        self._connection.may_wait()  # every statement SQLAlchemy runs takes a cursor first
        return super().cursor(server_side)

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self._connection.may_wait()
        return super().execute(*args, **kwargs)


def _sqlite_creator(path: str, dbapi: Callable[[], Any]) -> Callable[[], _SQLiteAdapter]:
    """What SQLAlchemy's aiosqlite dialect would connect with (the file, ``check_same_thread=False``), as a
    ``_SQLiteAdapter`` of a ``SQLiteConnection``. ``dbapi()`` is the engine's adapted DBAPI module (the
    engine exists by the first connection)."""

    def connect() -> _SQLiteAdapter:
        connection = SQLiteConnection(functools.partial(sqlite3.connect, path, check_same_thread=False), 64)
        connection._thread.daemon = True  # as SQLAlchemy's dialect does: a leaked one never blocks the exit
        return _SQLiteAdapter(dbapi(), await_only(connection))

    return connect


def _plain_sqlite_file(url: URL) -> str | None:
    """The file of a plain ``sqlite+aiosqlite:///path`` URL (no query, not in memory); else ``None``."""
    database = url.database or ""
    if url.drivername != "sqlite+aiosqlite" or url.query or database in ("", ":memory:"):
        return None
    return None if database.startswith("file:") else database


def create_engine(database_url: str, *, database_path: Path | None = None, **kwargs: Any) -> AsyncEngine:
    """An engine for ``database_url``. On SQLite the PRAGMAs are applied to every new connection and the
    file's folder is created if needed; PostgreSQL needs neither (its server has its own settings)."""
    if database_path is not None:
        database_path.parent.mkdir(parents=True, exist_ok=True)
    if not database_url.startswith("postgresql"):
        # SQLite has one writer and WAL readers: a few connections keep every change and read going, and
        # each holds its own page cache and thread (15 of them, the pool's default, held 30 MB). At most
        # eight at once: the four lanes, and four for everything else.
        kwargs.setdefault("pool_size", SQLITE_POOL_SIZE)
        kwargs.setdefault("max_overflow", SQLITE_POOL_OVERFLOW)
        path = _plain_sqlite_file(make_url(database_url))
        if path is not None and "creator" not in kwargs and "async_creator" not in kwargs:
            kwargs["creator"] = _sqlite_creator(path, lambda: engine.dialect.dbapi)
    kwargs.setdefault("json_serializer", _compact_json)
    kwargs.setdefault("json_deserializer", _json_value)
    engine = create_async_engine(database_url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _on_connect)
    else:
        event.listen(engine.sync_engine, "before_cursor_execute", _nul_to_replacement, retval=True)
        if not kwargs.get("pool_pre_ping"):
            event.listen(engine.sync_engine, "checkout", _refuse_closed_connection)
    return engine


def _refuse_closed_connection(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """A pooled connection the server has closed (a restart, an idle timeout, a terminated backend) is not
    lent out: the pool replaces it, so a restarted server does not fail the next command. asyncpg notices
    the server's goodbye as soon as the loop reads it, so this costs no round trip; ``pool_pre_ping``
    spent one on every checkout (3–8 % of a change's CPU)."""
    driver = getattr(dbapi_connection, "driver_connection", None)
    if driver is not None and driver.is_closed():
        raise DisconnectionError("the server closed this connection")


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)


# Alembic (about 12 MB of modules) is imported only when the schema is behind: a bot restarted on its own
# database finds its revision at the head of the migration files and never loads it.


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config built in code. With ``connection``, env.py migrates over that connection."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    config.attributes["configure_logging"] = False
    return config


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


_REVISION = re.compile(r"""^(down_revision|revision)\b[^=\n]*=\s*(?:['"]([^'"]+)['"]|None)""", re.MULTILINE)


def files_head() -> str | None:
    """The head revision read from the migration files themselves (each names its ``revision`` and
    ``down_revision``), without Alembic; ``None`` unless there is exactly one."""
    revisions: set[str] = set()
    below: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        for name, value in _REVISION.findall(path.read_text(encoding="utf-8")):
            if value:
                (revisions if name == "revision" else below).add(value)
    heads = revisions - below
    return heads.pop() if len(heads) == 1 else None


async def stored_revision(engine: AsyncEngine) -> str | None:
    """The revision the database records (``None`` before the first migration), in one plain query."""
    async with engine.connect() as conn:
        try:
            found = await conn.execute(text("SELECT version_num FROM alembic_version"))
        except DBAPIError:  # no such table yet
            return None
        return found.scalar()


def _upgrade(connection: Connection, revision: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(connection), revision)


def _current(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(_current)


# Any fixed number: the advisory lock that lets one process at a time migrate a shared PostgreSQL database.
MIGRATION_LOCK = 0x66726179  # "fray"


@contextlib.asynccontextmanager
async def _sqlite_migrator(engine: AsyncEngine) -> AsyncIterator[None]:
    """One migrator at a time on a SQLite file: an exclusive lock on ``<database>.migrating`` beside it
    (released by the OS if the process dies)."""
    database = engine.url.database or ""
    if engine.dialect.name != "sqlite" or database in ("", ":memory:") or database.startswith("file:"):
        yield
        return
    lock = await asyncio.to_thread(Path(f"{database}.migrating").open, "a")
    with lock:
        await asyncio.to_thread(fcntl.flock, lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


async def migrate(engine: AsyncEngine, revision: str = "head") -> str | None:
    """Upgrade the schema to ``revision`` in one transaction; returns the revision now applied.

    Processes starting at once (shards) take turns: the first migrates, the others wait for it and then
    find nothing left to do (PostgreSQL: an advisory lock in the transaction; SQLite: a file lock).
    A database already at the files' head is left alone without loading Alembic."""
    if revision == "head":
        head = files_head()
        if head is not None and await stored_revision(engine) == head:
            return head
    async with _sqlite_migrator(engine), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK})
        before = await conn.run_sync(_current)
        await conn.run_sync(_upgrade, revision)
    after = await current_revision(engine)
    if before != after:
        log.info("database migrated from %s to %s", before or "empty", after)
    return after


def _revision(connection: Connection, message: str) -> None:
    from alembic import command

    command.revision(alembic_config(connection), message=message, autogenerate=True)


async def make_revision(engine: AsyncEngine, message: str) -> None:
    """Autogenerate a new migration from the models (developers; the database must be at head)."""
    async with engine.begin() as conn:
        await conn.run_sync(_revision, message)
