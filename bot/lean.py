"""The hot path's statements run on the session's own driver connection, inside its transaction.

SQLAlchemy's execution costs about 0.3 ms of CPU per statement (on aiosqlite a greenlet switch and several
hand-offs to the driver's thread per statement; the compiled-cache lookup, result processing); the driver
alone costs a fifth of that or less. Each statement here is compiled once per dialect; its parameters and its
results go through the column types' own processors, so the values written and read are exactly those
SQLAlchemy would write and read (JSON, datetimes, booleans). The engine's ``before_cursor_execute``
listeners still see every statement, and may rewrite its parameters as they may SQLAlchemy's.

On SQLite (aiosqlite) the statement goes straight to the driver's connection, on the loop's own thread
(``_on_sqlite``). On PostgreSQL (asyncpg) it does once SQLAlchemy has begun the transaction on the
connection (a change's advisory lock begins it); before that, and on any other database, it runs through
the session. Driver errors are raised as SQLAlchemy raises them.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import DBAPIError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db import SQLiteConnection

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the parameters in their positional order
    defaults: dict[str, Any]  # values the statement carries itself
    binds: tuple[Processor, ...]
    keys: tuple[str, ...]  # a select's result columns
    results: tuple[Processor, ...]

    def parameters(self, given: Mapping[str, Any]) -> tuple[Any, ...]:
        out = []
        for name, process in zip(self.names, self.binds, strict=True):
            value = given[name] if name in given else self.defaults[name]
            out.append(process(value) if process is not None else value)  # None too, as SQLAlchemy does
        return tuple(out)

    def mapping(self, row: Sequence[Any]) -> dict[str, Any]:
        return {
            key: process(value) if process is not None else value
            for key, process, value in zip(self.keys, self.results, row, strict=True)
        }


_compiled: dict[tuple[int, str], tuple[Any, _Compiled]] = {}


def _compile(statement: Any, dialect: sa.Dialect) -> _Compiled:
    key = (id(statement), dialect.name)
    found = _compiled.get(key)
    if found is not None:
        return found[1]
    compiled = statement.compile(dialect=dialect)
    if "POSTCOMPILE" in compiled.string:
        raise ValueError("a lean statement cannot expand parameters at run time (IN lists): name each one")
    names = tuple(compiled.positiontup or ())
    bound = [compiled.binds[name] for name in names]
    columns = list(statement.selected_columns) if isinstance(statement, sa.Select) else []
    made = _Compiled(
        sql=compiled.string,
        names=names,
        defaults={name: b.value for name, b in zip(names, bound, strict=True) if b.value is not None},
        binds=tuple(b.type.dialect_impl(dialect).bind_processor(dialect) for b in bound),
        keys=tuple(c.key for c in columns),
        results=tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns),
    )
    _compiled[key] = (statement, made)  # the statement kept too, so its id is never another's
    return made


_DRIVER = "fray_lean_driver"
# session.info: the session's AsyncConnection for its one transaction, where its owner keeps it there
CONNECTION = "fray_connection"


@dataclass(frozen=True, slots=True)
class _Driver:
    connection: Any  # the session's AsyncConnection
    sqlite: Any = None  # its aiosqlite connection …
    asyncpg: Any = None  # … or its asyncpg connection
    adapter: Any = None  # SQLAlchemy's adapter of the asyncpg connection


async def _driver(session: AsyncSession) -> _Driver | None:
    """The session's connection and its driver's (``None`` where statements run through the session),
    looked up once per transaction (a transaction keeps its connection)."""
    kept = session.info.get(_DRIVER)
    if kept is None or kept[0] is not session.sync_session.get_transaction():
        connection = session.info.get(CONNECTION) or await session.connection()
        found = None
        if connection.dialect.name == "sqlite":
            aio = (await _pooled(connection)).driver_connection
            # Fray's own connection (``bot.db``) keeps its busy timeout; any other runs through the session
            found = _Driver(connection, sqlite=aio) if isinstance(aio, SQLiteConnection) else None
        elif connection.dialect.driver == "asyncpg":
            pooled = await _pooled(connection)
            found = _Driver(connection, asyncpg=pooled.driver_connection, adapter=pooled.dbapi_connection)
        kept = (session.sync_session.get_transaction(), found)
        session.info[_DRIVER] = kept
    found = kept[1]
    if found is not None and found.asyncpg is not None and not found.asyncpg.is_in_transaction():
        if not await _begin_as_sqlalchemy_would(found.adapter):
            return None  # SQLAlchemy begins it, with the statement it runs first
    return found  # type: ignore[no-any-return]


async def _begin_as_sqlalchemy_would(adapter: Any) -> bool:
    """Begin the transaction as SQLAlchemy's asyncpg adapter does before its first statement (the same
    ``BEGIN``, known to the adapter, which commits or rolls it back), so that first statement runs on the
    driver too: through SQLAlchemy it cost a trip through the greenlet and its execution machinery (the
    change's advisory lock). Whether it began; not where the adapter lacks that method (its own
    statement then begins it)."""
    start = getattr(adapter, "_start_transaction", None)
    if start is None or getattr(adapter, "_transaction", False) is not None:
        return False
    await start()
    return adapter._transaction is not None


async def _pooled(connection: Any) -> Any:
    """The connection's pooled DBAPI connection: read from its sync connection while that holds one (in
    a transaction it always does), which ``get_raw_connection`` does through the greenlet and back."""
    sync = connection.sync_connection
    if sync is not None and not sync.closed and not sync.invalidated:
        return sync.connection
    return await connection.get_raw_connection()


def _seen(connection: Any, sql: str, parameters: Any, many: bool) -> Any:
    """The engine's listeners told of the statement, as SQLAlchemy tells them; the parameters they leave."""
    sync = connection.sync_connection
    for listener in sync.dispatch.before_cursor_execute:
        sql, parameters = listener(sync, None, sql, parameters, None, many)
    return parameters


