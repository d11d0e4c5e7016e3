"""The one change path: every write goes through ``Store.change(key)`` and ``versioned_update``.

::

    async with store.change(channel_key(channel_id)) as session:   # the resource's lock, one transaction
        row = await session.get(Model, pk)                          # load
        ...                                                         # the caller's change (rules in between)
        await versioned_update(session, Model, pk, row.version, values, stale=StaleX)
    reply(...)                                                      # only after the commit

- **One lock registry**, here: ``Store.lock(key)`` for a resource key (``channel_key``, ``characters_key``,
  ``guild_key``, ``commands_key``). Locks are held weakly: one lives only while some change holds or waits
  for it, so the registry never grows and a lock is never carried from one event loop to another (a store
  serves one bot on one loop; tests with a fresh loop each get fresh locks). The lock serialises this process's
  changes to one resource; the version check catches everyone else. On SQLite ``write_turn`` makes the
  process's changes take turns at the database from their first write to their commit (one writer; readers
  use WAL snapshots meanwhile); a write made before it is refused (``WriteOutOfTurn``). PostgreSQL locks
  rows, so there changes to different resources write side by side (a turn held across a change's round
  trips to the server made all of them wait for each other).
- **Across processes** (PostgreSQL, several bot processes on one database): inside the transaction,
  ``change`` also takes ``pg_advisory_xact_lock(resource_lock_id(key))``, so changes to one resource
  queue across processes too instead of failing as stale; the server releases it at commit or rollback
  (a crashed process holds nothing). The in-process lock is still taken first, so one process queues its
  own changes without holding a database connection each. SQLite has one writer at a time anyway.
- **Version-checked writes**: ``versioned_update`` is ``UPDATE … SET …, version = v + 1 WHERE pk = ? AND
  version = v``; anything but one row raises the caller's ``Stale`` error, and leaving the block with an
  exception rolls the whole transaction back, so nothing is saved. ``compare_and_set`` is the same write
  guarded by other columns (the reminder claim, which must not make a member's command stale);
  ``claim_row`` adds ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so racing processes never claim one row twice.
- A new row has no version to check: its unique key decides (a channel's row inserted first by someone
  else is ``StaleChannel``; a second open encounter in a channel is ``EncounterOpen``; a taken character
  name is ``DuplicateName``). A write that reads nothing first (the GM role) needs no version.
- Encounters add their event-log row in the same transaction (``bot.encounters.edit_encounter``).

``edit_channel(where)`` is this path for a channel's ``ChannelConfig`` (created on first use). Readers use
``channel_view`` (no lock; a thread without its own system reads its parent's).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import hashlib
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql as sa_postgresql
from sqlalchemy.dialects import sqlite as sa_sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlalchemy.pool import QueuePool
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import lean
from bot.errors import BotError, StaleChannel
from bot.lanes import Lanes
from bot.models import ChannelConfig, GuildConfig, SecretRoll
from bot.outside_writes import OutsideWrites
from bot.plain_rows import channel_rows
from bot.session_reuse import ReusedSessions

Key = tuple[Hashable, ...]

GM_ROLE_KEPT = 30.0  # seconds a guild's GM role is kept once read (another process may set it meanwhile)
GM_ROLE_OF = sa.select(GuildConfig.gm_role_id).where(GuildConfig.guild_id == sa.bindparam("guild_id"))


def channel_key(channel_id: int) -> Key:
    """A channel or thread: its settings, its dice queue, its encounter and its reminder settings."""
    return ("channel", channel_id)


def characters_key(guild_id: int, owner_id: int) -> Key:
    """One member's characters in one server (names are unique among them)."""
    return ("characters", guild_id, owner_id)


def guild_key(guild_id: int) -> Key:
    return ("guild", guild_id)


def commands_key(scope: str) -> Key:
    """The record of which commands were last synced to a scope (``bot.sync``)."""
    return ("commands", scope)


def resource_lock_id(key: Key) -> int:
    """A stable signed 64-bit number for a resource key (PostgreSQL's advisory lock ids are ``bigint``):
    the same in every process and across restarts, unlike ``hash()``."""
    digest = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


