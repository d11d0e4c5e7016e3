"""The schema comes from migrations only, and the migrated schema is exactly the models."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from bot.db import alembic_config, create_engine, current_revision, head_revision, migrate, session_factory
from bot.models import Character, Combatant, Encounter, EventLog, metadata
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


async def test_the_log_has_one_index_on_its_encounter(bot_settings: Settings) -> None:
    """Every change inserts a log row: an index that repeats the unique key's leading column only costs
    each change a B-tree insert and a page written, and serves no lookup the unique key does not."""
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        await migrate(engine)
        async with engine.connect() as conn:
            indexes = await conn.run_sync(lambda c: inspect(c).get_indexes("event_log"))
            unique = await conn.run_sync(lambda c: inspect(c).get_unique_constraints("event_log"))
        assert [u["column_names"] for u in unique] == [["encounter_id", "seq"]]
        assert [ix["column_names"] for ix in indexes if not ix.get("unique")] == []
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
                for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous", "cache_size")
            }
        assert values == {
            "journal_mode": "wal",
            "foreign_keys": 1,
            "busy_timeout": 5000,
            "synchronous": 1,
            "cache_size": -1024,
        }
        # a few connections, each with its own page cache and thread: at most eight at once (four of them
        # the change path's lanes, ``bot.lanes``)
        assert engine.pool.size() + engine.pool._max_overflow == 8  # type: ignore[attr-defined]
    finally:
        await engine.dispose()


def test_no_create_all_anywhere() -> None:
    for path in list(BOT.rglob("*.py")) + list((BOT.parent / "cogs").rglob("*.py")):
        assert "create_all" not in path.read_text(encoding="utf-8"), path


def _revisions() -> list[str]:
    """Every revision from base to head, in order."""
    script = ScriptDirectory.from_config(alembic_config())
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def _downgrade(connection, revision: str) -> None:
    command.downgrade(alembic_config(connection), revision)


async def test_downgrade_step_by_step_to_base_and_up_again(bot_settings: Settings) -> None:
    """Each migration's downgrade runs on this database (the suite's: SQLite, or PostgreSQL), leaves the
    previous revision (and, at base, no table), and the upgrade after it still yields exactly the models."""
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    revisions = _revisions()
    try:
        assert await migrate(engine) == revisions[-1] == head_revision()
        for below in [*reversed(revisions[:-1]), None]:
            async with engine.begin() as conn:
                await conn.run_sync(_downgrade, "-1")
            assert await current_revision(engine) == below
        async with engine.connect() as conn:
            tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert tables <= {"alembic_version"}, tables
        assert await migrate(engine) == head_revision()
        async with engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
    finally:
        await engine.dispose()


async def _counts(engine) -> dict[str, int]:
    async with engine.connect() as conn:
        return {
            table: (await conn.execute(sa.text(f"SELECT count(*) FROM {table}"))).scalar_one()
            for table in ("character", "encounter", "combatant", "event_log")
        }


async def _store_a_table(engine) -> None:
    """A character and a channel that had two encounters (one ended, one running), each with a combatant and
    a log row: what the downgrades below must carry through."""
    now = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    async with session_factory(engine)() as session, session.begin():
        session.add(
            Character(
                guild_id=1,
                owner_id=3,
                name="Ayla",
                name_key="ayla",
                system="d6",
                created_at=now,
                updated_at=now,
            )
        )
        for status in ("ended", "running"):
            encounter = Encounter(
                guild_id=1,
                channel_id=2,
                system="d6",
                name=status,
                status=status,
                started_by=3,
                created_at=now,
            )
            session.add(encounter)
            await session.flush()
            session.add(Combatant(encounter_id=encounter.id or 0, entry=1, name="Ayla", owner_id=3))
            session.add(
                EventLog(
                    encounter_id=encounter.id or 0,
                    seq=1,
                    actor_id=3,
                    command="encounter start",
                    created_at=now,
                )
            )


async def test_downgrades_keep_the_rows_of_the_tables_they_keep(bot_settings: Settings) -> None:
    """Down to the first revision with these tables and up again, one step at a time: no row is lost on the
    way (a table rebuilt while foreign keys are on would cascade-delete its combatants and log), no step fails
    on the data (a channel with an ended and an open encounter), and the schema at head is the models."""
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    revisions = _revisions()
    first = revisions.index("0002")
    try:
        await migrate(engine)
        await _store_a_table(engine)
        stored = await _counts(engine)
        assert stored == {"character": 1, "encounter": 2, "combatant": 2, "event_log": 2}
        for below in reversed(revisions[first:-1]):
            async with engine.begin() as conn:
                await conn.run_sync(_downgrade, "-1")
            assert await current_revision(engine) == below
            assert await _counts(engine) == stored, f"rows lost going down to {below}"
        assert await migrate(engine) == head_revision()
        assert await _counts(engine) == stored
        async with engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
    finally:
        await engine.dispose()


def test_the_files_name_the_same_head_as_alembic() -> None:
    from bot.db import files_head

    assert files_head() == head_revision() is not None


def test_a_restart_on_a_database_at_head_never_loads_alembic(bot_settings: Settings) -> None:
    """Alembic's modules cost about 12 MB a process: a bot restarted on its migrated database does without."""
    import subprocess
    import sys

    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "import bot.app\n"
        "from bot.db import create_engine, migrate\n"
        "async def main():\n"
        "    engine = create_engine(sys.argv[1], database_path=Path(sys.argv[2]) if sys.argv[2] else None)\n"
        "    print(await migrate(engine))\n"
        "    await engine.dispose()\n"
        "asyncio.run(main())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    path = str(bot_settings.database_path or "")
    args = [sys.executable, "-c", script, bot_settings.database_url, path]
    first = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    again = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert first[0] == again[0] == head_revision()
    assert first[1] != "[]"  # the first start migrated, with Alembic
    assert again[1] == "[]"