@contextmanager
def _as_sqlalchemy_raises(driver: _Driver, sql: str, parameters: Any) -> Iterator[None]:
    """The driver's errors as SQLAlchemy would raise them (a unique key's ``IntegrityError``, a busy
    database's ``OperationalError``), so callers catch one kind whichever way a statement ran."""
    try:
        yield
    except sqlite3.Error as err:
        raise DBAPIError.instance(sql, parameters, err, sqlite3.Error) from err
    except Exception as err:
        if driver.asyncpg is None or not isinstance(err, _asyncpg_errors()):
            raise
        dbapi = driver.connection.dialect.loaded_dbapi
        translated = _as_adapter_raises(dbapi, err)
        raise DBAPIError.instance(sql, parameters, translated, dbapi.Error) from err


def _asyncpg_errors() -> tuple[type[Exception], ...]:
    import asyncpg

    return (asyncpg.PostgresError, asyncpg.InterfaceError)


def _as_adapter_raises(dbapi: Any, err: Exception) -> Exception:
    """``err`` as SQLAlchemy's asyncpg adapter raises it: its DB-API error class for the asyncpg error's
    kind (a unique key's ``IntegrityError``), by the adapter's own table."""
    table = getattr(dbapi, "_asyncpg_error_translate", {})
    message = err.args[0] if err.args else str(err)
    for kind in type(err).__mro__:
        if kind in table:
            return table[kind](message, err)  # type: ignore[no-any-return]
    return dbapi.Error(message)  # type: ignore[no-any-return]


async def _prepared(
    session: AsyncSession, statement: Any, params: Any, *, many: bool = False
) -> tuple[_Compiled, Any, _Driver] | None:
    """The compiled statement, its driver parameters and the driver connection to run it on (``None``
    where it runs through the session); the engine's listeners are told of it."""
    driver = await _driver(session)
    if driver is None:
        return None
    compiled, parameters = _for_driver(driver, statement, params, many)
    return compiled, parameters, driver