ADVISORY_LOCK = sa.text("SELECT pg_advisory_xact_lock(:id)")


# One writer per SQLite database: the transactions of all changes take turns from their first write to their
# commit (``write_turn``). Pooled connections writing at once would wait on SQLite's single write lock in its
# busy handler, sleeping up to tens of milliseconds a try; taking turns here, none waits longer than the
# writes before it. Loading and the rules in between still run side by side.
WRITER: Key = ("writer",)
WRITE_TURN = "fray.write_turn"


def _held(session: AsyncSession, connection: Any, turn: _WriteTurn) -> AsyncSession:
    """``session``, noted as a change's: its connection kept for the statements (``bot.lean``), and the turn
    the change holds, where ``write_turn`` and the engine's listener (``_refuse_write_out_of_turn``) look."""
    session.info[lean.CONNECTION] = connection
    session.info[WRITE_TURN] = turn
    connection.sync_connection.info[WRITE_TURN] = turn
    return session


def _let_go(session: AsyncSession) -> None:
    """Forget what a closed session's ``info`` keeps: it refers to the session's transaction
    (``bot.lean`` keeps the driver connection per transaction there), a cycle the garbage collector
    frees only later. A storm of changes peaked 5 MB higher while those waited for it."""
    session.info.clear()


class _WriteTurn:
    """A change's turn at the database's one writer; without a ``lock`` (PostgreSQL, which locks rows) it is
    held from the start and never waited for."""

    def __init__(self, lock: asyncio.Lock | None) -> None:
        self.lock = lock
        self.taken = lock is None
        self.over = False  # the change ended: its connection may serve anyone now
        self.saving_encounter = False  # the change's own save of its encounter row (``bot.outside_writes``)
        self.wrote_joined = False  # it wrote a row a kept read joins, otherwise (``bot.outside_writes``)

    async def take(self) -> None:
        if not self.taken and self.lock is not None:
            await self.lock.acquire()
            self.taken = True

    def give_back(self) -> None:
        self.over = True
        if self.taken and self.lock is not None:
            self.taken = False
            self.lock.release()


def _pool_capacity(engine: Any) -> int | None:
    """How many connections the engine's pool lends at once (``None`` where it does not queue)."""
    pool = getattr(getattr(engine, "sync_engine", None), "pool", None)
    if not isinstance(pool, QueuePool) or pool._max_overflow < 0:  # a negative overflow: no limit
        return None
    return pool.size() + pool._max_overflow


async def write_turn(session: AsyncSession) -> None:
    """Before a change's first write: wait for the database's one writer (kept until the commit)."""
    turn = session.info.get(WRITE_TURN)
    if turn is not None and not turn.taken:
        # The change holds its connection already (``Store.change`` takes it before the turn exists): a turn
        # held while waiting for the pool would wait on the very changes that hold every pooled connection
        # and wait for the turn (a deadlock until the pool times out).
        await turn.take()


@contextlib.contextmanager
def own_save(session: AsyncSession) -> Iterator[None]:
    """A write of the change's encounter row that the kept reads learn of from the writer itself, not an
    outside write (``bot.outside_writes``): the change's own save hands its read on; the live tracker's
    message id marks its channel (``bot.encounter_rows.ReadCache.written``)."""
    turn = session.info.get(WRITE_TURN)
    if turn is None:
        yield
        return
    turn.saving_encounter = True
    try:
        yield
    finally:
        turn.saving_encounter = False


class WriteOutOfTurn(RuntimeError):
    """A change wrote before taking the writer's turn. On SQLite its write lock would then be held while it
    waits for the turn, and the change holding the turn would wait for that lock: both stall until the busy
    timeout fails one of them. Every write helper calls ``write_turn`` first; this catches one that does not."""


_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def _turn_of(conn: Any) -> _WriteTurn | None:
    """The change a statement on ``conn`` belongs to, while it lasts."""
    turn: _WriteTurn | None = conn.info.get(WRITE_TURN)
    return None if turn is None or turn.over else turn


