"""Instances: what a channel's party carries from one encounter to the next (RULES.md §4).

A system that keeps instances (``KeepsInstances``; the D6 campaign: the heal pool, and per player character
HP, Last Gasp turns and stored healing) has one current instance per channel, stored in ``PartyInstance``
in the system's own form. A thread without its own system shares its channel's instance, as it shares the
system (``instance_channel``).

The encounter change path (``bot.encounters``) is the only writer during play: it loads the row with the
encounter, continues it when an encounter opens (``instance_resume``) and when a player character joins
(``instance_enter``), and records it from the saved state in the same transaction as every change, undo
included (``instance_record``), so the instance always matches the encounter as last saved. Between
encounters `/gm instance` writes ``instance_next`` (``next_instance``). Writes are version-checked: a
concurrent write elsewhere (a thread's fight and its channel's) makes the later one stale, saving nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from sqlalchemy.exc import IntegrityError
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.errors import NoInstances, StaleInstance
from bot.models import PartyInstance
from bot.store import ChannelView, Where, channel_key, versioned_update, write_turn
from rules.events import Outcome
from rules.systems.registry import get_system


@runtime_checkable
class KeepsInstances(Protocol):
    """What a system offers for instances (the D6 adapter). ``stored`` is ``PartyInstance.state`` (None: none
    yet); ``keys`` map the encounter's combatant ids to character keys."""

    def instance_record(
        self, stored: Mapping[str, Any] | None, state: Any, keys: Mapping[str, str]
    ) -> Any: ...
    def instance_resume(self, state: Any, stored: Mapping[str, Any] | None) -> Any: ...
    def instance_enter(
        self, state: Any, cid: str, stored: Mapping[str, Any] | None, key: str
    ) -> Outcome[Any]: ...
    def instance_next(self, stored: Mapping[str, Any] | None) -> tuple[Any, tuple[str, ...]]: ...
    def instance_lines(self, stored: Mapping[str, Any] | None) -> tuple[str, ...]: ...


def keeper(system: object) -> KeepsInstances | None:
    return system if _keeps_instances(type(system)) else None  # type: ignore[return-value]


@functools.cache
def _keeps_instances(system_type: type) -> bool:
    """Asked once per system class: checking a protocol costs about 7 µs, and a change asks several times."""
    return issubclass(system_type, KeepsInstances)


def instance_channel(where: Where, view: ChannelView) -> int:
    """The channel whose instance applies here: a thread that inherits its system uses its channel's."""
    if view.inherited_system and where.parent_id:
        return where.parent_id
    return where.channel_id


async def load(session: AsyncSession, channel_id: int, system: str) -> PartyInstance | None:
    """The channel's instance for ``system`` (an instance of another system does not apply)."""
    row = await session.get(PartyInstance, channel_id)
    if row is None or row.system != system:
        return None
    return row


def stored(row: PartyInstance | None) -> dict[str, Any] | None:
    return dict(row.state) if row is not None else None


async def save(
    session: AsyncSession,
    loaded: PartyInstance | None,
    *,
    channel_id: int,
    guild_id: int,
    system: str,
    state: Mapping[str, Any],
    clock: Callable[[], datetime],
) -> bool:
    """Write the instance: the first row, or a version-checked update of the one loaded (another system's
    row is replaced); whether anything was written (not when it is unchanged). ``StaleInstance`` when
    someone else wrote in between."""
    if loaded is not None and dict(loaded.state) == dict(state):
        return False
    values = {"system": system, "state": dict(state), "updated_at": clock()}
    if loaded is not None:
        await versioned_update(
            session, PartyInstance, channel_id, loaded.version, values, stale=StaleInstance
        )
        return True
    existing = await session.get(PartyInstance, channel_id)
    if existing is None:
        await write_turn(session)
        session.add(
            PartyInstance(
                channel_id=channel_id,
                guild_id=guild_id,
                system=system,
                state=dict(state),
                version=1,
                updated_at=clock(),
            )
        )
        try:
            await session.flush()
        except IntegrityError as err:  # another fight opened the instance first
            raise StaleInstance() from err
        return True
    await versioned_update(session, PartyInstance, channel_id, existing.version, values, stale=StaleInstance)
    return True


async def _here(bot: Any, where: Where) -> tuple[KeepsInstances, str, int]:
    view = await bot.store.channel_view(where)
    system = get_system(view.system) if view.system else None
    keep = keeper(system)
    if system is None or keep is None:
        raise NoInstances(system.name if system is not None else None)
    return keep, system.name, instance_channel(where, view)


async def describe_here(bot: Any, where: Where) -> tuple[str, ...]:
    """The channel's instance between fights (for `/encounter status`): NoInstances where there is none."""
    keep, system, channel_id = await _here(bot, where)
    async with bot.store.sessions() as session:
        return keep.instance_lines(stored(await load(session, channel_id, system)))


async def next_instance(bot: Any, where: Where) -> tuple[str, ...]:
    """`/gm instance` with no encounter open here: the next instance of the channel, saved; what to say."""
    keep, system, channel_id = await _here(bot, where)
    async with bot.store.change(channel_key(channel_id)) as session:
        row = await load(session, channel_id, system)
        after, lines = keep.instance_next(stored(row))
        await save(
            session,
            row,
            channel_id=channel_id,
            guild_id=where.guild_id,
            system=system,
            state=after,
            clock=bot.clock,
        )
    return lines