def _for_driver(driver: _Driver, statement: Any, params: Any, many: bool) -> tuple[_Compiled, Any]:
    compiled = _compile(statement, driver.connection.dialect)
    parameters = [compiled.parameters(p) for p in params] if many else compiled.parameters(params)
    return compiled, _seen(driver.connection, compiled.sql, parameters, many)


def _rowcount(status: str) -> int:
    """The rows an asyncpg command matched, from its status (``UPDATE 1``, ``INSERT 0 1``)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdecimal() else -1


async def select(
    session: AsyncSession, statement: sa.Select[Any], params: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The rows of ``statement`` as plain dicts (by the selected columns' keys)."""
    prepared = await _prepared(session, statement, params)
    if prepared is None:
        result = await session.exec(statement, params=params)  # type: ignore[call-overload]
        return [dict(row) for row in result.mappings()]
    compiled, parameters, driver = prepared
    with _as_sqlalchemy_raises(driver, compiled.sql, parameters):
        if driver.sqlite is not None:
            found = await _on_sqlite(driver.sqlite, functools.partial(_fetch_all, compiled.sql, parameters))
        else:
            found = await driver.asyncpg.fetch(compiled.sql, *parameters)
    return [compiled.mapping(row) for row in found]


async def execute(session: AsyncSession, statement: Any, params: Mapping[str, Any]) -> int:
    """Run an ``UPDATE``, ``INSERT`` or ``DELETE``; the number of rows it matched."""
    prepared = await _prepared(session, statement, params)
    if prepared is None:
        result = await session.exec(statement, params=params)  # type: ignore[call-overload]
        return int(result.rowcount)
    compiled, parameters, driver = prepared
    with _as_sqlalchemy_raises(driver, compiled.sql, parameters):
        if driver.sqlite is not None:
            return await _on_sqlite(driver.sqlite, functools.partial(_matched, compiled.sql, parameters))
        return _rowcount(await driver.asyncpg.execute(compiled.sql, *parameters))


