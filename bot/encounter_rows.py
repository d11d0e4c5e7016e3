"""An encounter's rows, read and written in plain statements (no unit of work): what a change reads
(``read_for_change``), and the combatant and grapple rows.

Every write to these rows happens inside the encounter's change path, together with the version bump of the
encounter row, so the rows of version *v* of an encounter never change: this process keeps the last ones it
read or wrote (``RowCache``). The change's read of the encounter joined with the channel's settings and
party instances is kept the same way (``ReadCache``): a change or a read of versions it knows asks the
database only for those versions (a probe), not for the state's JSON and the settings again; a process that
is the database's only writer does not ask at all while nothing it does not account for wrote those rows
(``bot.outside_writes``). Rows handed out are new objects each time (callers may change them; the cache keeps the
column values as plain dicts).

Saving compares each row with the values it was loaded with and writes only what changed: one
``UPDATE … WHERE id = ?`` run for all changed rows at once, nothing when nothing changed.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import lean
from bot.latest import LatestByEncounter
from bot.models import ChannelConfig, Combatant, Encounter, Grapple, PartyInstance
from bot.outside_writes import OutsideWrites
from bot.plain_rows import plain
from bot.store import write_turn

COMBATANTS: sa.Table = Combatant.__table__  # type: ignore[attr-defined]
GRAPPLES: sa.Table = Grapple.__table__  # type: ignore[attr-defined]
SIZE = 256  # encounters whose newest rows are kept (those in play)

Values = dict[str, Any]
Rows = tuple[tuple[Values, ...], tuple[Values, ...]]  # combatants (by entry), grapples (by id)


class RowCache(LatestByEncounter[Rows]):
    """The rows of the newest version of recent encounters: ``(encounter id, version) → (combatants,
    grapples)``."""

    def __init__(self, size: int = SIZE) -> None:
        super().__init__(size)


@dataclass(slots=True)
class CombatantRow:
    """A ``combatant`` row as plain data (a SQLModel instance costs ~20× as much to make, and a change makes
    several per combatant). Its fields are the table's columns (a test keeps them so)."""

    __table__: ClassVar[sa.Table] = COMBATANTS
    id: int
    encounter_id: int
    entry: int
    name: str
    owner_id: int | None = None
    character_id: int | None = None
    is_pc: bool = True
    side: str = "party"
    distance: int = 0
    initiative: int | None = None
    hp: int | None = None
    hp_max: int | None = None
    damage: int | None = None
    location_damage: dict[str, int] = field(default_factory=dict)
    conditions: list[str] = field(default_factory=list)
    last_gasp_round: int | None = None
    stored_healing: int | None = None


@dataclass(slots=True)
class GrappleRow:
    """A ``grapple`` row as plain data."""

    __table__: ClassVar[sa.Table] = GRAPPLES
    id: int
    encounter_id: int
    a_id: int
    b_id: int
    counter: int = 0
    pinned_id: int | None = None


def values_of(row: Any) -> Values:
    """Every column of a row (plain or model), by its table."""
    table = type(row).__table__
    return dict(zip(column_names(table), _columns_of(table)(row), strict=True))


@functools.cache
def _columns_of(table: sa.Table) -> Callable[[Any], tuple[Any, ...]]:
    """A row's column values in ``column_names`` order, read in one call (a change reads every combatant's
    twice; a third faster than attribute by attribute)."""
    names = column_names(table)
    get = operator.attrgetter(*names)
    return get if len(names) > 1 else lambda row: (get(row),)


@functools.cache
def column_names(table: sa.Table) -> tuple[str, ...]:
    """A table's column names, listed once (iterating SQLAlchemy's column collection builds a list each
    time, and a change lists every combatant's columns several times)."""
    return tuple(c.name for c in table.columns)


def combatant(values: Values) -> CombatantRow:
    return CombatantRow(**values)


def grapple(values: Values) -> GrappleRow:
    return GrappleRow(**values)


