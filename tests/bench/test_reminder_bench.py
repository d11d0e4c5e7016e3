"""One reminder tick over 10,000 running encounters of which 1 % are due: time and memory (``-m slow``)."""

from __future__ import annotations

import resource
import time
import tracemalloc
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from bot.db import create_engine, migrate, session_factory
from bot.models import Combatant, Encounter
from bot.reminders import DueStep, ReminderLoop
from bot.settings import Settings
from bot.store import Store

ENCOUNTERS = 10_000
DUE_EVERY = 100  # 1 %
NOW = datetime(2026, 5, 2, 12, 0, tzinfo=UTC)


@pytest.mark.slow
async def test_one_tick_over_ten_thousand_encounters(bot_settings: Settings) -> None:
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    sessions = session_factory(engine)
    started = NOW - timedelta(hours=30)
    encounters, combatants = [], []
    for i in range(1, ENCOUNTERS + 1):
        due = NOW - timedelta(minutes=i % 50) if i % DUE_EVERY == 0 else NOW + timedelta(hours=1 + i % 20)
        encounters.append(
            {
                "id": i,
                "guild_id": (i % 37 + 1) << 22,
                "channel_id": 10_000 + i,
                "system": "d6",
                "name": f"Fight {i}",
                "status": "running",
                "started_by": 1,
                "turn_key": "r1.t1",
                "turn_combatant_id": i,
                "turn_started_at": started,
                "reminder_due_at": due,
                "reminders_sent": 0,
                "state": {},
                "version": 0,
                "created_at": started,
            }
        )
        combatants.append({"id": i, "encounter_id": i, "entry": 1, "name": f"Hero {i}", "owner_id": 500 + i})
    async with sessions() as session, session.begin():
        await session.exec(sa.insert(Encounter), params=encounters)  # type: ignore[call-overload]
        await session.exec(sa.insert(Combatant), params=combatants)  # type: ignore[call-overload]

    sent: list[DueStep] = []

    async def no_op(step: DueStep) -> None:
        sent.append(step)

    async def make_due_again() -> None:
        async with sessions() as session, session.begin():
            await session.exec(  # type: ignore[call-overload]
                sa.update(Encounter)
                .where(Encounter.id % DUE_EVERY == 0)  # type: ignore[operator]
                .values(reminder_due_at=NOW - timedelta(minutes=5), reminders_sent=0)
            )

    loop = ReminderLoop(Store(sessions, lambda: NOW), no_op)
    await loop.tick(NOW - timedelta(days=10))  # warm-up (connection, statement cache); nothing is due then
    t0 = time.perf_counter()
    report = await loop.tick()
    elapsed = time.perf_counter() - t0
    t1 = time.perf_counter()
    again = await loop.tick()
    idle = time.perf_counter() - t1
    await make_due_again()  # the same tick once more, under tracemalloc (slower; only for the memory figure)
    tracemalloc.start()
    traced = await loop.tick()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\nreminder tick: {ENCOUNTERS} running encounters, {report.claimed} due → {report.sent} sent in "
        f"{elapsed * 1000:.0f} ms ({elapsed / max(report.sent, 1) * 1000:.2f} ms per reminder); "
        f"peak traced memory during the tick {peak / 1024:.0f} KiB; process max RSS {rss_mb:.0f} MiB; "
        f"an idle tick (nothing due) {idle * 1000:.1f} ms"
    )
    await engine.dispose()
    assert report.sent == traced.sent == len(sent) // 2 == ENCOUNTERS // DUE_EVERY
    assert again.seen == 0
    assert elapsed < 10.0 and idle < 1.0
    assert peak < 50 * 1024 * 1024
