"""Two processes on one database: two engines, two stores (each with its own lock registry), racing.

On PostgreSQL the change path's advisory lock queues their changes to one resource, so a storm loses nothing
and applies nothing twice, and every change succeeds. On SQLite (one process is its intended use) a
cross-process race may refuse a change (stale, or the file is busy): then nothing of it is saved, and every
change that reported success is saved exactly once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from bot.db import create_engine, head_revision, migrate, session_factory
from bot.encounters import edit_encounter, start_encounter
from bot.errors import Stale
from bot.models import ChannelConfig, Encounter, EventLog, SecretRoll
from bot.reminder_policy import ReminderPolicy
from bot.reminders import DueStep, ReminderLoop, schedule_turn
from bot.settings import Settings
from bot.store import Store, Where, channel_key, resource_lock_id, write_turn
from rules.systems.registry import system_names
from tests.bot.stand_ins import Clock
from tests.bot.stand_ins import FakeBot as Process  # one bot process: its own engine and lock registry
from tests.databases import ON_POSTGRES

HERE = Where(guild_id=1, channel_id=10)
GM = 7
STORM = 30  # changes per process
WAIT = 60.0  # seconds: the whole storm, bounded
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
REFUSED = (Stale, OperationalError)  # what a SQLite race may answer; PostgreSQL must answer neither


@pytest.fixture
async def processes(bot_settings: Settings):
    engines = [
        create_engine(bot_settings.database_url, database_path=bot_settings.database_path) for _ in (0, 1)
    ]
    await migrate(engines[0])
    clock = Clock(START)
    yield [Process(Store(session_factory(engine), clock), clock) for engine in engines]
    for engine in engines:
        await engine.dispose()


async def storm(jobs: list[Any]) -> list[Any]:
    return await asyncio.wait_for(asyncio.gather(*jobs, return_exceptions=True), WAIT)


def saved_and_refused(results: list[Any], tags: list[Any]) -> tuple[list[Any], list[Any]]:
    saved = [tag for tag, r in zip(tags, results, strict=True) if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(r, REFUSED) for r in refused), refused
    if ON_POSTGRES:
        assert refused == [], "on PostgreSQL changes to one resource queue across processes"
    return saved, refused


def test_a_resource_has_one_lock_id_everywhere() -> None:
    assert resource_lock_id(channel_key(10)) == resource_lock_id(("channel", 10))
    assert resource_lock_id(channel_key(10)) != resource_lock_id(channel_key(11))
    assert -(2**63) <= resource_lock_id(channel_key(2**62)) < 2**63
    assert resource_lock_id(("channel", 10)) == -3246150987488685040  # stable across runs and processes


async def test_a_channel_storm_from_two_processes_loses_and_doubles_nothing(processes) -> None:
    await processes[0].store.set_system(HERE, system_names()[0])

    async def append(process: Process, number: int) -> None:
        async with process.store.edit_channel(HERE) as edit:
            await asyncio.sleep(0)  # let the other process run between load and save
            edit.config.dice_queue = [*edit.config.dice_queue, number]

    numbers = list(range(2 * STORM))
    results = await storm([append(processes[n % 2], n) for n in numbers])
    saved, _ = saved_and_refused(results, numbers)
    async with processes[1].store.sessions() as session:
        row = await session.get(ChannelConfig, HERE.channel_id)
    assert sorted(row.dice_queue) == sorted(saved)  # nothing lost, nothing twice
    assert row.version == 1 + len(saved)


async def test_an_encounter_storm_from_two_processes_loses_and_doubles_nothing(processes) -> None:
    first = processes[0]
    await first.store.set_system(HERE, system_names()[0])
    opened = await start_encounter(first, HERE, GM, "Storm")
    async with first.store.sessions() as session:
        version = (await session.get(Encounter, opened.encounter_id)).version

    async def change(process: Process, number: int) -> None:
        async with edit_encounter(process, HERE, GM, "gm storm") as edit:
            await asyncio.sleep(0)
            edit.summary = f"change {number}"

    numbers = list(range(2 * STORM))
    results = await storm([change(processes[n % 2], n) for n in numbers])
    saved, _ = saved_and_refused(results, numbers)
    async with processes[1].store.sessions() as session:
        encounter = await session.get(Encounter, opened.encounter_id)
        log = (
            (
                await session.exec(
                    select(EventLog)
                    .where(EventLog.encounter_id == opened.encounter_id)
                    .order_by(EventLog.seq)
                )
            )
            .scalars()
            .all()
        )
    changes = [r.summary for r in log if r.command == "gm storm"]
    assert sorted(changes) == sorted(f"change {n}" for n in saved)  # each saved change logged once
    assert [r.seq for r in log] == list(range(1, len(log) + 1))
    assert encounter.version == version + len(saved)


async def test_two_processes_ticking_at_once_send_every_due_reminder_once(processes) -> None:
    policy = ReminderPolicy(after=timedelta(hours=12), repeat=timedelta(hours=6), max_reminders=2, then="gm")
    eids = []
    async with processes[0].store.sessions() as session, session.begin():
        for n in range(60):
            encounter = Encounter(
                guild_id=1,
                channel_id=1000 + n,
                system="d6",
                name="Ambush",
                status="running",
                started_by=GM,
                turn_key="r1.t1",
                turn_started_at=START,
                created_at=START,
            )
            schedule_turn(encounter, policy, START, controlled_by_member=True)
            session.add(encounter)
            await session.flush()
            eids.append(encounter.id)
    sent: list[list[DueStep]] = [[], []]

    def sender(bucket: list[DueStep]):
        async def send(step: DueStep) -> None:
            await asyncio.sleep(0.001)  # a send takes a while; the other process claims meanwhile
            bucket.append(step)

        return send

    loops = [ReminderLoop(p.store, sender(sent[i]), batch=25) for i, p in enumerate(processes)]
    for p in processes:
        p.clock.now = START + timedelta(hours=12)
    reports = await asyncio.wait_for(asyncio.gather(*(loop.tick() for loop in loops)), WAIT)
    reports += await asyncio.wait_for(asyncio.gather(*(loop.tick() for loop in loops)), WAIT)
    everyone = sorted(s.encounter_id for bucket in sent for s in bucket)
    assert everyone == sorted(eids)  # each due reminder sent once, by one of the two
    assert sum(r.claimed for r in reports) == len(eids)
    async with processes[1].store.sessions() as session:
        rows = (await session.exec(select(Encounter.reminders_sent))).scalars().all()
    assert rows == [1] * len(eids)


async def test_processes_starting_at_once_migrate_once(bot_settings: Settings) -> None:
    engines = [
        create_engine(bot_settings.database_url, database_path=bot_settings.database_path) for _ in (0, 1, 2)
    ]
    try:
        results = await asyncio.wait_for(asyncio.gather(*(migrate(e) for e in engines)), WAIT)
        assert results == [head_revision()] * 3
    finally:
        for engine in engines:
            await engine.dispose()


async def test_a_nul_in_text_is_kept_visibly_not_a_failure(processes) -> None:
    """PostgreSQL text cannot hold U+0000; a fuzzed name with one must not fail the command there."""
    store = processes[0].store
    async with store.change(channel_key(HERE.channel_id)) as session:
        await write_turn(session)
        session.add(ChannelConfig(channel_id=HERE.channel_id, guild_id=1, dice_queue=[], house_rules={}))
    async with store.sessions() as session:
        found = await session.exec(select(ChannelConfig).where(ChannelConfig.system == "a\x00b"))
        assert found.scalars().all() == []
    await store.set_system(HERE, system_names()[0])
    async with store.edit_channel(HERE) as edit:
        edit.config.house_rules = {"x\x00": {"y": "z\x00"}}  # JSON escapes it: kept as typed on both
    async with store.sessions() as session:
        assert (await session.get(ChannelConfig, HERE.channel_id)).house_rules == {"x\x00": {"y": "z\x00"}}


async def test_a_batched_insert_returning_ids_passes_the_nul_guard(processes) -> None:
    """Several rows inserted at once with their ids back (SQLAlchemy's batched form) are let through, and a
    NUL in one of them becomes visible, not a failure."""
    import sqlalchemy as sa

    table = SecretRoll.__table__  # type: ignore[attr-defined]
    rows = [
        {
            "guild_id": 1,
            "channel_id": 2,
            "user_id": 3,
            "expression": e,
            "result_text": "4",
            "created_at": START,
        }
        for e in ("1d6", "2d6\x00", "3d6")
    ]
    async with processes[0].store.sessions() as session, session.begin():
        ids = (await session.exec(sa.insert(table).returning(table.c.id), params=rows)).scalars().all()
    assert len(ids) == 3
    async with processes[0].store.sessions() as session:
        kept = (await session.exec(sa.select(table.c.expression).order_by(table.c.id))).scalars().all()
    assert kept == ["1d6", "2d6\ufffd" if ON_POSTGRES else "2d6\x00", "3d6"]