async def read_rows(session: AsyncSession, encounter_id: int) -> Rows:
    """Both sets of rows of an encounter, in two plain selects."""
    combatants = await session.exec(
        sa.select(COMBATANTS).where(COMBATANTS.c.encounter_id == encounter_id).order_by(COMBATANTS.c.entry)  # type: ignore[call-overload]
    )
    grapples = await session.exec(
        sa.select(GRAPPLES).where(GRAPPLES.c.encounter_id == encounter_id).order_by(GRAPPLES.c.id)  # type: ignore[call-overload]
    )
    return (
        tuple(dict(r._mapping) for r in combatants),
        tuple(dict(r._mapping) for r in grapples),
    )


async def rows_of(
    session: AsyncSession, cache: RowCache, encounter_id: int, version: int
) -> tuple[list[CombatantRow], list[GrappleRow]]:
    """The rows of that version of the encounter: from the cache, or read (and kept)."""
    combatants, grapples, _ = await rows_and_values_of(session, cache, encounter_id, version)
    return combatants, grapples


async def rows_and_values_of(
    session: AsyncSession, cache: RowCache, encounter_id: int, version: int
) -> tuple[list[CombatantRow], list[GrappleRow], list[Values]]:
    """``rows_of``, with each combatant's values as kept (``values_of`` of its row, without making them
    again: the rows are made of them and share their JSON values, which are replaced, never changed in
    place)."""
    rows = cache.get(encounter_id, version)
    if rows is None:
        rows = await read_rows(session, encounter_id)
        cache.put(encounter_id, version, rows)
    return [combatant(v) for v in rows[0]], [grapple(v) for v in rows[1]], list(rows[0])


async def insert_combatant(session: AsyncSession, values: Values) -> int:
    """A new combatant row; its id (the id the rules state uses)."""
    await write_turn(session)
    result = await session.exec(sa.insert(COMBATANTS).values(**values).returning(COMBATANTS.c.id))  # type: ignore[call-overload]
    return int(result.scalar_one())


async def delete_combatant(session: AsyncSession, combatant_id: int) -> None:
    await write_turn(session)
    await session.exec(sa.delete(COMBATANTS).where(COMBATANTS.c.id == combatant_id))  # type: ignore[call-overload]


def combatant_writes(loaded: Sequence[Values], saved: Iterable[Values]) -> list[lean.Write]:
    """The ``UPDATE`` of every combatant whose columns (``saved``: each one's values now) differ from how it
    was loaded: one executemany per set of changed columns (almost always just one), none when nothing
    changed."""
    before = {v["id"]: v for v in loaded}
    changed: list[Values] = []
    for now in saved:
        was = before.get(now["id"])
        if was is None or now == was:
            continue
        changed.append({"row_id": now["id"], **{f"new_{k}": v for k, v in now.items() if v != was.get(k)}})
    by_columns: dict[tuple[str, ...], list[Values]] = {}
    for values in changed:
        by_columns.setdefault(tuple(sorted(values)), []).append(values)
    return [
        lean.Write(_combatant_update(columns), params, many=True) for columns, params in by_columns.items()
    ]


@functools.cache
def _combatant_update(columns: tuple[str, ...]) -> sa.Update:
    return (
        sa.update(COMBATANTS)
        .where(COMBATANTS.c.id == sa.bindparam("row_id"))
        .values({name.removeprefix("new_"): sa.bindparam(name) for name in columns if name != "row_id"})
    )


async def replace_grapples(session: AsyncSession, encounter_id: int, rows: Sequence[Values]) -> None:
    await write_turn(session)
    await session.exec(sa.delete(GRAPPLES).where(GRAPPLES.c.encounter_id == encounter_id))  # type: ignore[call-overload]
    if rows:
        await session.exec(sa.insert(GRAPPLES), params=list(rows))  # type: ignore[call-overload]


async def replace_combatants(session: AsyncSession, encounter_id: int, rows: Sequence[Values]) -> None:
    await write_turn(session)
    await session.exec(sa.delete(COMBATANTS).where(COMBATANTS.c.encounter_id == encounter_id))  # type: ignore[call-overload]
    if rows:
        await session.exec(sa.insert(COMBATANTS), params=list(rows))  # type: ignore[call-overload]


