"""An encounter's rows, read and written in plain statements (no unit of work): what a change reads in one
statement (``read_for_change``), and the combatant and grapple rows.

Every write to these rows happens inside the encounter's change path, together with the version bump of the
encounter row, so the rows of version *v* of an encounter never change: this process keeps the last ones it
read or wrote (``RowCache``) and a change or a read of a version it knows asks the database for nothing but
the encounter row. Rows handed out are new objects each time (callers may change them; the cache keeps the
column values as plain dicts).

Saving compares each row with the values it was loaded with and writes only what changed: one
``UPDATE … WHERE id = ?`` run for all changed rows at once, nothing when nothing changed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import lean
from bot.latest import LatestByEncounter
from bot.models import ChannelConfig, Combatant, Encounter, Grapple, PartyInstance
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
    return {name: getattr(row, name) for name in column_names(type(row).__table__)}


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
    rows = cache.get(encounter_id, version)
    if rows is None:
        rows = await read_rows(session, encounter_id)
        cache.put(encounter_id, version, rows)
    return [combatant(v) for v in rows[0]], [grapple(v) for v in rows[1]]


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
    """What a change to a channel's open encounter starts from, read in one statement."""

    encounter: Encounter
    own: ChannelConfig | None
    parent: ChannelConfig | None
    instances: dict[int, PartyInstance]  # by channel id: the channel's and its parent's, where stored


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


@functools.cache
def _read_statement(parent_given: bool, open_statuses: tuple[str, ...]) -> sa.Select[Any]:
    """Built once per shape (building the aliases and labels costs more than running the statement)."""
    own, parent = _CONFIG.alias("own"), _CONFIG.alias("parent")
    own_instance, parent_instance = _INSTANCE.alias("own_instance"), _INSTANCE.alias("parent_instance")
    parent_channel = sa.bindparam("parent_id", type_=sa.BigInteger) if parent_given else own.c.parent_id
    return (
        sa.select(
            *_labelled(_ENCOUNTER, "e_"),
            *_labelled(own, "o_"),
            *_labelled(parent, "p_"),
            *_labelled(own_instance, "oi_"),
            *_labelled(parent_instance, "pi_"),
        )
        .select_from(_ENCOUNTER)
        .outerjoin(own, own.c.channel_id == _ENCOUNTER.c.channel_id)
        .outerjoin(parent, parent.c.channel_id == parent_channel)
        .outerjoin(own_instance, own_instance.c.channel_id == _ENCOUNTER.c.channel_id)
        .outerjoin(parent_instance, parent_instance.c.channel_id == parent.c.channel_id)
        .where(
            _ENCOUNTER.c.channel_id == sa.bindparam("channel_id", type_=sa.BigInteger),
            sa.or_(
                *(_ENCOUNTER.c.status == sa.bindparam(f"status_{i}", s) for i, s in enumerate(open_statuses))
            ),
        )
    )


async def read_for_change(
    session: AsyncSession, channel_id: int, parent_id: int | None, open_statuses: Sequence[str]
) -> ChangeRead | None:
    """The channel's open encounter with the channel's config, its parent's (``parent_id``, else the one the
    channel's row names) and both channels' party instances; ``None`` when no encounter is open there."""
    statement = _read_statement(parent_id is not None, tuple(open_statuses))
    params = {"channel_id": channel_id, "parent_id": parent_id}
    rows = await lean.select(session, statement, params)
    if not rows:
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
    return ChangeRead(
        encounter=_part(row, "e_", Encounter, "id"),
        own=_part(row, "o_", ChannelConfig, "channel_id"),
        parent=_part(row, "p_", ChannelConfig, "channel_id"),
        instances=found,
    )
