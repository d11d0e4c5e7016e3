"""SQLModel tables. The schema is created and changed ONLY by migrations (``bot/migrations``).

Discord IDs are ``BigInteger`` (snowflakes). JSON columns hold small documents that the shell owns:
``ChannelConfig.house_rules`` maps a system to its rule values, ``ChannelConfig.dice_queue`` is the list of
physical-dice values a GM queued for the channel. Assign a new value to change them (no in-place mutation).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


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


# --- characters and encounters ---------------------------------------------------------------------


class Character(SQLModel, table=True):
    """A sheet, owned by one member in one server. ``name_key`` (casefolded) is unique per server and owner."""

    __tablename__ = "character"
    __table_args__ = (
        sa.UniqueConstraint("guild_id", "owner_id", "name_key", name="uq_character_owner_name"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=sa.BigInteger, index=True)
    owner_id: int = Field(sa_type=sa.BigInteger, index=True)
    name: str = Field(sa_type=sa.String(64))
    name_key: str = Field(sa_type=sa.String(64))
    system: str = Field(sa_type=sa.String(16))
    sheet: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class Encounter(SQLModel, table=True):
    """One fight in one channel or thread. At most one not-ended encounter per channel (partial unique index).

    Typed columns are what the tracker, autocomplete and reminders query; ``state`` is the system's own
    rules state (``System.state_to_dict``), the source of truth the columns are projected from on every save.
    """

    __tablename__ = "encounter"
    __table_args__ = (
        sa.CheckConstraint("status IN ('setup', 'running', 'ended')", name="ck_encounter_status"),
        sa.Index(
            "uq_encounter_open_channel",
            "channel_id",
            unique=True,
            sqlite_where=sa.text("status != 'ended'"),
            postgresql_where=sa.text("status != 'ended'"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=sa.BigInteger, index=True)
    channel_id: int = Field(sa_type=sa.BigInteger, index=True)
    system: str = Field(sa_type=sa.String(16))
    name: str = Field(sa_type=sa.String(100))
    status: str = Field(default="setup", sa_type=sa.String(16))
    started_by: int = Field(sa_type=sa.BigInteger)
    round: int | None = Field(default=None)  # Nyra phase, D6 round
    minute: int | None = Field(default=None)  # Kaernest
    segment: int | None = Field(default=None)  # Kaernest, 30 … 1
    turn_key: str | None = Field(default=None, sa_type=sa.String(64))
    turn_combatant_id: int | None = Field(default=None)
    turn_started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    heal_pool_size: int | None = Field(default=None)  # D6 party heal pool
    heal_pool_used: int | None = Field(default=None)
    heal_pool_instance: int | None = Field(default=None)
    reminder_due_at: datetime | None = Field(default=None, sa_type=UTCDateTime, index=True)
    reminders_sent: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # the live tracker message in the channel (edited in place; not game state, so undo leaves it)
    tracker_message_id: int | None = Field(default=None, sa_type=sa.BigInteger)
    state: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON)
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_at: datetime = Field(sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Combatant(SQLModel, table=True):
    """One combatant of an encounter; its id (as text) is the id the rules state uses."""

    __tablename__ = "combatant"

    id: int | None = Field(default=None, primary_key=True)
    encounter_id: int = Field(foreign_key="encounter.id", index=True, ondelete="CASCADE")
    entry: int  # order of entry (initiative dice are drawn in this order)
    name: str = Field(sa_type=sa.String(64))
    owner_id: int | None = Field(default=None, sa_type=sa.BigInteger, index=True)
    character_id: int | None = Field(default=None)
    is_pc: bool = Field(default=True)
    side: str = Field(default="party", sa_type=sa.String(64))
    distance: int = Field(default=0)
    initiative: int | None = Field(default=None)
    hp: int | None = Field(default=None)
    hp_max: int | None = Field(default=None)
    damage: int | None = Field(default=None)  # Kaernest accumulated damage
    location_damage: dict[str, int] = Field(default_factory=dict, sa_type=sa.JSON)  # Nyra
    conditions: list[str] = Field(default_factory=list, sa_type=sa.JSON)
    last_gasp_round: int | None = Field(default=None)  # D6
    stored_healing: int | None = Field(default=None)  # D6


class Grapple(SQLModel, table=True):
    """A D6 grappling pair: ``counter`` toward ``a_id`` when positive (−3…+3); ``pinned_id`` when pinned."""

    __tablename__ = "grapple"
    __table_args__ = (sa.CheckConstraint("counter BETWEEN -3 AND 3", name="ck_grapple_counter"),)

    id: int | None = Field(default=None, primary_key=True)
    encounter_id: int = Field(foreign_key="encounter.id", index=True, ondelete="CASCADE")
    a_id: int
    b_id: int
    counter: int = Field(default=0)
    pinned_id: int | None = Field(default=None)


class EventLog(SQLModel, table=True):
    """One row per change to an encounter: who, which command, the dice, the events, and the undo snapshot.

    ``undo`` holds the encounter exactly as it was before the change (row, combatants, grapples), so undo is
    a restore, not an inverse computation; ``undone`` marks rows reverted by ``/gm undo``.
    """

    __tablename__ = "event_log"
    # Its one index on the encounter: lookups by encounter, and the delete's cascade, use its leading column.
    __table_args__ = (sa.UniqueConstraint("encounter_id", "seq", name="uq_event_log_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    encounter_id: int = Field(foreign_key="encounter.id", ondelete="CASCADE")
    seq: int
    actor_id: int = Field(sa_type=sa.BigInteger)
    command: str = Field(sa_type=sa.String(100))
    summary: str = Field(default="", sa_type=sa.Text)
    events: list[dict[str, Any]] = Field(default_factory=list, sa_type=sa.JSON)
    dice: list[dict[str, Any]] = Field(default_factory=list, sa_type=sa.JSON)
    undo: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    undone: bool = Field(default=False)
    created_at: datetime = Field(sa_type=UTCDateTime)


# --- turn reminders ---------------------------------------------------------------------------------


class ReminderConfig(SQLModel, table=True):
    """Per channel or thread: the turn-reminder settings of ``/gm reminders``.

    ``NULL`` means "not set here": a thread falls back, field by field, to its parent channel's row
    (``parent_id``), then to the defaults (``bot.reminder_policy.DEFAULT_POLICY``).
    """

    __tablename__ = "reminder_config"
    __table_args__ = (
        sa.CheckConstraint(
            "then_step IS NULL OR then_step IN ('gm', 'skip', 'nothing')", name="ck_reminder_config_then"
        ),
        sa.CheckConstraint(
            "max_reminders IS NULL OR max_reminders BETWEEN 0 AND 10", name="ck_reminder_config_max"
        ),
    )

    channel_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    guild_id: int = Field(sa_type=sa.BigInteger)
    parent_id: int | None = Field(default=None, sa_type=sa.BigInteger, nullable=True)
    after_seconds: int | None = Field(default=None, nullable=True)
    repeat_seconds: int | None = Field(default=None, nullable=True)
    max_reminders: int | None = Field(default=None, nullable=True)
    then_step: str | None = Field(default=None, sa_type=sa.String(8), nullable=True)
    enabled: bool | None = Field(default=None, nullable=True)
    updated_by: int | None = Field(default=None, sa_type=sa.BigInteger, nullable=True)
    updated_at: datetime | None = Field(default=None, sa_type=UTCDateTime, nullable=True)
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class PartyInstance(SQLModel, table=True):
    """A channel's current instance (RULES.md §4): what its party carries from one encounter to the next.

    One per channel; a thread without its own system shares its channel's, as it shares the system. ``state``
    is the system's own stored form (the D6 campaign: heal pool, and per character key HP, Last Gasp turns and
    stored healing); ``system`` says whose, so a channel that changes system starts afresh.
    """

    __tablename__ = "party_instance"

    channel_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    guild_id: int = Field(sa_type=sa.BigInteger)
    system: str = Field(sa_type=sa.String(16))
    state: dict[str, Any] = Field(
        default_factory=dict, sa_type=sa.JSON, sa_column_kwargs={"server_default": "{}"}
    )
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    updated_at: datetime | None = Field(default=None, sa_type=UTCDateTime, nullable=True)


metadata = SQLModel.metadata
