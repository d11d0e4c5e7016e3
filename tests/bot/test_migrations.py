"""The schema comes from migrations only, and the migrated schema is exactly the models."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from bot.db import create_engine, current_revision, head_revision, migrate
from bot.models import metadata
from bot.settings import Settings

BOT = Path(__file__).resolve().parents[2] / "bot"


def _json_default_differs(context, _inspected, column, inspected_default, _default, rendered_default):
    """PostgreSQL's ``json`` has no ``=``, so Alembic's own comparison (a query) cannot run: compare the
    literal (``'{}'::json`` there, ``'{}'`` in the model). Every other default: Alembic's comparison."""
    if context.dialect.name == "postgresql" and isinstance(column.type, sa.JSON) and inspected_default:
        return inspected_default.split("::")[0].strip("'") != rendered_default.strip("'")
    return None


def _diff(connection) -> list:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "compare_server_default": _json_default_differs}
    )
    return compare_metadata(context, metadata)


async def test_migrated_schema_equals_the_models(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        assert await current_revision(engine) is None
        assert await migrate(engine) == head_revision()
        async with engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
            indexes = await conn.run_sync(lambda c: inspect(c).get_indexes("channel_config"))
        assert {"guild_config", "channel_config", "command_sync", "secret_roll"} <= tables
        assert any(ix["column_names"] == ["guild_id"] for ix in indexes)
    finally:
        await engine.dispose()


async def test_migrate_twice_is_a_no_op(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        first = await migrate(engine)
        assert await migrate(engine) == first
    finally:
        await engine.dispose()


@pytest.mark.sqlite_only
async def test_pragmas_on_every_connection(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        async with engine.connect() as conn:
            values = {
                name: (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
            }
        assert values == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 5000, "synchronous": 1}
    finally:
        await engine.dispose()


def test_no_create_all_anywhere() -> None:
    for path in list(BOT.rglob("*.py")) + list((BOT.parent / "cogs").rglob("*.py")):
        assert "create_all" not in path.read_text(encoding="utf-8"), path
