"""The change path for per-guild and per-channel state (ARCHITECTURE.md "bot/ change path").

``edit_channel(where)``: the channel's lock → one transaction → its ``ChannelConfig`` (created on first use)
→ the caller changes it (rules operations in between) → the version goes up → commit. Readers use
``channel_view`` (no lock; a thread without its own system reads its parent's). Replies are sent by the
caller after the commit.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.models import ChannelConfig, GuildConfig, SecretRoll


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
    """What ``edit_channel`` yields: the open session, the channel's row, its parent's row (read-only)."""

    session: AsyncSession
    config: ChannelConfig
    parent: ChannelConfig | None
    created: bool

    @property
    def view(self) -> ChannelView:
        return view_of(self.config, self.parent)

    def changed(self, *attributes: str) -> None:
        """Mark JSON columns as changed after replacing or editing them."""
        for name in attributes:
            flag_modified(self.config, name)


class Store:
    """Reads and the locked change path over one session factory."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession], clock: Callable[[], datetime]) -> None:
        self.sessions = sessions
        self.clock = clock
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[channel_id] = lock
        return lock

    # --- guilds -----------------------------------------------------------------------------------------

    async def gm_role_id(self, guild_id: int) -> int | None:
        async with self.sessions() as session:
            row = await session.get(GuildConfig, guild_id)
            return row.gm_role_id if row is not None else None

    async def set_gm_role(self, guild_id: int, role_id: int | None) -> None:
        async with self.sessions() as session, session.begin():
            row = await session.get(GuildConfig, guild_id)
            if row is None:
                session.add(GuildConfig(guild_id=guild_id, gm_role_id=role_id))
            else:
                row.gm_role_id = role_id

    # --- channels ---------------------------------------------------------------------------------------

    async def channel_view(self, where: Where) -> ChannelView:
        async with self.sessions() as session:
            own = await session.get(ChannelConfig, where.channel_id)
            parent_id = where.parent_id or (own.parent_id if own is not None else None)
            parent = await session.get(ChannelConfig, parent_id) if parent_id else None
            return view_of(own, parent)

    @asynccontextmanager
    async def edit_channel(self, where: Where) -> AsyncIterator[ChannelEdit]:
        """Lock the channel, open a transaction and yield its row; commit (version + 1) if it changed."""
        async with self.lock(where.channel_id), self.sessions() as session, session.begin():
            config = await session.get(ChannelConfig, where.channel_id)
            created = config is None
            if config is None:
                config = ChannelConfig(
                    channel_id=where.channel_id, guild_id=where.guild_id, parent_id=where.parent_id
                )
            elif where.parent_id and config.parent_id != where.parent_id:
                config.parent_id = where.parent_id
            parent_id = config.parent_id
            parent = await session.get(ChannelConfig, parent_id) if parent_id else None
            edit = ChannelEdit(session, config, parent, created)
            yield edit
            if created or session.is_modified(config):
                config.version = (config.version or 0) + 1
                session.add(config)

    async def set_system(self, where: Where, system: str) -> ChannelView:
        async with self.edit_channel(where) as edit:
            edit.config.system = system
            return edit.view

    # --- secret rolls -----------------------------------------------------------------------------------

    async def secret_roll(self, roll_id: int) -> SecretRoll | None:
        async with self.sessions() as session:
            return await session.get(SecretRoll, roll_id)
