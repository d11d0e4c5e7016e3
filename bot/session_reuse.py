"""Sessions for the change path and its reads: kept for the next change once closed, and on SQLite begun and
closed without a trip through the greenlet where nothing of it has to wait.

A change made a new ``AsyncSession`` (and the ORM session inside it), began it through the greenlet
(``await session.connection()``) and committed and closed it through the greenlet again: about 230 µs of CPU
for a change that does nothing, a sixth of a whole ``/gm damage`` on the change path. A closed session is
reset by SQLAlchemy (``close_resets_only``) and may be used again, and on SQLite neither beginning nor a
commit with nothing left to commit awaits anything when the pool lends a connection it holds and has room
to take it back: SQLite begins its transactions itself, before the first write, and ``bot.db``'s connection
skips a commit or rollback with no transaction open. Those steps then run as they are, in about 70 µs.
Where any of that does not hold (PostgreSQL, a pool with no connection to lend or one it must close on its
return, ORM objects still to flush, a transaction still open), they go through the greenlet as before.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import MissingGreenlet
from sqlalchemy.ext.asyncio import AsyncConnection, async_sessionmaker
from sqlalchemy.orm import Session
from sqlalchemy.pool import QueuePool
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db import SQLiteConnection

KEPT = 8  # closed sessions kept for reuse (a change holds one; the pool lends six connections on SQLite)


class ReusedSessions:
    """Sessions of one factory, reused; ``begin``, ``commit_and_close`` and ``close`` as described above."""

    def __init__(self, factory: async_sessionmaker[AsyncSession]) -> None:
        self.factory = factory
        self._idle: list[AsyncSession] = []
        engine = factory.kw.get("bind")
        pool = getattr(getattr(engine, "sync_engine", None), "pool", None)
        sqlite = engine is not None and engine.dialect.name == "sqlite"
        self._pool: QueuePool | None = pool if sqlite and isinstance(pool, QueuePool) else None

    def take(self) -> AsyncSession:
        """A session with nothing in it: one kept from before, or a new one."""
        return self._idle.pop() if self._idle else self.factory()

    def give_back(self, session: AsyncSession) -> None:
        """A closed session, for the next change (kept only if it is closed: no transaction)."""
        if len(self._idle) < KEPT and session.sync_session.get_transaction() is None:
            session.info.clear()
            self._idle.append(session)

    async def begin(self, session: AsyncSession) -> AsyncConnection:
        """The session's connection, its transaction begun (``await session.connection()``)."""
        if self._pool is not None and self._pool.checkedin() > 0:
            try:
                sync_connection = session.sync_session.connection()
            except MissingGreenlet:  # the connection lent had to connect anew (nothing was begun)
                pass
            else:
                return AsyncConnection._retrieve_proxy_for_target(sync_connection)
        return await session.connection()

    async def commit_and_close(self, session: AsyncSession) -> None:
        """Commit (nothing left to commit where the last writes committed themselves) and close."""
        if self._nothing_awaits(session):
            _commit_and_close(session.sync_session)
        else:
            await session.run_sync(_commit_and_close)

    async def close(self, session: AsyncSession) -> None:
        """Close a session that wrote nothing (a read): nothing is left to roll back."""
        if self._nothing_awaits(session):
            session.sync_session.close()
        else:
            await session.run_sync(_close)

    def _nothing_awaits(self, session: AsyncSession) -> bool:
        """Whether committing and closing ``session`` runs no statement and closes no connection: on SQLite,
        nothing for the ORM to flush, no transaction open on its connection, and room in the pool for that
        connection (a pool full already closes the connection given back, and closing awaits)."""
        if self._pool is None:
            return False
        sync = session.sync_session
        if sync.new or sync.dirty or sync.deleted:
            return False
        transaction = sync.get_transaction()
        if transaction is None:
            return True
        # each connection is there twice, by itself and by its engine (SQLAlchemy's own bookkeeping, the
        # one place that lists them)
        held = getattr(transaction, "_connections", None)
        connections = {id(c): c for c, *_ in held.values()} if held is not None else None
        if connections is None or len(connections) > 1:
            return False
        if self._pool.checkedin() + len(connections) > self._pool.size():
            return False
        return not any(_in_transaction(c) for c in connections.values())


def _in_transaction(connection: Any) -> bool:
    if connection.closed or connection.invalidated:
        return True  # not known: through the greenlet
    driver = connection.connection.driver_connection
    return not isinstance(driver, SQLiteConnection) or driver._connection is None or driver.in_transaction


def _commit_and_close(session: Session) -> None:
    session.commit()
    session.close()


def _close(session: Session) -> None:
    session.close()
