"""Foundation: guild and channel settings, command sync hashes, secret rolls.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_config",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("gm_role_id", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_table(
        "channel_config",
        sa.Column("channel_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("parent_id", sa.BigInteger(), nullable=True),
        sa.Column("system", sa.String(length=16), nullable=True),
        sa.Column("house_rules", sa.JSON(), server_default="{}", nullable=False),
        sa.Column("dice_queue", sa.JSON(), server_default="[]", nullable=False),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.CheckConstraint(
            "system IS NULL OR system IN ('nyra', 'kaernest', 'd6')", name="ck_channel_config_system"
        ),
        sa.PrimaryKeyConstraint("channel_id"),
    )
    with op.batch_alter_table("channel_config") as batch:
        batch.create_index("ix_channel_config_guild_id", ["guild_id"], unique=False)
    op.create_table(
        "command_sync",
        sa.Column("scope", sa.String(length=32), nullable=False),
        sa.Column("payload_hash", sa.String(length=64), nullable=False),
        sa.Column("synced_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("scope"),
    )
    op.create_table(
        "secret_roll",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("expression", sa.String(length=200), nullable=False),
        sa.Column("result_text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("secret_roll")
    op.drop_table("command_sync")
    with op.batch_alter_table("channel_config") as batch:
        batch.drop_index("ix_channel_config_guild_id")
    op.drop_table("channel_config")
    op.drop_table("guild_config")
