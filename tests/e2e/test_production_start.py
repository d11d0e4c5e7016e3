"""The production entry points against the fake Discord: ``run_bot`` (stopped by SIGTERM) and ``sync``."""

from __future__ import annotations

import asyncio
import os
import signal

from bot.app import run_bot, sync_once
from bot.playground.loopback import FakeDiscord
from bot.settings import Settings
from tests.e2e.conftest import READY_WITHIN, SwitchableDice


async def test_run_bot_serves_and_stops_on_sigterm(
    fake_discord_world: FakeDiscord, e2e_settings: Settings
) -> None:
    fd = fake_discord_world
    guild = fd.add_guild("Table")
    channel = guild.add_channel("combat")
    member = guild.add_member("pia")
    dice = SwitchableDice()
    task = asyncio.create_task(run_bot(e2e_settings, dice_factory=lambda: dice))
    try:
        await fd.wait_until_ready(timeout=READY_WITHIN)
        dice.current = type(dice.current)([3])
        r = await fd.invoke(channel, member, "roll", expression="1d6")
        assert "[3] = 3" in r.content
        assert e2e_settings.database_path.is_file()
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(task, READY_WITHIN)
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=READY_WITHIN)
    assert task.exception() is None


async def test_sync_force_syncs_even_when_unchanged(
    fake_discord_world: FakeDiscord, e2e_settings: Settings
) -> None:
    fd = fake_discord_world
    first = await asyncio.wait_for(sync_once(e2e_settings, force=False), READY_WITHIN)
    assert first is not None and first.synced and len(fd.sync_calls) == 1
    unchanged = await asyncio.wait_for(sync_once(e2e_settings, force=False), READY_WITHIN)
    assert unchanged is not None and not unchanged.synced and len(fd.sync_calls) == 1
    forced = await asyncio.wait_for(sync_once(e2e_settings, force=True), READY_WITHIN)
    assert forced is not None and forced.synced and len(fd.sync_calls) == 2