# --- a change's one read --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChangeRead:
    """What a change to a channel's open encounter starts from, read in one statement (or kept)."""

    encounter: Encounter
    own: ChannelConfig | None
    parent: ChannelConfig | None
    instances: dict[int, PartyInstance]  # by channel id: the channel's and its parent's, where stored

    def copy(self, **encounter_values: Any) -> ChangeRead:
        """New row objects (a change may set their attributes; a kept read must not see it), the
        encounter's ``encounter_values`` replaced."""
        return ChangeRead(
            encounter=_copied(self.encounter, encounter_values),
            own=_copied(self.own),
            parent=_copied(self.parent),
            instances={channel: _copied(row) for channel, row in self.instances.items()},
        )


def _as_read_back(value: Any) -> Any:
    """``UTCDateTime``: stored as naive UTC, read back in UTC. JSON values are kept as built: a system's
    ``state_to_dict`` gives plain JSON (lists, text keys; a test keeps it so)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return value


def _copied(row: Any, values: Mapping[str, Any] | None = None) -> Any:
    if row is None:
        return None
    return type(row)(**{**vars(row), **(values or {})})


_ENCOUNTER: sa.Table = Encounter.__table__  # type: ignore[attr-defined]
_CONFIG: sa.Table = ChannelConfig.__table__  # type: ignore[attr-defined]
_INSTANCE: sa.Table = PartyInstance.__table__  # type: ignore[attr-defined]


def _labelled(table: Any, prefix: str) -> list[sa.ColumnElement[Any]]:
    return [c.label(prefix + c.name) for c in table.c]


def _part(row: Mapping[str, Any], prefix: str, model: type, key: str) -> Any:
    if row[prefix + key] is None:
        return None
    return plain(model)(
        **{name.removeprefix(prefix): v for name, v in row.items() if name.startswith(prefix)}
    )


_BY_ID = sa.select(_ENCOUNTER).where(_ENCOUNTER.c.id == sa.bindparam("encounter_id"))


async def encounter_by_id(session: AsyncSession, encounter_id: int) -> Encounter | None:
    rows = await lean.select(session, _BY_ID, {"encounter_id": encounter_id})
    return plain(Encounter)(**rows[0]) if rows else None


# Encounter columns written without a version bump (compare-and-set: the live tracker's message id, a
# reminder's claim), so a read kept for a version takes them from the probe each time.
UNVERSIONED = ("tracker_message_id", "reminder_due_at", "reminders_sent")


@functools.cache
def _joined(parent_given: bool, open_statuses: tuple[str, ...]) -> tuple[Any, ...]:
    """The read's tables: the channel's open encounter, its config and its parent's (``parent_id`` given,
    else the one the channel's row names), both channels' party instances."""
    own, parent = _CONFIG.alias("own"), _CONFIG.alias("parent")
    own_instance, parent_instance = _INSTANCE.alias("own_instance"), _INSTANCE.alias("parent_instance")
    parent_channel = sa.bindparam("parent_id", type_=sa.BigInteger) if parent_given else own.c.parent_id
    source = (
        _ENCOUNTER.outerjoin(own, own.c.channel_id == _ENCOUNTER.c.channel_id)
        .outerjoin(parent, parent.c.channel_id == parent_channel)
        .outerjoin(own_instance, own_instance.c.channel_id == _ENCOUNTER.c.channel_id)
        .outerjoin(parent_instance, parent_instance.c.channel_id == parent.c.channel_id)
    )
    where = (
        _ENCOUNTER.c.channel_id == sa.bindparam("channel_id", type_=sa.BigInteger),
        sa.or_(*(_ENCOUNTER.c.status == sa.bindparam(f"status_{i}", s) for i, s in enumerate(open_statuses))),
    )
    return source, where, own, parent, own_instance, parent_instance


@functools.cache
def _read_statement(parent_given: bool, open_statuses: tuple[str, ...]) -> sa.Select[Any]:
    """Every column of the joined rows; built once per shape (building the aliases and labels costs more
    than running the statement)."""
    source, where, own, parent, own_instance, parent_instance = _joined(parent_given, open_statuses)
    return (
        sa.select(
            *_labelled(_ENCOUNTER, "e_"),
            *_labelled(own, "o_"),
            *_labelled(parent, "p_"),
            *_labelled(own_instance, "oi_"),
            *_labelled(parent_instance, "pi_"),
        )
        .select_from(source)
        .where(*where)
    )


@functools.cache
def _probe_statement(parent_given: bool, open_statuses: tuple[str, ...]) -> sa.Select[Any]:
    """The same rows' versions (and the encounter's unversioned columns): what tells a kept read from a
    stale one, without the state's JSON or the settings' columns."""
    source, where, own, parent, own_instance, parent_instance = _joined(parent_given, open_statuses)
    return (
        sa.select(
            _ENCOUNTER.c.id.label("e_id"),
            _ENCOUNTER.c.version.label("e_version"),
            *(_ENCOUNTER.c[name].label("e_" + name) for name in UNVERSIONED),
            *_versions(own, parent, own_instance, parent_instance),
        )
        .select_from(source)
        .where(*where)
    )


_VERSIONED_PARTS = ("o_", "p_", "oi_", "pi_")


def _versions(*tables: Any) -> list[sa.ColumnElement[Any]]:
    return [
        column
        for table, prefix in zip(tables, _VERSIONED_PARTS, strict=True)
        for column in (
            table.c.channel_id.label(prefix + "channel_id"),
            table.c.version.label(prefix + "version"),
        )
    ]


def _key(row: Mapping[str, Any], parent_id: int | None) -> tuple[Any, ...]:
    """What a kept read of an encounter's version must still match: the parent asked for, and which
    settings and instance rows were joined at which versions."""
    return (
        parent_id,
        *(row[prefix + name] for prefix in _VERSIONED_PARTS for name in ("channel_id", "version")),
    )


class ReadCache(LatestByEncounter[tuple[tuple[Any, ...], "ChangeRead"]]):
    """The newest read of recent encounters: ``(encounter id, version) → (key, read)``. Every write to the
    rows it joins bumps their version (``versioned_update``) except the encounter's ``UNVERSIONED``
    columns, so a read whose key the probe matches is the read the database would give, once those are
    taken from the probe.

    Where the process is the database's only writer (``bot.outside_writes``), it also keeps which read is
    each channel's (``confirm``) and at which count of outside writes: while that count stands, the read is
    the database's without a probe (``current``).

    A write the process tells this cache of itself (``written``: the live tracker's message id) distrusts only
    its channel's read, not every channel's as an outside write does: a re-posted tracker then costs the
    channel's next change one probe, not each of the fifty channels in play theirs."""

    def __init__(self, size: int = SIZE) -> None:
        super().__init__(size)
        # (channel id, parent id asked for, open statuses) →
        # (outside writes counted, encounter id, version, ``stamp`` when its read began)
        self._current: OrderedDict[tuple[Any, ...], tuple[int, int, int, int]] = OrderedDict()
        self._stamp = 0  # one more for each ``written``
        self._written: OrderedDict[int, int] = OrderedDict()  # channel id → the stamp of its last ``written``
        self._forgotten = 0  # the newest stamp dropped from ``_written`` (kept as long as the reads)

    def stamp(self) -> int:
        """Now, as ``written`` counts: what a read takes before its first statement."""
        return self._stamp

    def written(self, channel_id: int) -> None:
        """The channel's encounter row is being written, or was (told before the statement and again after
        the commit, as ``bot.outside_writes`` counts): a read of it that began before now is not trusted."""
        self._stamp += 1
        self._written[channel_id] = self._stamp
        self._written.move_to_end(channel_id)
        while len(self._written) > self.size:
            _, dropped = self._written.popitem(last=False)
            self._forgotten = max(self._forgotten, dropped)

    def keep(self, read: ChangeRead, key: tuple[Any, ...]) -> None:
        self.put(read.encounter.id or 0, read.encounter.version, (key, read))

    def advance(
        self,
        encounter_id: int,
        version: int,
        values: Mapping[str, Any],
        where: tuple[Any, ...] | None = None,
        counted: int | None = None,
        writes: OutsideWrites | None = None,
    ) -> None:
        """A change saved ``values`` (with ``version`` + 1) to the encounter's row at ``version`` and wrote
        none of the other rows the read joins: the kept read becomes that of the new version, its values
        as the database gives them back. Read for ``where`` when the outside writes stood at ``counted``:
        while they still do, the new version is that channel's read."""
        kept = self.get(encounter_id, version)
        if kept is None:
            return
        key, read = kept
        stored = {name: _as_read_back(value) for name, value in values.items()}
        self.put(encounter_id, version + 1, (key, read.copy(**stored, version=version + 1)))
        if where is not None and writes is not None and counted == writes.count:
            # under the channel's lock, as every write of its row is: nothing was ``written`` since its read
            self.confirm(where, counted, encounter_id, version + 1, self._stamp)

    def matching(self, probe: Mapping[str, Any], key: tuple[Any, ...]) -> ChangeRead | None:
        kept = self.get(probe["e_id"], probe["e_version"])
        if kept is None or kept[0] != key:
            return None
        read = kept[1]
        unversioned = {name: probe["e_" + name] for name in UNVERSIONED}
        if any(getattr(read.encounter, name) != value for name, value in unversioned.items()):
            read = read.copy(**unversioned)  # kept as the database now has it (a read ``confirm`` may trust)
            self.put(probe["e_id"], probe["e_version"], (key, read))
        return read.copy()

    def current(self, where: tuple[Any, ...], counted: int) -> ChangeRead | None:
        """The channel's read confirmed while the outside writes stood at ``counted`` (new objects), if it
        is still kept and its encounter still open; else ``None`` (ask the database)."""
        found = self._current.get(where)
        if found is None or found[0] != counted or self._written.get(where[0], self._forgotten) > found[3]:
            return None
        kept = self.get(found[1], found[2])
        if kept is None or kept[1].encounter.status not in where[2]:
            return None
        return kept[1].copy()

    def forget(self, where: tuple[Any, ...]) -> None:
        """``where``'s read is no longer trusted without a probe."""
        self._current.pop(where, None)

    def confirm(
        self, where: tuple[Any, ...], counted: int, encounter_id: int, version: int, began: int
    ) -> None:
        """``where``'s open encounter is ``encounter_id`` at ``version``, as read (from ``stamp`` ``began``) or
        saved while the outside writes stood at ``counted``."""
        self._current[where] = (counted, encounter_id, version, began)
        self._current.move_to_end(where)
        while len(self._current) > self.size:
            self._current.popitem(last=False)


async def read_for_change(
    session: AsyncSession,
    cache: ReadCache,
    channel_id: int,
    parent_id: int | None,
    open_statuses: Sequence[str],
    counted: int | None = None,
) -> ChangeRead | None:
    """The channel's open encounter with the channel's config, its parent's (``parent_id``, else the one the
    channel's row names) and both channels' party instances; ``None`` when no encounter is open there.

    ``counted``: where the process is the database's only writer, the outside writes counted before this
    read (``bot.outside_writes``); while they stand, the read confirmed for this channel is returned (new
    objects) and the database is not asked. Otherwise a probe of the rows' versions comes first; where
    ``cache`` holds a read of exactly those, it is returned (new objects) instead of reading every column
    again."""
    where = (channel_id, parent_id, tuple(open_statuses))
    began = cache.stamp()
    if counted is not None:
        current = cache.current(where, counted)
        if current is not None:
            return current
    shape = (parent_id is not None, where[2])
    params = {"channel_id": channel_id, "parent_id": parent_id}
    probe = await lean.select(session, _probe_statement(*shape), params)
    if not probe:
        return None
    kept = cache.matching(probe[0], _key(probe[0], parent_id))
    if kept is not None:
        if counted is not None:
            cache.confirm(where, counted, probe[0]["e_id"], probe[0]["e_version"], began)
        return kept
    rows = await lean.select(session, _read_statement(*shape), params)
    if not rows:  # ended between the two statements (a read outside the change path)
        return None
    row = rows[0]
    found = {
        i.channel_id: i
        for i in (
            _part(row, "oi_", PartyInstance, "channel_id"),
            _part(row, "pi_", PartyInstance, "channel_id"),
        )
        if i is not None
    }
    read = ChangeRead(
        encounter=_part(row, "e_", Encounter, "id"),
        own=_part(row, "o_", ChannelConfig, "channel_id"),
        parent=_part(row, "p_", ChannelConfig, "channel_id"),
        instances=found,
    )
    cache.keep(read, _key(row, parent_id))
    if counted is not None:
        cache.confirm(where, counted, read.encounter.id or 0, read.encounter.version, began)
    return read.copy()
