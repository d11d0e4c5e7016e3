"""Turn reminders: the per-channel policy of ``/gm reminders`` (NULL = inherit from the parent, then default).

The encounter's reminder columns (``reminder_due_at`` with its index, ``reminders_sent``) came with 0002.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 23:09:11.382950
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('reminder_config',
    sa.Column('channel_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('parent_id', sa.BigInteger(), nullable=True),
    sa.Column('after_seconds', sa.Integer(), nullable=True),
    sa.Column('repeat_seconds', sa.Integer(), nullable=True),
    sa.Column('max_reminders', sa.Integer(), nullable=True),
    sa.Column('then_step', sa.String(length=8), nullable=True),
    sa.Column('enabled', sa.Boolean(), nullable=True),
    sa.Column('updated_by', sa.BigInteger(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.CheckConstraint("then_step IS NULL OR then_step IN ('gm', 'skip', 'nothing')", name='ck_reminder_config_then'),
    sa.CheckConstraint('max_reminders IS NULL OR max_reminders BETWEEN 0 AND 10', name='ck_reminder_config_max'),
    sa.PrimaryKeyConstraint('channel_id')
    )


def downgrade() -> None:
    op.drop_table('reminder_config')
