"""Rule-system names are checked against the registry in code, not by the schema.

The ``system`` columns of ``channel_config``, ``character`` and ``encounter`` had CHECK constraints listing
the three built-in systems, so a registered fourth system could not be stored. SQLite cannot drop a
constraint, and recreating ``encounter`` (the batch way) would cascade-delete its combatants and log while
foreign keys are on, so the constraints are cut out of the stored table definitions: the documented
procedure for removing a CHECK constraint (sqlite.org/lang_altertable.html, "other kinds of table schema
changes"), which leaves the table's data and format untouched.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECKS = {
    "channel_config": (
        "ck_channel_config_system",
        "system IS NULL OR system IN ('nyra', 'kaernest', 'd6')",
    ),
    "character": ("ck_character_system", "system IN ('nyra', 'kaernest', 'd6')"),
    "encounter": ("ck_encounter_system", "system IN ('nyra', 'kaernest', 'd6')"),
}


def _rewrite(change) -> None:
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar()
    bind.exec_driver_sql("PRAGMA writable_schema=ON")
    try:
        for table, (name, check) in CHECKS.items():
            sql = bind.exec_driver_sql(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).scalar()
            bind.exec_driver_sql(
                "UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                (change(sql, name, check), table),
            )
        bind.exec_driver_sql(f"PRAGMA schema_version={int(version) + 1}")
    finally:
        bind.exec_driver_sql("PRAGMA writable_schema=OFF")


def _without(sql: str, name: str, check: str) -> str:
    cut = re.sub(rf",\s*CONSTRAINT {name} CHECK \((?:[^()]|\([^()]*\))*\)", "", sql)
    if cut == sql:
        raise RuntimeError(f"constraint {name} not found in {sql!r}")
    return cut


def _with(sql: str, name: str, check: str) -> str:
    body = sql.rstrip()
    if not body.endswith(")"):
        raise RuntimeError(f"unexpected table definition {sql!r}")
    return f"{body[:-1].rstrip()}, \n\tCONSTRAINT {name} CHECK ({check})\n)"


def upgrade() -> None:
    _rewrite(_without)


def downgrade() -> None:
    _rewrite(_with)
