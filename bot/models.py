"""SQLModel tables. The schema is created and changed ONLY by migrations (``bot/migrations``).

Discord IDs are ``BigInteger`` (snowflakes). JSON columns hold small documents that the shell owns:
``ChannelConfig.house_rules`` maps a system to its rule values, ``ChannelConfig.dice_queue`` is the list of
physical-dice values a GM queued for the channel. Assign a new value to change them (no in-place mutation).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

SystemName = Literal["nyra", "kaernest", "d6"]
SYSTEMS: tuple[str, ...] = ("nyra", "kaernest", "d6")


class UTCDateTime(sa.types.TypeDecorator):
    """A timezone-aware UTC datetime stored as a naive UTC value (SQLite has no time zones)."""

    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return value.replace(tzinfo=UTC) if value is not None else None


class GuildConfig(SQLModel, table=True):
    """Per server: who the GMs are (besides members with Manage Server)."""

    __tablename__ = "guild_config"

    guild_id: int = Field(sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False})
    gm_role_id: int | None = Field(default=None, sa_type=sa.BigInteger, nullable=True)


class ChannelConfig(SQLModel, table=True):
    """Per channel or thread. A thread without its own ``system`` uses its parent's (``parent_id``)."""

    __tablename__ = "channel_config"
    __table_args__ = (
        sa.CheckConstraint(
            "system IS NULL OR system IN ('nyra', 'kaernest', 'd6')", name="ck_channel_config_system"
        ),
    )

    channel_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    guild_id: int = Field(sa_type=sa.BigInteger, index=True)
    parent_id: int | None = Field(default=None, sa_type=sa.BigInteger, nullable=True)
    system: str | None = Field(default=None, sa_type=sa.String(16), nullable=True)
    house_rules: dict[str, dict[str, Any]] = Field(
        default_factory=dict, sa_type=sa.JSON, sa_column_kwargs={"server_default": "{}"}
    )
    dice_queue: list[int] = Field(
        default_factory=list, sa_type=sa.JSON, sa_column_kwargs={"server_default": "[]"}
    )
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class CommandSync(SQLModel, table=True):
    """The hash of the command payload last synced to a scope ("global" or a guild ID as text)."""

    __tablename__ = "command_sync"

    scope: str = Field(sa_type=sa.String(32), primary_key=True)
    payload_hash: str = Field(sa_type=sa.String(64))
    synced_at: datetime = Field(sa_type=UTCDateTime)


class SecretRoll(SQLModel, table=True):
    """A secret roll's stored result, shown by the ``fray:secret:<id>`` button to the roller and GMs."""

    __tablename__ = "secret_roll"

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=sa.BigInteger)
    channel_id: int = Field(sa_type=sa.BigInteger)
    user_id: int = Field(sa_type=sa.BigInteger)
    expression: str = Field(sa_type=sa.String(200))
    result_text: str = Field(sa_type=sa.Text)
    created_at: datetime = Field(sa_type=UTCDateTime)


metadata = SQLModel.metadata