def _refuse_write_out_of_turn(
    conn: Any, _cursor: Any, statement: str, _parameters: Any, _context: Any, _executemany: bool
) -> None:
    turn = conn.info.get(WRITE_TURN)
    if (
        turn is not None
        and not turn.taken
        and not turn.over
        and statement.lstrip()[:7].upper().startswith(_WRITES)
    ):
        raise WriteOutOfTurn(statement.split(None, 3)[:3])


# --- version-checked writes -----------------------------------------------------------------------------


def _primary_key(model: type) -> sa.Column[Any]:
    (column,) = model.__table__.primary_key.columns  # type: ignore[attr-defined]
    return column


def _matches(column: sa.Column[Any], value: Any) -> sa.ColumnElement[bool]:
    return column.is_(None) if value is None else column == value


async def compare_and_set(
    session: AsyncSession, model: type, pk: Any, expected: Mapping[str, Any], values: Mapping[str, Any]
) -> bool:
    """``UPDATE model SET values WHERE pk = ? AND <each expected column = its value>``; whether exactly one
    row matched. The guarded write every change path ends in (``versioned_update`` guards on the version)."""
    await write_turn(session)
    statement, params = _guarded(model, pk, expected, values)
    return await lean.execute(session, statement, params) == 1


def versioned_write(
    model: type, pk: Any, loaded_version: int, values: Mapping[str, Any], *, stale: Callable[[], BotError]
) -> lean.Write:
    """``versioned_update`` as one write of a batch (``lean.write_all``; take ``write_turn`` first)."""
    statement, params = _guarded(
        model, pk, {"version": loaded_version}, {**values, "version": loaded_version + 1}
    )
    return lean.Write(statement, params, must_match=1, stale=stale)


def _guarded(
    model: type, pk: Any, expected: Mapping[str, Any], values: Mapping[str, Any]
) -> tuple[sa.Update, dict[str, Any]]:
    table = model.__table__  # type: ignore[attr-defined]
    shape = tuple((name, value is None) for name, value in expected.items())
    statement = _guarded_update(table, _primary_key(model).name, shape, tuple(values))
    params = {
        "guarded_pk": pk,
        **{f"expected_{name}": v for name, v in expected.items() if v is not None},
        **{f"new_{name}": v for name, v in values.items()},
    }
    return statement, params


@functools.cache
def _guarded_update(
    table: sa.Table, key: str, expected: tuple[tuple[str, bool], ...], columns: tuple[str, ...]
) -> sa.Update:
    """The guarded ``UPDATE`` of one shape, built once: building a statement and its cache key costs more
    than running it."""
    conditions = [
        table.c[key] == sa.bindparam("guarded_pk"),
        *(
            table.c[name].is_(None) if is_null else table.c[name] == sa.bindparam(f"expected_{name}")
            for name, is_null in expected
        ),
    ]
    return (
        sa.update(table)
        .where(*conditions)
        .values({name: sa.bindparam(f"new_{name}") for name in columns})
        .execution_options(synchronize_session=False)
    )


async def claim_row(
    session: AsyncSession, model: type, pk: Any, expected: Mapping[str, Any], values: Mapping[str, Any]
) -> bool:
    """``compare_and_set`` for a row several processes race to claim (a due reminder). On PostgreSQL the row
    is first locked with ``SELECT … FOR UPDATE SKIP LOCKED``: a row another transaction holds (another
    process claiming it, or a member's command saving it) is skipped at once, never waited for, and the
    next pass sees it as it then is. On SQLite (one writer at a time) the compare-and-set alone decides."""
    if session.bind.dialect.name == "postgresql":
        table = model.__table__  # type: ignore[attr-defined]
        column = _primary_key(model)
        conditions = [column == pk, *(_matches(table.c[name], v) for name, v in expected.items())]
        locked = await session.exec(
            sa.select(column).where(*conditions).with_for_update(skip_locked=True)  # type: ignore[call-overload]
        )
        if locked.first() is None:
            return False
    return await compare_and_set(session, model, pk, expected, values)


