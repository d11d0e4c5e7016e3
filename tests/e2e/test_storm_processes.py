"""A storm of concurrent changes to one encounter, through real bots in two OS processes on one database:
every change a member was told was made is in the encounter's log exactly once, none that was refused is,
none is in it twice, and the encounter ends as its last logged change left it (no lost update).

Two ways two processes meet one database:

- sharded, as production runs them: each process serves its shard's servers, so the storms in a server of
  each shard run at the same time in two processes, each on its own encounter;
- one channel served by two processes at once (during a deploy, the old process and the new one are both
  connected): Discord sends each interaction to one session, so two fake Discords mirror one world (same
  ids for the server, channel and members) and each sends half the storm to its process. Both processes
  race on the same encounter row; only the change path's lock and version check keep them apart.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from bot.db import create_engine
from bot.playground.loopback import FakeChannel, FakeDiscord, FakeMember, Snowflakes
from bot.settings import Settings
from cogs.text.encounters import stale_encounter
from tests.e2e.fray_process import FrayProcess, processes, set_clock
from tests.e2e.test_shards import (
    ANSWER_WITHIN,
    SHARDS,
    START_WITHIN,
    Table,
    shard_processes,
    start_shards,
    table,
)

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
STORM = 24  # concurrent /gm set per encounter
REFUSED_EVERY = 4  # every 4th names a combatant who is not there: refused, must change nothing
STORM_WITHIN = 30.0
TARGET = "Bandit 1"
NOBODY = "Bandit 9"
STALE = stale_encounter()


def target_of(i: int) -> str:
    return NOBODY if i % REFUSED_EVERY == REFUSED_EVERY - 1 else TARGET


@dataclass
class Outcome:
    """What each GM of the storm was told: a public answer (done), a private one (refused), or nothing."""

    done: set[int] = field(default_factory=set)
    refused: set[int] = field(default_factory=set)
    unanswered: dict[int, str] = field(default_factory=dict)  # GM id → why there was no answer
    values: dict[int, int] = field(default_factory=dict)  # GM id → the distance sent
    nobody: set[int] = field(default_factory=set)  # GMs who named a combatant who is not there
    answers: dict[int, str] = field(default_factory=dict)  # GM id → what the bot answered

    def of(self, gms: set[int]) -> Outcome:
        """The part of the storm these GMs sent."""
        return Outcome(
            self.done & gms,
            self.refused & gms,
            {gm: why for gm, why in self.unanswered.items() if gm in gms},
            {gm: v for gm, v in self.values.items() if gm in gms},
            self.nobody & gms,
            {gm: a for gm, a in self.answers.items() if gm in gms},
        )


async def open_fight(t: Table) -> None:
    await t.ok(t.owner, "gm role", role=t.gm_role)
    await t.ok(t.gm, "gm system", system="d6")
    await t.ok(t.gm, "encounter start", name="Storm")
    await t.ok(t.gm, "encounter add", name="Bandit", template="bandit", count=2, side="bandits")
    await t.ok(t.gm, "encounter add", name="Wolf", template="wolf", side="wolves")
    await t.ok(t.gm, "encounter begin")


async def storm(sends: list[tuple[FakeDiscord, FakeChannel, FakeMember]]) -> Outcome:
    """All at once: the ``i``-th GM sets ``target_of(i)``'s distance to ``i + 1``."""
    outcome = Outcome()

    async def one(i: int, fd: FakeDiscord, channel: FakeChannel, gm: FakeMember) -> None:
        outcome.values[gm.id] = i + 1
        if target_of(i) == NOBODY:
            outcome.nobody.add(gm.id)
        try:
            r = await fd.invoke(
                channel,
                gm,
                "gm set",
                timeout=STORM_WITHIN,
                target=target_of(i),
                field="distance",
                value=str(i + 1),
            )
        except (TimeoutError, AssertionError) as err:  # no answer, or one Discord would reject
            outcome.unanswered[gm.id] = str(err)
            return
        # Under load the bot may acknowledge first ("thinking…", public) and refuse in a private followup:
        # the change was made when something public says so.
        public = [m for m in r.messages if not m.ephemeral and (m.content or m.embeds)]
        (outcome.done if public else outcome.refused).add(gm.id)
        outcome.answers[gm.id] = " | ".join(m.content for m in r.messages)

    await asyncio.wait_for(
        asyncio.gather(*(one(i, *send) for i, send in enumerate(sends))), STORM_WITHIN + 10
    )
    return outcome


async def logged(engine: Any, channel_id: int) -> tuple[list[int], int | None]:
    """The actors of the encounter's ``/gm set`` log rows (in order), and the target's distance now."""
    async with engine.connect() as conn:
        actors = [
            int(a)
            for (a,) in await conn.execute(
                sa.text(
                    "SELECT l.actor_id FROM event_log l JOIN encounter e ON e.id = l.encounter_id "
                    "WHERE e.channel_id = :channel AND e.status = 'running' AND l.command = 'gm set' "
                    "ORDER BY l.seq"
                ),
                {"channel": channel_id},
            )
        ]
        distance = (
            await conn.execute(
                sa.text(
                    "SELECT c.distance FROM combatant c JOIN encounter e ON e.id = c.encounter_id "
                    "WHERE e.channel_id = :channel AND e.status = 'running' AND c.name = :name"
                ),
                {"channel": channel_id, "name": TARGET},
            )
        ).scalar_one()
    return actors, distance


