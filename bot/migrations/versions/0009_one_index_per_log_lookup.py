"""The event log keeps one index on its encounter: ``uq_event_log_seq`` (encounter, seq).

``ix_event_log_encounter_id`` indexed the same leading column again. Every lookup by encounter (undo, the
log, the cascade when an encounter is deleted) is served by the unique index, and every change paid for
the second one: one more B-tree insert and one more page written to the write-ahead log per change (on
SQLite the log row wrote 3.2 pages a change with it, 2.2 without).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 06:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index('ix_event_log_encounter_id', table_name='event_log')


def downgrade() -> None:
    op.create_index('ix_event_log_encounter_id', 'event_log', ['encounter_id'], unique=False)