async def versioned_update(
    session: AsyncSession,
    model: type,
    pk: Any,
    loaded_version: int,
    values: Mapping[str, Any],
    *,
    stale: Callable[[], BotError],
) -> int:
    """Write ``values`` and ``version = loaded_version + 1`` only if the row still has ``loaded_version``;
    else raise ``stale()`` (the transaction then rolls back: nothing is saved). Returns the new version."""
    new_version = loaded_version + 1
    if not await compare_and_set(
        session, model, pk, {"version": loaded_version}, {**values, "version": new_version}
    ):
        raise stale()
    return new_version


async def versioned_delete(
    session: AsyncSession, model: type, pk: Any, loaded_version: int, *, stale: Callable[[], BotError]
) -> None:
    """Delete the row only if it still has ``loaded_version``; else raise ``stale()``."""
    await write_turn(session)
    table = model.__table__  # type: ignore[attr-defined]
    result = await session.exec(
        sa.delete(table)  # type: ignore[call-overload]
        .where(_primary_key(model) == pk, table.c.version == loaded_version)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        raise stale()


async def put_row(session: AsyncSession, model: type, values: Mapping[str, Any]) -> None:
    """``INSERT … ON CONFLICT (pk) DO UPDATE``: a fact whose latest word wins (which commands were synced).
    Two processes starting at once both write it; neither may fail on the other's row."""
    await write_turn(session)
    table = model.__table__  # type: ignore[attr-defined]
    dialect = session.bind.dialect.name
    insert = sa_postgresql.insert if dialect == "postgresql" else sa_sqlite.insert
    statement = insert(table).values(**values)
    key = _primary_key(model).name
    statement = statement.on_conflict_do_update(
        index_elements=[key], set_={name: value for name, value in values.items() if name != key}
    )
    await session.exec(statement)  # type: ignore[call-overload]


async def insert_channel(session: AsyncSession, config: ChannelConfig) -> None:
    """A channel's first row (version 1). Another process inserting it first makes this one stale."""
    await write_turn(session)
    config.version = 1
    session.add(config)
    try:
        await session.flush()
    except IntegrityError as err:
        raise StaleChannel() from err


def column_values(row: Any) -> dict[str, Any]:
    """Every column of an ORM row (JSON values copied), to compare with later or write back."""
    return {
        c.name: copy.deepcopy(getattr(row, c.name))
        for c in type(row).__table__.columns  # type: ignore[attr-defined]
    }


@dataclass(frozen=True, slots=True)
class Where:
    """Where a command was used: the guild, the channel (or thread) and, for a thread, its parent channel."""

    guild_id: int
    channel_id: int
    parent_id: int | None = None


@dataclass(frozen=True, slots=True)
class ChannelView:
    """The effective settings of a channel: its own, or for a thread its parent's where it has none."""

    system: str | None
    house_rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    inherited_system: bool = False

    def rules_for(self, system: str) -> Mapping[str, Any]:
        return self.house_rules.get(system, {})


def _merge_rules(parent: Mapping[str, Mapping[str, Any]], own: Mapping[str, Mapping[str, Any]]) -> dict:
    merged = {system: dict(values) for system, values in parent.items()}
    for system, values in own.items():
        merged.setdefault(system, {}).update(values)
    return merged


def view_of(own: ChannelConfig | None, parent: ChannelConfig | None) -> ChannelView:
    own_rules = own.house_rules if own is not None else {}
    parent_rules = parent.house_rules if parent is not None else {}
    if own is not None and own.system:
        return ChannelView(own.system, _merge_rules(parent_rules, own_rules), False)
    system = parent.system if parent is not None else None
    return ChannelView(system, _merge_rules(parent_rules, own_rules), system is not None)


@dataclass
class ChannelEdit:
    """What ``edit_channel`` yields: the open session, the channel's row (detached: change it freely, the
    columns that differ from the loaded ones are saved at the end), its parent's row (read-only)."""

    session: AsyncSession
    config: ChannelConfig
    parent: ChannelConfig | None
    created: bool

    @property
    def view(self) -> ChannelView:
        return view_of(self.config, self.parent)


class Store:
    """Reads, the lock registry and the change path over one session factory (one per bot)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Callable[[], datetime],
        *,
        before_change: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        # Awaited holding the resource's lock, before the transaction: the cogs acknowledge the member's
        # interaction there when it might not answer in time (``cogs.deadline``); raising saves nothing.
        self.before_change = before_change
        self._sessions = ReusedSessions(sessions)  # for changes and ``reading`` where no lane is free
        self._locks: weakref.WeakValueDictionary[Key, asyncio.Lock] = weakref.WeakValueDictionary()
        self._gm_roles: dict[int, tuple[int | None, float]] = {}  # guild id → (GM role, when read)
        self._gm_role_reads: dict[int, asyncio.Future[int | None]] = {}  # guild id → the read under way
        engine = sessions.kw.get("bind")
        # SQLite has one write lock per file: the process's changes take turns for it (``write_turn``).
        # PostgreSQL locks rows: changes to different resources write side by side.
        self._one_writer = engine is None or engine.dialect.name == "sqlite"
        self._lanes = Lanes.of(engine)  # SQLite: connections kept for changes and reads (``bot.lanes``)
        self._connection_slots = self._lanes.count if self._lanes is not None else _pool_capacity(engine)
        self._connection_gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        # Set while this store is its database's only writer (``sole_writer``): its kept reads are trusted
        # without a probe until a write it does not account for (``bot.outside_writes``).
        self.outside_writes: OutsideWrites | None = None
        self._alone: Callable[[], bool] | None = None
        if engine is not None and not event.contains(
            engine.sync_engine, "before_cursor_execute", _refuse_write_out_of_turn
        ):
            event.listen(engine.sync_engine, "before_cursor_execute", _refuse_write_out_of_turn)

    def sole_writer(self, alone: Callable[[], bool] | None = None) -> None:
        """This store is now its SQLite database's only writer (no other store of this process writes it;
        ``alone`` says whether no other process has joined since, ``bot.sole_writer``): a kept read is
        trusted until a write to its rows that no change of its own accounts for."""
        engine = self.sessions.kw.get("bind")
        if engine is not None and engine.dialect.name == "sqlite":
            self.outside_writes = OutsideWrites.of(engine, _turn_of)
            self._alone = alone

    def trusted_count(self) -> int | None:
        """The outside writes counted now, while this store may trust its kept reads (``bot.outside_writes``);
        ``None`` where it must ask the database. Another process joining ends the trust for good."""
        writes = self.outside_writes
        if writes is None:
            return None
        if self._alone is not None and not self._alone():
            self.outside_writes = None
            return None
        return writes.count

    def lock(self, key: Key) -> asyncio.Lock:
        """The lock of one resource (the project's only locks; see the module doc)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def _connections(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Changes take the pool's connections in the order they asked for them. The pool's own queue lets
        a newcomer take a connection given back before the change woken for it runs; that change then
        queues again at the end, and under load some changes waited several times over (the slowest
        hundredth of fifty channels' changes took 330 ms where the median took 80). asyncio's semaphore is
        fair; one per loop, as wide as the pool."""
        if self._connection_slots is None:
            return contextlib.nullcontext()
        loop = asyncio.get_running_loop()
        if self._connection_gate is None or self._connection_gate[0] is not loop:
            self._connection_gate = (loop, asyncio.Semaphore(self._connection_slots))
        return self._connection_gate[1]

    @asynccontextmanager
    async def change(self, key: Key, *, across_processes: bool = True) -> AsyncIterator[AsyncSession]:
        """The resource's lock → one session and transaction (on PostgreSQL holding the resource's advisory
        lock too), yielded → commit on a clean exit; any exception rolls everything back. Write with
        ``versioned_update``; reply after the block.

        ``across_processes=False`` skips the advisory lock: for a writer that locks its row itself and
        must never wait for another process (the reminder claim, ``FOR UPDATE SKIP LOCKED``)."""
        async with self.lock(key):
            if self.before_change is not None:
                await self.before_change()
            turn = _WriteTurn(self.lock(WRITER) if self._one_writer else None)
            try:
                async with self._connections():
                    lane = await self._lanes.take() if self._lanes is not None else None
                    if lane is None:
                        async with self._change_in_session(turn, key, across_processes) as session:
                            yield session
                    else:  # on a lane (SQLite): its session is begun only if something uses it as an ORM one
                        assert self._lanes is not None
                        session = _held(lane.session, lane.connection, turn)
                        try:
                            yield session
                            await self._lanes.finish(lane)
                        except BaseException:
                            await self._lanes.abandon(lane)  # rolls back; finishes even if cancelled
                            raise
            finally:
                turn.give_back()
                if self.outside_writes is not None:
                    self.outside_writes.ended(turn)

    @asynccontextmanager
    async def _change_in_session(
        self, turn: _WriteTurn, key: Key, across_processes: bool
    ) -> AsyncIterator[AsyncSession]:
        """A change in a session of the pool's (PostgreSQL; SQLite when every lane is lent)."""
        session = self._sessions.take()
        try:
            # Begins the transaction. The connection before the turn exists (see ``write_turn``), kept
            # for the statements.
            _held(session, await self._sessions.begin(session), turn)
            if across_processes and session.bind.dialect.name == "postgresql":
                await lean.execute(session, ADVISORY_LOCK, {"id": resource_lock_id(key)})
            yield session
            # The commit and the close at once (``session.begin()`` and the session's own close took
            # four trips through the greenlet and a task: a quarter of an empty change)
            await self._sessions.commit_and_close(session)
        except BaseException:
            await session.__aexit__(None, None, None)  # rolls back; finishes even if cancelled
            raise
        finally:
            _let_go(session)
        self._sessions.give_back(session)

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[AsyncSession]:
        """A session for reads outside the change path (no lock, nothing written): a free lane's on SQLite
        (``bot.lanes``), else one of the pool's, begun and closed as a change's is (``bot.session_reuse``):
        nothing of a read is left to roll back there, so its close never waits (the session's own close
        runs in a task of its own, as a close that waits must finish even when its caller is cancelled,
        and takes a trip of its own; a read that fails closes that way)."""
        lane = await self._lanes.take() if self._lanes is not None else None
        if lane is not None:
            lane.session.info[lean.CONNECTION] = lane.connection
            try:
                yield lane.session
            except BaseException:
                await self._lanes.abandon(lane)
                raise
            if not self._lanes.end_read(lane):
                await self._lanes.abandon(lane)
            return
        session = self._sessions.take()
        sqlite = session.bind.dialect.name == "sqlite"
        try:
            try:
                if sqlite:  # every read runs a statement: its connection now, as a change's
                    session.info[lean.CONNECTION] = await self._sessions.begin(session)
                yield session
            except BaseException:
                await session.__aexit__(None, None, None)
                raise
            if sqlite:
                await self._sessions.close(session)
            else:  # PostgreSQL rolls the read's transaction back: a round trip
                await session.__aexit__(None, None, None)
        finally:
            _let_go(session)
        self._sessions.give_back(session)

    # --- guilds -----------------------------------------------------------------------------------------

    async def gm_role_id(self, guild_id: int) -> int | None:
        """The guild's GM role, read at most every ``GM_ROLE_KEPT`` seconds: every GM command asks, and a
        guild's commands all reach one process (its shard), which also makes every change to it."""
        now = asyncio.get_running_loop().time()
        kept = self._gm_roles.get(guild_id)
        if kept is not None and now - kept[1] < GM_ROLE_KEPT:
            return kept[0]
        # One read per guild at a time: a thousand GM commands arriving together (or when the kept role
        # expires under load) wait for the same read instead of each holding a session in the pool's queue.
        reading = self._gm_role_reads.get(guild_id)
        if reading is None:
            reading = asyncio.ensure_future(self._read_gm_role(guild_id, now))
            self._gm_role_reads[guild_id] = reading
            reading.add_done_callback(functools.partial(self._gm_role_read_done, guild_id))
        return await asyncio.shield(reading)  # a waiter cancelled leaves the read to the others

    async def _read_gm_role(self, guild_id: int, asked_at: float) -> int | None:
        async with self.sessions() as session:
            rows = await lean.select(session, GM_ROLE_OF, {"guild_id": guild_id})
            role_id = rows[0]["gm_role_id"] if rows else None
        if self._gm_role_reads.get(guild_id) is asyncio.current_task():  # not forgotten by a set meanwhile
            self._gm_roles[guild_id] = (role_id, asked_at)
        return role_id

    def _gm_role_read_done(self, guild_id: int, reading: asyncio.Future[int | None]) -> None:
        if self._gm_role_reads.get(guild_id) is reading:
            del self._gm_role_reads[guild_id]
        if not reading.cancelled():
            reading.exception()  # retrieved: each waiter raises it itself

    async def set_gm_role(self, guild_id: int, role_id: int | None) -> None:
        """Set, whatever was there (a write that reads nothing needs no version)."""
        self._forget_gm_role(guild_id)
        try:
            async with self.change(guild_key(guild_id)) as session:
                row = await session.get(GuildConfig, guild_id)
                await write_turn(session)
                if row is None:
                    session.add(GuildConfig(guild_id=guild_id, gm_role_id=role_id))
                else:
                    row.gm_role_id = role_id
        finally:
            self._forget_gm_role(guild_id)  # a read during the change may have kept the old one

    def _forget_gm_role(self, guild_id: int) -> None:
        self._gm_roles.pop(guild_id, None)
        self._gm_role_reads.pop(guild_id, None)  # a read under way keeps nothing; the next ask reads anew

    # --- channels ---------------------------------------------------------------------------------------

    async def channel_view(self, where: Where) -> ChannelView:
        return (await self.channel_and_dice(where))[0]

    async def channel_and_dice(self, where: Where) -> tuple[ChannelView, list[int]]:
        """The channel's view and the dice its GM queued (read, no lock)."""
        async with self.reading() as session:
            own, parent = await channel_rows(session, where.channel_id, where.parent_id)
            return view_of(own, parent), list(own.dice_queue or []) if own is not None else []

    @asynccontextmanager
    async def edit_channel(self, where: Where) -> AsyncIterator[ChannelEdit]:
        """The change path for the channel's row (created on first use): yield it, then save what changed
        with a version check (``StaleChannel``: nothing saved)."""
        async with self.change(channel_key(where.channel_id)) as session:
            config = await session.get(ChannelConfig, where.channel_id)
            created = config is None
            if config is None:
                config = ChannelConfig(
                    channel_id=where.channel_id, guild_id=where.guild_id, parent_id=where.parent_id, version=0
                )
            else:
                session.expunge(config)  # only the versioned write below saves it, never an autoflush
            loaded = column_values(config)
            if where.parent_id and config.parent_id != where.parent_id:
                config.parent_id = where.parent_id
            parent_id = config.parent_id
            parent = await session.get(ChannelConfig, parent_id) if parent_id else None
            edit = ChannelEdit(session, config, parent, created)
            yield edit
            if created:
                await insert_channel(session, config)
                return
            changes = {k: v for k, v in column_values(config).items() if v != loaded[k] and k != "version"}
            if changes:
                config.version = await versioned_update(
                    session, ChannelConfig, where.channel_id, loaded["version"], changes, stale=StaleChannel
                )

    async def set_system(self, where: Where, system: str) -> ChannelView:
        async with self.edit_channel(where) as edit:
            edit.config.system = system
            return edit.view

    # --- secret rolls -----------------------------------------------------------------------------------

    async def secret_roll(self, roll_id: int) -> SecretRoll | None:
        async with self.sessions() as session:
            return await session.get(SecretRoll, roll_id)
