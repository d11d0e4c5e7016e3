"""Versions on characters and reminder settings: their writes are version-checked like every change.

Existing rows start at version 0 (the server default).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('character', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('reminder_config', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('reminder_config', schema=None) as batch_op:
        batch_op.drop_column('version')
    with op.batch_alter_table('character', schema=None) as batch_op:
        batch_op.drop_column('version')