async def execute_many(session: AsyncSession, statement: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Run one ``UPDATE`` or ``INSERT`` for each set of parameters (one driver call for all)."""
    prepared = await _prepared(session, statement, rows, many=True)
    if prepared is None:
        await session.exec(statement, params=list(rows))  # type: ignore[call-overload]
        return
    compiled, parameters, driver = prepared
    with _as_sqlalchemy_raises(driver, compiled.sql, parameters):
        if driver.sqlite is not None:
            await _on_sqlite(driver.sqlite, functools.partial(_each, compiled.sql, parameters))
        else:
            await driver.asyncpg.executemany(compiled.sql, parameters)


@dataclass(frozen=True, slots=True)
class Write:
    """One statement of ``write_all``: its parameters (a list of them with ``many``), and for a guarded write
    the rows it must match: when it matches another number, ``stale()`` is raised and nothing after it runs
    (the transaction then rolls back)."""

    statement: Any
    params: Any
    many: bool = False
    must_match: int | None = None
    stale: Callable[[], Exception] | None = None


async def write_all(session: AsyncSession, writes: Sequence[Write], *, last: bool = False) -> None:
    """Run ``writes`` in order, in the session's transaction. On SQLite they are one call on the connection
    (``_on_sqlite``); elsewhere they run one after another, as ``execute`` and ``execute_many`` run them.

    ``last``: nothing is written after them in this transaction, so on SQLite the commit goes in the same
    call; SQLAlchemy's commit then finds nothing left to commit (``bot.db``'s connection skips it). A stale
    write or an error commits nothing: the transaction rolls back as before."""
    if not writes:
        return
    driver = await _driver(session)
    if driver is None or driver.sqlite is None:
        for write in writes:
            if write.many:
                await execute_many(session, write.statement, write.params)
                continue
            matched = await execute(session, write.statement, write.params)
            if write.must_match is not None and matched != write.must_match:
                raise _stale(write)
        return
    batch = []
    for write in writes:
        compiled, parameters = _for_driver(driver, write.statement, write.params, write.many)
        batch.append((compiled.sql, parameters, write.many, write.must_match))
    try:
        mismatched = await _on_sqlite(driver.sqlite, functools.partial(_run_all, batch), commit=last)
    except sqlite3.Error as err:  # as SQLAlchemy would raise it, naming the statement that failed
        sql, parameters, *_ = batch[getattr(err, _FAILED_AT, 0)]
        raise DBAPIError.instance(sql, parameters, err, sqlite3.Error) from err
    if mismatched is not None:
        raise _stale(writes[mismatched])


_FAILED_AT = "fray_failed_at"  # set on a driver error: the index of the statement that raised it


# --- SQLite: statements on the loop's own thread ------------------------------------------------------

T = TypeVar("T")
SQLiteCall = Callable[[sqlite3.Connection], T]


async def _on_sqlite(aio: SQLiteConnection, call: SQLiteCall[T], *, commit: bool = False) -> T:
    """``call`` on the session's SQLite connection, then (``commit``) the commit when it returned ``None``.

    It runs on the event loop's own thread: SQLite answers these statements in microseconds, and a hand-off
    to aiosqlite's thread and back costs about 80 µs of CPU (a queue, the thread's wake-up, the loop's).
    SQLite is told not to wait meanwhile (``no_wait``, kept until something runs in aiosqlite's thread):
    where it would (another connection holds the write lock, before anything was done) the call goes to
    aiosqlite's thread after all, which waits as the connection's busy timeout says, so the loop never
    blocks on a lock. A commit that would wait is left for SQLAlchemy's commit, which runs in that thread.
    The session owns the connection, so nothing else uses it meanwhile."""
    db = aio._conn
    aio.no_wait()
    try:
        result = call(db)
        if commit and result is None:
            _commit_unless_busy(db)
        return result
    except sqlite3.OperationalError as err:
        if not _busy(err) or getattr(err, _FAILED_AT, 0) != 0:
            raise
    aio.may_wait()
    # aiosqlite's own way to run a call in its thread, as each of its methods does (not public API:
    # pyproject bounds the version, and the suite runs this path)
    if commit:
        return await aio._execute(_then_commit, call, db)  # type: ignore[no-any-return]
    return await aio._execute(call, db)  # type: ignore[no-any-return]


def _then_commit(call: SQLiteCall[T], db: sqlite3.Connection) -> T:
    result = call(db)
    if result is None:
        db.commit()
    return result


def _commit_unless_busy(db: sqlite3.Connection) -> None:
    try:
        db.commit()
    except sqlite3.OperationalError as err:
        if not _busy(err):
            raise
        # still in its transaction: SQLAlchemy's commit commits it, waiting in aiosqlite's thread


def _busy(err: sqlite3.OperationalError) -> bool:
    return (getattr(err, "sqlite_errorcode", 0) & 0xFF) == sqlite3.SQLITE_BUSY


def _fetch_all(sql: str, parameters: Any, db: sqlite3.Connection) -> list[Any]:
    with closing(db.execute(sql, parameters)) as cursor:
        return cursor.fetchall()


def _matched(sql: str, parameters: Any, db: sqlite3.Connection) -> int:
    with closing(db.execute(sql, parameters)) as cursor:
        return int(cursor.rowcount)


def _each(sql: str, parameters: Any, db: sqlite3.Connection) -> None:
    db.executemany(sql, parameters).close()


def _run_all(batch: Sequence[tuple[str, Any, bool, int | None]], db: sqlite3.Connection) -> int | None:
    """Each statement on the connection; the index of the first guarded one that matched another number of
    rows (nothing after it is run)."""
    for index, (sql, parameters, many, must_match) in enumerate(batch):
        try:
            cursor = db.executemany(sql, parameters) if many else db.execute(sql, parameters)
        except sqlite3.Error as err:
            setattr(err, _FAILED_AT, index)
            raise
        try:
            if must_match is not None and cursor.rowcount != must_match:
                return index
        finally:
            cursor.close()
    return None


def _stale(write: Write) -> Exception:
    if write.stale is None:
        raise ValueError("a guarded write needs stale")
    return write.stale()
