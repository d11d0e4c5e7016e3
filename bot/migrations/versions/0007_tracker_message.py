"""The live tracker's message: its id on the encounter, so it is edited in place and survives a restart.

Existing encounters start without one (the next change posts it).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ADD COLUMN: recreating ``encounter`` would cascade-delete its combatants and log
    op.add_column('encounter', sa.Column('tracker_message_id', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    # a plain DROP COLUMN too (SQLite 3.35+), for the same reason: no rebuild of ``encounter``
    op.drop_column('encounter', 'tracker_message_id')
