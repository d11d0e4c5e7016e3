"""One open encounter per channel on PostgreSQL too: the partial unique index gets its PostgreSQL condition.

0002 declared ``uq_encounter_open_channel`` with ``sqlite_where`` only, so on PostgreSQL it became
``UNIQUE (channel_id)`` and a channel could never open a second encounter. Rebuilt here with both
dialects' conditions (on SQLite the result is the same index as before).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 10:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("status != 'ended'")


def upgrade() -> None:
    op.drop_index('uq_encounter_open_channel', table_name='encounter')
    op.create_index(
        'uq_encounter_open_channel',
        'encounter',
        ['channel_id'],
        unique=True,
        sqlite_where=OPEN,
        postgresql_where=OPEN,
    )


def downgrade() -> None:
    # Nothing to undo: on SQLite the index is the one 0002 made; on PostgreSQL 0002's ``UNIQUE (channel_id)``
    # cannot be rebuilt once a channel has had a second encounter (and would bring the bug back). 0002's
    # downgrade drops the index by name either way.
    pass
