"""Party instances: what a channel's party carries from one encounter to the next (the D6 campaign's heal
pool, HP, Last Gasp turns and stored healing; RULES.md §4).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('party_instance',
    sa.Column('channel_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('guild_id', sa.BigInteger(), nullable=False),
    sa.Column('system', sa.String(length=16), nullable=False),
    sa.Column('state', sa.JSON(), server_default='{}', nullable=False),
    sa.Column('version', sa.Integer(), server_default='0', nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('channel_id')
    )


def downgrade() -> None:
    op.drop_table('party_instance')
