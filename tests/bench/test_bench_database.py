"""The bench's own reads and writes on Fray's database (SQLite, or PostgreSQL with ``FRAY_TEST_DATABASE_URL``):
copies of a running encounter each with its own turn holder, the rows Fray adds afterwards still get free
ids, and ``--database-url`` takes only a PostgreSQL server."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.bench.database import (
    COMBATANT,
    ENCOUNTER,
    STORED_CHANNELS,
    applied_by,
    fray_database,
    store_more_encounters,
    turn_holders,
)
from bot.bench.options import add_arguments, options_from
from bot.db import create_engine, migrate
from bot.settings import Settings
from tests.bench.postgres import bench_databases
from tests.databases import ON_POSTGRES, SERVER_URL

NOW = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)


def encounter(channel_id: int, status: str = "running") -> dict[str, object]:
    return {
        "guild_id": 1 << 22,
        "channel_id": channel_id,
        "system": "d6",
        "name": f"Fight in {channel_id}",
        "status": status,
        "started_by": 1,
        "turn_key": "r1.t2",
        "state": {"plans": {"Wolf": "bite"}},
        "created_at": NOW,
        "turn_started_at": NOW,
    }


async def test_copies_of_a_running_encounter_each_hold_their_own_turn(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    try:
        async with engine.begin() as conn:
            await conn.execute(sa.insert(ENCOUNTER), [encounter(10, status="ended")])  # not copied
            eid = (await conn.execute(sa.insert(ENCOUNTER).returning(ENCOUNTER.c.id), encounter(11))).scalar()
            fighters = [
                {"encounter_id": eid, "entry": i, "name": name, "is_pc": False, "side": side}
                for i, (name, side) in enumerate(
                    (("Bandit", "bandits"), ("Wolf", "wolves"), ("Crow", "crows"))
                )
            ]
            ids = [
                (await conn.execute(sa.insert(COMBATANT).returning(COMBATANT.c.id), f)).scalar()
                for f in fighters
            ]
            await conn.execute(
                sa.update(ENCOUNTER).where(ENCOUNTER.c.id == eid).values(turn_combatant_id=ids[1])
            )

        assert await store_more_encounters(engine, 2) == 2  # already enough: nothing copied
        assert await store_more_encounters(engine, 502) == 502

        holders = await turn_holders(engine)
        assert holders == {11: "Wolf"} | {STORED_CHANNELS + n: "Wolf" for n in range(500)}
        async with engine.connect() as conn:
            copies = (
                await conn.execute(sa.select(ENCOUNTER).where(ENCOUNTER.c.channel_id >= STORED_CHANNELS))
            ).all()
            turn_owners = dict(
                (
                    await conn.execute(
                        sa.select(COMBATANT.c.id, COMBATANT.c.encounter_id).where(
                            COMBATANT.c.id.in_([c.turn_combatant_id for c in copies])
                        )
                    )
                ).all()
            )
            per_copy = (
                await conn.execute(
                    sa.select(sa.func.count(), sa.func.count(sa.distinct(COMBATANT.c.encounter_id))).where(
                        COMBATANT.c.encounter_id != eid
                    )
                )
            ).one()
        assert len(copies) == 500 and {c.state["plans"]["Wolf"] for c in copies} == {"bite"}
        assert {c.name for c in copies} == {f"Stored {n}" for n in range(500)}
        assert all(
            turn_owners[c.turn_combatant_id] == c.id for c in copies
        )  # its own Wolf, not the original's
        assert tuple(per_copy) == (1500, 500)

        async with engine.begin() as conn:  # Fray's next encounter and combatant get ids of their own
            new = (await conn.execute(sa.insert(ENCOUNTER).returning(ENCOUNTER.c.id), encounter(12))).scalar()
            await conn.execute(sa.insert(COMBATANT), {"encounter_id": new, "entry": 1, "name": "Newt"})
        assert await applied_by(engine, 11, "gm set") == []
    finally:
        await engine.dispose()


@pytest.mark.skipif(not ON_POSTGRES, reason="a server's database; runs in the PostgreSQL pass")
async def test_the_bench_drops_its_database_even_when_the_run_fails(tmp_path: Path) -> None:
    before = await bench_databases()
    with pytest.raises(RuntimeError, match="the run failed"):
        async with fray_database(tmp_path, SERVER_URL) as db:
            await migrate(db.engine)
            assert db.label.startswith("PostgreSQL ")
            created = await bench_databases() - before
            assert len(created) == 1 and db.target.endswith(f"/{created.pop()}")
            raise RuntimeError("the run failed")
    assert await bench_databases() == before


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_database_url_is_a_postgresql_server() -> None:
    assert options_from(parse("--quick")).database_url is None  # SQLite
    url = "postgresql+asyncpg://bench:secret@127.0.0.1:5432/postgres"
    assert options_from(parse("--database-url", url)).database_url == url
    for wrong in ("sqlite+aiosqlite:////tmp/fray.db", "postgresql://u@127.0.0.1/db", "not a url"):
        with pytest.raises(SystemExit):
            parse("--database-url", wrong)