def check(outcome: Outcome, actors: list[int], distance: int | None) -> None:
    print(  # shown with -s or on failure
        f"storm: {len(outcome.done)} done, {len(outcome.refused)} refused "
        f"({len(outcome.refused - outcome.nobody)} not for a wrong name), {len(outcome.unanswered)} unanswered; "
        f"{len(actors)} logged",
        sorted({outcome.answers[gm][:80] for gm in outcome.refused - outcome.nobody}),
    )
    assert len(outcome.done) >= STORM // 2, f"too few changes answered to show anything: {outcome}"
    assert outcome.refused >= outcome.nobody, [
        outcome.answers.get(g, outcome.unanswered.get(g)) for g in outcome.nobody
    ]
    # The only other refusal is the clear one of a race lost to the other process (SQLite has no lock
    # across processes, only the version check); never an incident.
    odd = [outcome.answers[gm] for gm in outcome.refused - outcome.nobody if STALE not in outcome.answers[gm]]
    assert odd == [], odd
    twice = [gm for gm, n in Counter(actors).items() if n > 1]
    assert twice == [], f"changes applied twice: {twice}"
    assert outcome.done <= set(actors), f"answered but not in the log: {outcome.done - set(actors)}"
    assert not (outcome.refused & set(actors)), f"refused but in the log: {outcome.refused & set(actors)}"
    unknown = set(actors) - outcome.done - outcome.refused
    assert len(unknown) <= len(outcome.unanswered), "a change nobody sent is in the log"
    assert distance == outcome.values[actors[-1]], "the last logged change is not what the encounter holds"


def gms(t: Table, count: int) -> list[FakeMember]:
    return [t.guild.add_member(f"gm-{i}", roles=[t.gm_role]) for i in range(count)]


async def test_storms_in_both_shards_at_once(tmp_path: Path, e2e_settings: Settings) -> None:
    clock_file = tmp_path / "clock"
    set_clock(clock_file, T0)
    engine = create_engine(e2e_settings.database_url, database_path=e2e_settings.database_path)
    async with FakeDiscord(default_timeout=ANSWER_WITHIN, strict=False) as fd:
        tables = [table(fd, shard) for shard in range(SHARDS)]
        storm_gms = [gms(t, STORM) for t in tables]
        bots = shard_processes(fd, e2e_settings, tmp_path, clock_file)
        try:
            async with processes(*bots):
                await start_shards(fd, bots)
                await asyncio.gather(*(open_fight(t) for t in tables))
                sends = [
                    (fd, t.channel, gm)
                    for t, members in zip(tables, storm_gms, strict=True)
                    for gm in members
                ]
                outcome = await storm(sends)
                for bot in bots:
                    assert bot.returncode is None, f"{bot.name} died"
            for t, members in zip(tables, storm_gms, strict=True):
                part = outcome.of({m.id for m in members})
                check(part, *await logged(engine, t.channel.id))
        finally:
            await engine.dispose()
        assert [p for p in fd.problems if "callback after" not in p] == []


async def any_synced(*fakes: FakeDiscord) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_WITHIN
    while not any(fd.global_commands for fd in fakes):
        if loop.time() > deadline:
            raise TimeoutError(f"no process synced its commands within {START_WITHIN} s")
        await asyncio.sleep(0.05)


def mirrored_world() -> tuple[FakeDiscord, ...]:
    """Two fake Discords holding the same server, channel and members (same ids)."""
    return tuple(
        FakeDiscord(default_timeout=ANSWER_WITHIN, strict=False, snowflakes=Snowflakes(counting_from=1 << 32))
        for _ in range(2)
    )


async def test_a_storm_in_one_channel_served_by_two_processes(tmp_path: Path, e2e_settings: Settings) -> None:
    clock_file = tmp_path / "clock"
    set_clock(clock_file, T0)
    engine = create_engine(e2e_settings.database_url, database_path=e2e_settings.database_path)
    first, second = mirrored_world()
    async with first, second:
        tables = [table(fd, 0) for fd in (first, second)]
        storm_gms = [gms(t, 2 * STORM) for t in tables]
        assert [t.channel.id for t in tables] == [tables[0].channel.id] * 2
        assert [m.id for m in storm_gms[0]] == [m.id for m in storm_gms[1]]
        for fd in (first, second):  # interactions and messages get ids of now (the bot reads their age)
            fd.world.snowflakes.follow_clock()
        bots = [
            FrayProcess(
                f"process-{n}",
                fd,
                database_url=e2e_settings.database_url,
                workdir=tmp_path,
                clock_file=clock_file,
                seed=n,
            )
            for n, fd in enumerate((first, second))
        ]
        try:
            async with processes(*bots):
                for fd, bot in zip((first, second), bots, strict=True):
                    await fd.wait_until_ready(timeout=START_WITHIN)
                    await bot.ready(START_WITHIN)
                # One application's commands: whichever process synced, both Discords show them.
                await any_synced(first, second)
                for fd, other in ((first, second), (second, first)):
                    if not fd.global_commands:
                        fd.store_commands(None, other.global_commands)
                await open_fight(tables[0])
                # The storm alternates between the two Discords: half of it reaches each process.
                sends = [
                    (tables[i % 2].fd, tables[i % 2].channel, storm_gms[i % 2][i]) for i in range(2 * STORM)
                ]
                outcome = await storm(sends)
                for bot in bots:
                    assert bot.returncode is None, f"{bot.name} died"
            actors, distance = await logged(engine, tables[0].channel.id)
            check(outcome, actors, distance)
            by_process = [{m.id for m in storm_gms[0][n::2]} & set(actors) for n in range(2)]
            assert all(by_process), "both processes changed the encounter"
        finally:
            await engine.dispose()
