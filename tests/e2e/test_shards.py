"""Two bot processes — two OS processes, each the production Fray with ``SHARD_COUNT=2`` and its own
``SHARD_IDS`` — on one database (PostgreSQL in CI's second pass, one SQLite file in the first): each gets
only its shard's server from the gateway, plays there, and sends the turn reminders of its own server only,
so every reminder goes out exactly once.

The fake Discord runs here; the processes run ``tests.e2e.fray_process`` (the clock is a file this test
rewrites, the reminder loop ticks every 0.1 s and reports each tick on stdout).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest_asyncio
import sqlalchemy as sa

from bot.db import create_engine
from bot.playground.loopback import FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeRole
from bot.reminders import shard_of
from bot.settings import Settings
from tests.e2e.fray_process import FrayProcess, processes, set_clock

SHARDS = 2
H = timedelta(hours=1)
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
START_WITHIN = 30.0  # two interpreters importing discord.py and the cogs on a shared machine
ANSWER_WITHIN = 10.0
TICK_WITHIN = 10.0


@dataclass
class Table:
    """A server of one shard, with its members and the commands they send."""

    fd: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    gm_role: FakeRole
    owner: FakeMember
    gm: FakeMember
    player: FakeMember

    async def ok(self, member: FakeMember, command: str, **options: Any) -> Any:
        r = await self.fd.invoke(self.channel, member, command, timeout=ANSWER_WITHIN, **options)
        assert not r.ephemeral, f"/{command} {options} was refused: {r.content}"
        return r

    def reminders(self) -> list[Any]:
        return [m for m in self.fd.channel_messages(self.channel) if "Reminder" in m.content]


def table(fd: FakeDiscord, shard: int) -> Table:
    guild = fd.add_guild(f"Table {shard}", shard=(shard, SHARDS))
    gm_role = guild.add_role("GM")
    return Table(
        fd,
        guild,
        guild.add_channel("combat"),
        gm_role,
        owner=guild.add_member("olga", manage_guild=True),
        gm=guild.add_member("gerd", roles=[gm_role]),
        player=guild.add_member("pia"),
    )


@pytest_asyncio.fixture
async def fd() -> Any:
    async with FakeDiscord(default_timeout=ANSWER_WITHIN) as fake:
        yield fake


def shard_processes(
    fd: FakeDiscord, settings: Settings, workdir: Path, clock_file: Path
) -> list[FrayProcess]:
    return [
        FrayProcess(
            f"shard-{shard}",
            fd,
            database_url=settings.database_url,
            workdir=workdir,
            clock_file=clock_file,
            seed=shard,
            shards=(SHARDS, (shard,)),
        )
        for shard in range(SHARDS)
    ]


async def start_shards(fd: FakeDiscord, bots: list[FrayProcess]) -> None:
    """Both processes identified for their shard and are ready (READY, their servers, the commands synced)."""
    await fd.wait_until_ready(timeout=START_WITHIN)
    for bot in bots:
        await bot.ready(START_WITHIN)
    await fd.wait_for_sync(timeout=START_WITHIN)


async def turn_holder(engine: Any, channel: FakeChannel) -> str:
    async with engine.connect() as conn:
        return (
            await conn.execute(
                sa.text(
                    "SELECT c.name FROM encounter e JOIN combatant c ON c.id = e.turn_combatant_id "
                    "WHERE e.channel_id = :channel AND e.status = 'running'"
                ),
                {"channel": channel.id},
            )
        ).scalar_one()


async def fight_until_the_players_turn(t: Table, engine: Any) -> None:
    """Set up as members would: a D6 channel, reminders, the player's Ayla against a bandit, moved on (by the
    GM) until it is Ayla's turn."""
    await t.ok(t.owner, "gm role", role=t.gm_role)
    await t.ok(t.gm, "gm system", system="d6")
    await t.ok(t.owner, "gm reminders", after="12h", repeat="6h", max=2, then="gm")
    await t.ok(t.player, "character create", name="Ayla")
    await t.ok(t.gm, "encounter start", name="Road")
    await t.ok(t.player, "encounter join")
    await t.ok(t.gm, "encounter add", name="Bandit", template="bandit", side="bandits")
    await t.ok(t.gm, "encounter begin")
    for _ in range(4):  # bounded: two combatants
        if await turn_holder(engine, t.channel) == "Ayla":
            return
        await t.ok(t.gm, "gm next")
    raise AssertionError("Ayla never got a turn")


async def test_two_shard_processes_play_and_remind_once_each(
    fd: FakeDiscord, e2e_settings: Settings, tmp_path: Path
) -> None:
    tables = [table(fd, shard) for shard in range(SHARDS)]
    assert [shard_of(t.guild.id, SHARDS) for t in tables] == [0, 1]
    clock_file = tmp_path / "clock"
    set_clock(clock_file, T0)
    engine = create_engine(e2e_settings.database_url, database_path=e2e_settings.database_path)
    bots = shard_processes(fd, e2e_settings, tmp_path, clock_file)
    try:
        async with processes(*bots):
            await start_shards(fd, bots)
            assert sorted(p["shard"] for p in fd.identify_payloads) == [[0, SHARDS], [1, SHARDS]]
            for shard, bot in enumerate(bots):  # the gateway gave each process only its shard's server
                ready = await bot.ready(0)
                assert ready == {"ready": [tables[shard].guild.id], "shards": [shard]}, ready

            for t in tables:
                await fight_until_the_players_turn(t, engine)

            # Time moves for both processes at once; after each move, wait for a tick of each that read it.
            expected = {11: 0, 12: 1, 18: 2, 24: 2, 30: 2}  # reminders in each channel by then
            for hours, count in expected.items():
                now = T0 + hours * H
                set_clock(clock_file, now)
                for bot in bots:
                    await bot.ticked_at(now, TICK_WITHIN)
                await fd.flush()
                assert [len(t.reminders()) for t in tables] == [count, count], hours
            for bot in bots:  # a few more ticks at the last time: nothing is left to send
                await bot.ticks_more(3, TICK_WITHIN)
            await fd.flush()
    finally:
        await engine.dispose()

    # Each process claimed and sent its own server's two reminders and the GM step, each once, and nothing
    # of the other's.
    for shard, bot in enumerate(bots):
        steps = Counter(
            (guild_id, action, number)
            for tick in bot.ticks()
            for _, guild_id, action, number in tick["steps"]
        )
        guild_id = tables[shard].guild.id
        assert steps == {(guild_id, "remind", 1): 1, (guild_id, "remind", 2): 1, (guild_id, "gm", 3): 1}, (
            shard
        )
        assert all(tick["failed"] == 0 for tick in bot.ticks())
    for t in tables:
        reminders = t.reminders()
        assert len(reminders) == 2, [m.content for m in reminders]
        assert all(set(fd.pings(m)) == {t.player.id} for m in reminders)
        assert fd.pings(fd.channel_messages(t.channel)[-1]).roles == {t.gm_role.id}
