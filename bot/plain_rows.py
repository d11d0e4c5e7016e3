"""Rows read without the ORM: plain objects with a model's attributes, and the reads every command makes of
its channel's settings and reminder settings (the channel's row and its parent's, in one statement each)."""

from __future__ import annotations

import functools
import types
from typing import Any

import sqlalchemy as sa
from sqlmodel.ext.asyncio.session import AsyncSession

from bot import lean
from bot.models import ChannelConfig, ReminderConfig


@functools.cache
def plain(model: type) -> type:
    """A row of ``model`` as plain attributes: what a change reads and never adds to a session (a SQLModel
    instance costs more to make than the statement that read it). It keeps the model's ``__table__``."""
    return type(f"Plain{model.__name__}", (types.SimpleNamespace,), {"__table__": model.__table__})  # type: ignore[attr-defined]


_CONFIG: sa.Table = ChannelConfig.__table__  # type: ignore[attr-defined]
_CHANNEL = sa.bindparam("channel_id", type_=sa.BigInteger)
_PARENT_NAMED = sa.select(_CONFIG.c.parent_id).where(_CONFIG.c.channel_id == _CHANNEL).scalar_subquery()
_CHANNEL_AND_PARENT = sa.select(_CONFIG).where(
    sa.or_(
        _CONFIG.c.channel_id == _CHANNEL,
        _CONFIG.c.channel_id
        == sa.func.coalesce(sa.bindparam("parent_id", type_=sa.BigInteger), _PARENT_NAMED),
    )
)


async def channel_rows(
    session: AsyncSession, channel_id: int, parent_id: int | None
) -> tuple[ChannelConfig | None, ChannelConfig | None]:
    """The channel's settings row and its parent's (``parent_id``, else the one the channel's row names),
    each ``None`` where not stored; read-only (plain rows, never added to a session)."""
    return await _own_and_parent(session, _CHANNEL_AND_PARENT, ChannelConfig, channel_id, parent_id)


async def _own_and_parent(
    session: AsyncSession, statement: sa.Select[Any], model: type, channel_id: int, parent_id: int | None
) -> tuple[Any, Any]:
    """The rows ``statement`` finds for the channel and its parent, told apart by their channel id."""
    rows = await lean.select(session, statement, {"channel_id": channel_id, "parent_id": parent_id})
    own = parent = None
    for row in rows:
        if row["channel_id"] == channel_id:
            own = plain(model)(**row)
        else:
            parent = plain(model)(**row)
    return own, parent


_REMINDERS: sa.Table = ReminderConfig.__table__  # type: ignore[attr-defined]
_REMINDER_PARENT = sa.func.coalesce(
    sa.bindparam("parent_id", type_=sa.BigInteger),
    sa.select(_REMINDERS.c.parent_id).where(_REMINDERS.c.channel_id == _CHANNEL).scalar_subquery(),
    _PARENT_NAMED,
)
_REMINDERS_AND_PARENT = sa.select(_REMINDERS).where(
    sa.or_(_REMINDERS.c.channel_id == _CHANNEL, _REMINDERS.c.channel_id == _REMINDER_PARENT)
)


async def reminder_rows(
    session: AsyncSession, channel_id: int, parent_id: int | None
) -> tuple[ReminderConfig | None, ReminderConfig | None]:
    """The channel's reminder settings and its parent's (``parent_id``, else the one its reminder row names,
    else the one its settings row names), each ``None`` where not stored; read-only plain rows."""
    return await _own_and_parent(session, _REMINDERS_AND_PARENT, ReminderConfig, channel_id, parent_id)
