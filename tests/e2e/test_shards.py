"""Two bot processes, one shard each, on one database (PostgreSQL in CI's second pass): each gets only its
shard's servers from the gateway, plays there, and sends the turn reminders of its own servers only, so
every reminder goes out exactly once.

The two bots run in this test's event loop but share nothing in memory: each has its own ``Fray``, engine,
connection pool, lock registry, gateway session and reminder loop, as two processes would.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from datetime import timedelta
from pathlib import Path

from bot.app import running
from bot.playground.loopback import FakeDiscord
from bot.reminders import owned_shards, shard_of
from bot.settings import Settings
from tests.e2e.conftest import READY_WITHIN, Harness, SwitchableDice
from tests.e2e.test_reminder_flow import T0, _fight_until_the_players_turn, _reminders
from tests.e2e.test_reminders import Clock, reminder_loop

H = timedelta(hours=1)
SHARDS = 2


def table(fd: FakeDiscord, settings: Settings, shard: int) -> Harness:
    guild = fd.add_guild(f"Table {shard}", shard=(shard, SHARDS))
    channel = guild.add_channel("combat")
    gm_role = guild.add_role("GM")
    return Harness(
        fd=fd,
        settings=settings,
        guild=guild,
        channel=channel,
        thread=guild.add_thread(channel, "side-fight"),
        gm_role=gm_role,
        owner=guild.add_member("olga", manage_guild=True),
        gm=guild.add_member("gerd", roles=[gm_role]),
        player=guild.add_member("pia"),
        dice=SwitchableDice(),
    )


async def test_two_shard_processes_play_and_remind_once_each(
    fake_discord_world: FakeDiscord, e2e_settings: Settings, tmp_path: Path
) -> None:
    fd = fake_discord_world
    tables = [
        table(
            fd,
            dataclasses.replace(
                e2e_settings,
                shard_count=SHARDS,
                shard_ids=(shard,),
                heartbeat_file=tmp_path / f"heartbeat-{shard}",
                reminder_interval=3600.0,  # ticked by hand below
            ),
            shard,
        )
        for shard in range(SHARDS)
    ]
    assert [shard_of(t.guild.id, SHARDS) for t in tables] == [0, 1]
    clock = Clock(T0)
    async with contextlib.AsyncExitStack() as stack:
        bots = await asyncio.gather(
            *(
                stack.enter_async_context(
                    running(
                        t.settings, ready_within=READY_WITHIN, clock=clock, dice_factory=lambda t=t: t.dice
                    )
                )
                for t in tables
            )
        )
        await fd.wait_until_ready(timeout=READY_WITHIN)
        for t, bot in zip(tables, bots, strict=True):
            t.bot = bot
        assert sorted(p["shard"] for p in fd.identify_payloads) == [[0, SHARDS], [1, SHARDS]]
        for shard, bot in enumerate(bots):  # the gateway gave each process only its shard's server
            assert [g.id for g in bot.guilds] == [tables[shard].guild.id]
            assert list(bot.shards) == [shard]

        for t in tables:
            await t.make_gm_role()
            r = await fd.invoke(
                t.channel, t.owner, "gm reminders", after="12h", repeat="6h", max=2, then="gm"
            )
            assert not r.ephemeral, r.content
        encounters = [await _fight_until_the_players_turn(t, clock) for t in tables]
        loops = [reminder_loop(bot) for bot in bots]
        assert [loop.shards for loop in loops] == [owned_shards(SHARDS, [s]) for s in range(SHARDS)]

        sent: dict[int, list[int]] = {0: [], 1: []}
        for hours in (12, 12, 18, 18, 24, 30):  # due times, each ticked by both processes at once
            clock.now = T0 + hours * H
            reports = await asyncio.wait_for(asyncio.gather(*(loop.tick() for loop in loops)), READY_WITHIN)
            for shard, report in enumerate(reports):
                sent[shard] += [step.encounter_id for step in report.steps]
        await fd.flush()

    # Each process sent its own server's two reminders and the GM step, and nothing of the other's.
    assert sent == {shard: [encounters[shard]] * 3 for shard in range(SHARDS)}
    for t in tables:
        reminders = _reminders(t)
        assert len(reminders) == 2, [m.content for m in reminders]
        assert all(set(fd.pings(m)) == {t.player.id} for m in reminders)
        assert fd.pings(fd.channel_messages(t.channel)[-1]).roles == {t.gm_role.id}
