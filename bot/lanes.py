"""Lanes: on SQLite, the change path and its reads run on connections kept out of the pool, each with a session
bound to it for good.

A session bound to the engine checks a connection out of the pool when it begins (a ``Connection``, a
``SessionTransaction``, the pool's bookkeeping) and commits, closes and checks it back in when it ends: on
SQLite that was a sixth of the instructions of a whole ``/gm damage`` (2.70 M with it, 2.25 M on a lane),
for a transaction the driver begins and commits by itself. A lane's session is never begun on the hot path:
``bot.lean`` runs the change's statements on the lane's driver connection and commits with its last writes.
Code that uses the session as an ORM session (``exec``, ``get``, ``add``) begins it on that same connection,
so it is the same SQLite transaction, and ``finish`` commits it with everything else.

A lane is lent to one change or read at a time (``take``); ``finish`` or ``abandon`` gives it back with no
transaction open on it and nothing in its session. The lanes of an engine are held for the engine's life and
closed when it is disposed (the bot's shutdown, each test's end). Only SQLite files on ``bot.db``'s own
connection get lanes, and only where the pool has room for them beside its other users; anything else (and a
change that finds every lane lent) goes through ``bot.session_reuse`` as before.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import QueuePool
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db import SQLITE_LANES, SQLiteConnection

# what the pool must still lend beside the lanes (reads outside the change path, the reminder loop's due query)
OTHERS = 2
_ON_ENGINE = "_fray_lanes"  # the attribute of the (sync) engine that holds its lanes


@dataclass(eq=False)
class Lane:
    connection: AsyncConnection  # checked out of the engine's pool for good
    session: AsyncSession  # bound to ``connection``
    driver: SQLiteConnection


class Lanes:
    """The lanes of one engine (``of``), lent one at a time."""

    def __init__(self, engine: AsyncEngine, count: int) -> None:
        self.engine = engine
        self.count = count
        self._free: list[Lane] = []
        self._all: set[Lane] = set()
        self._opening = 0  # lanes being connected (counted against ``count``)
        self._closed: set[Lane] = set()  # lent when the engine was disposed: closed when given back
        self._closing: set[asyncio.Task[None]] = set()

    @staticmethod
    def of(engine: Any) -> Lanes | None:
        """The engine's lanes (one set per engine), or ``None`` where it gets none (see the module doc)."""
        sync = getattr(engine, "sync_engine", None)
        if sync is None or engine.dialect.name != "sqlite":
            return None
        found: Lanes | None = getattr(sync, _ON_ENGINE, None)
        if found is None:
            pool = sync.pool
            if not isinstance(pool, QueuePool) or pool.size() + pool._max_overflow < SQLITE_LANES + OTHERS:
                return None
            found = Lanes(engine, SQLITE_LANES)
            setattr(sync, _ON_ENGINE, found)  # kept as long as the engine, and no longer
            event.listen(sync, "engine_disposed", found._close_all)
        return found

    def idle(self) -> tuple[Lane, ...]:
        """The lanes given back and not lent since."""
        return tuple(self._free)

    async def take(self) -> Lane | None:
        """A free lane (the one given back last: its pages are warm), a new one while fewer than ``count``
        exist, else ``None``. A new one is a connection the pool makes, or one that is not ``bot.db``'s own
        (then ``None`` for good: no lane is kept)."""
        if self._free:
            return self._free.pop()
        if len(self._all) + self._opening >= self.count:
            return None
        self._opening += 1
        try:
            connection = await self.engine.connect()
        finally:
            self._opening -= 1
        driver = connection.sync_connection.connection.driver_connection  # type: ignore[union-attr]
        if not isinstance(driver, SQLiteConnection):
            await connection.close()
            self.count = 0
            return None
        lane = Lane(connection, AsyncSession(bind=connection, expire_on_commit=False), driver)
        self._all.add(lane)
        return lane

    async def finish(self, lane: Lane) -> None:
        """Commit what the lane's transaction holds (the session's, where something began it, and the driver's),
        then give the lane back. Raises what the commit raises (then ``abandon`` it)."""
        session = lane.session
        sync = session.sync_session
        if sync.new or sync.dirty or sync.deleted or sync.in_transaction():
            await session.commit()
        if lane.driver.in_transaction:  # the last writes could not commit (busy); else nothing to do
            await lane.driver.commit()
        self._give_back(lane)

    def end_read(self, lane: Lane) -> bool:
        """Give back the lane of a read, with nothing to await: whether it could be (``False``: something left
        a transaction open in the driver; ``abandon`` it). A session something began (``get``) closes here:
        with no transaction in the driver its rollback does nothing."""
        if lane.driver.in_transaction:
            return False
        sync = lane.session.sync_session
        if sync.in_transaction():
            sync.close()
        self._give_back(lane)
        return True

    async def abandon(self, lane: Lane) -> None:
        """Roll back whatever the lane's transaction holds and give it back; it finishes even when its caller
        is cancelled meanwhile. A lane that cannot be rolled back is closed instead (the pool replaces its
        connection)."""
        await asyncio.shield(asyncio.ensure_future(self._roll_back(lane)))

    async def _roll_back(self, lane: Lane) -> None:
        try:
            if lane.session.sync_session.in_transaction():
                await lane.session.rollback()
            await lane.driver.rollback()
        except Exception:
            await self._close(lane)
            raise
        self._give_back(lane)

    def _give_back(self, lane: Lane) -> None:
        sync = lane.session.sync_session
        if sync.identity_map:
            sync.expunge_all()
        lane.session.info.clear()
        if lane in self._closed:
            self._closed.discard(lane)
            closing = asyncio.ensure_future(self._close(lane))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
            return
        self._free.append(lane)

    async def _close(self, lane: Lane) -> None:
        """Close a lent lane (never a free one)."""
        self._all.discard(lane)
        await lane.connection.invalidate()  # closes the driver connection; the pool forgets it

    def _close_all(self, _engine: Any) -> None:
        """The engine was disposed: its pool closed what it held, and the lanes are closed here (a lent one when
        it is given back). Runs inside ``AsyncEngine.dispose``, where the driver may be awaited."""
        for lane in list(self._free):
            self._all.discard(lane)
            lane.connection.sync_connection.invalidate()  # type: ignore[union-attr]
        self._free.clear()
        self._closed |= self._all
        self._all = set(self._closed)
