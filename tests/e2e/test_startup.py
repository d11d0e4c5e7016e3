"""Start-up as production does it: migrations, sync only when changed, heartbeat, the error handler."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re

import discord
import pytest
from discord import app_commands

from bot import app
from bot.__main__ import health
from bot.app import running
from bot.memory import malloc_trim
from bot.message_events import NewMessage
from bot.playground.loopback import FakeDiscord
from bot.settings import Settings
from tests.e2e.conftest import Harness

INCIDENT = re.compile(r"incident `([0-9a-f]{8})`")


async def test_commands_are_synced_once_and_not_again_when_unchanged(fray: Harness) -> None:
    assert len(fray.fd.sync_calls) == 1
    synced = {c["name"] for c in fray.fd.global_commands}
    assert synced == {c.name for c in fray.bot.tree.get_commands()}
    assert synced >= {"roll", "gm", "character", "encounter", "turn"}
    gm = next(c for c in fray.fd.global_commands if c["name"] == "gm")
    assert {o["name"] for o in gm["options"]} >= {"system", "role", "roll"}
    bot = await fray.restart()
    assert len(fray.fd.sync_calls) == 1, "an unchanged command set must not be synced again"
    assert bot.last_sync is not None and not bot.last_sync.synced


async def test_fray_asks_discord_only_for_the_servers_and_their_new_messages(fray: Harness) -> None:
    """Commands and clicks come as interactions; the new messages count how far a tracker has scrolled up.
    Typing, reactions, DMs and the other default events would be sent and parsed for nothing."""
    (identify,) = fray.fd.identify_payloads
    assert identify["intents"] == discord.Intents(guilds=True, guild_messages=True).value


async def test_a_changed_command_set_is_synced(fray: Harness) -> None:
    assert fray.bot is not None
    add_test_command(fray.bot, "ping")
    result = await fray.bot.sync_commands()
    assert result is not None and result.synced and len(fray.fd.sync_calls) == 2
    assert (await fray.bot.sync_commands()).synced is False  # type: ignore[union-attr]


async def test_the_heartbeat_is_fresh_while_connected(fray: Harness) -> None:
    assert fray.bot is not None and fray.bot.gateway_connected()
    for _ in range(50):
        if fray.settings.heartbeat_file.exists():
            break
        await asyncio.sleep(0.05)
    assert health(fray.settings.heartbeat_file) == 0


async def test_a_second_bot_on_the_same_sqlite_file_ends_the_firsts_trust_in_its_kept_reads(
    fray: Harness,
) -> None:
    """The first bot process on a SQLite file holds its writer lock and trusts its kept reads
    (``bot.sole_writer``); a second one announces itself, and from the first's next change on both ask the
    database before every change."""
    if fray.settings.database_path is None:
        pytest.skip("PostgreSQL: every process asks")
    assert fray.bot is not None and fray.bot.store.trusted_count() is not None
    second = app.Fray(fray.settings, sync="skip", heartbeat=False)
    async with second:
        starting = asyncio.create_task(second.start(fray.settings.token))
        try:
            await asyncio.wait_for(second.wait_until_ready(), 15)
            assert second.store.trusted_count() is None
            assert fray.bot.store.trusted_count() is None
        finally:
            await asyncio.wait_for(second.close(), 15)
            await asyncio.wait_for(starting, 15)


def add_test_command(bot: discord.Client, name: str, *, respond_first: bool = False) -> None:
    async def callback(interaction: discord.Interaction) -> None:
        if respond_first:
            await interaction.response.send_message("working on it")
        raise ZeroDivisionError("a test-only bug")

    bot.tree.add_command(app_commands.Command(name=name, description="test only", callback=callback))


@pytest.mark.parametrize("respond_first", [False, True])
async def test_an_unexpected_error_yields_an_apology_with_an_incident_id(
    fray: Harness, caplog: pytest.LogCaptureFixture, respond_first: bool
) -> None:
    assert fray.bot is not None
    add_test_command(fray.bot, "boom", respond_first=respond_first)
    await fray.bot.sync_commands()
    with caplog.at_level(logging.ERROR, logger="cogs.errors"):
        r = await fray.fd.invoke(fray.channel, fray.player, "boom")
        if respond_first:
            await r.wait_followups(1)
    apology = r.followups[0] if respond_first else r.response
    assert apology is not None and apology.ephemeral
    match = INCIDENT.search(apology.content)
    assert match, apology.content
    logged = [rec for rec in caplog.records if match[1] in rec.getMessage()]
    assert logged and logged[0].exc_info and logged[0].exc_info[0] is ZeroDivisionError


async def test_dev_guild_scope(fake_discord_world: FakeDiscord, e2e_settings: Settings) -> None:
    fd = fake_discord_world
    guild = fd.add_guild("Dev")
    channel = guild.add_channel("tests")
    member = guild.add_member("dev", manage_guild=True)
    settings = dataclasses.replace(e2e_settings, dev_guild_id=guild.id)
    async with running(settings, ready_within=10) as bot:
        await fd.wait_until_ready(timeout=10)
        assert fd.global_commands == []
        assert {c["name"] for c in fd.guild_commands[guild.id]} == {c.name for c in bot.tree.get_commands()}
        r = await fd.invoke(channel, member, "gm system", system="nyra")
        assert not r.ephemeral and "Nyra" in r.content
    assert [scope for scope, _ in fd.sync_calls] == [guild.id]


async def test_freed_memory_is_given_back_while_running_and_the_trims_stop_with_the_bot(
    fray: Harness,
) -> None:
    if malloc_trim() is None:
        pytest.skip("glibc only")
    bot = fray.bot
    assert bot is not None
    task = bot._memory_task
    assert task is not None and not task.done()
    await fray.stop()
    assert task.done() and bot._memory_task is None


async def test_the_start_is_frozen_once_everything_is_loaded_where_the_process_is_the_bots(
    fray: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run_bot`` (the bot's own process) freezes what the start loaded, after the cogs and the command
    sync, and spaces the young collections; a bot sharing a process (these tests) changes neither."""
    loaded: list[str] = []
    real_load = app.Fray.load_extension

    async def load(self: app.Fray, name: str, **kwargs: object) -> None:
        await real_load(self, name, **kwargs)  # type: ignore[arg-type]
        loaded.append(name)

    frozen: list[int] = []  # how many extensions were loaded when it froze
    monkeypatch.setattr(app.Fray, "load_extension", load)
    spaced: list[int] = []
    monkeypatch.setattr(app.memory, "freeze_startup", lambda: frozen.append(len(loaded)))
    monkeypatch.setattr(app.memory, "collect_young_less_often", lambda: spaced.append(len(loaded)))
    await fray.stop()
    await fray.start()
    assert frozen == [] == spaced and loaded
    loaded.clear()
    await fray.stop()
    await fray.start(freeze_startup=True)
    assert frozen == [len(app.EXTENSIONS)] == [len(loaded)] == spaced
    seen: dict[str, object] = {}

    class Stub:
        def __init__(self, settings: object, **injectables: object) -> None:
            seen.update(injectables)
            raise RuntimeError("stop here")

    monkeypatch.setattr(app, "Fray", Stub)
    with pytest.raises(RuntimeError, match="stop here"):
        await app.run_bot(fray.settings)
    assert seen == {"freeze_startup": True}


async def test_sqlites_log_is_checkpointed_while_running_and_the_checkpoints_stop_with_the_bot(
    fray: Harness,
) -> None:
    bot = fray.bot
    assert bot is not None
    task = bot._checkpoint_task
    if bot.settings.database_path is None:  # PostgreSQL: nothing of the kind
        assert task is None
        return
    assert task is not None and not task.done()
    await fray.stop()
    assert task.done() and bot._checkpoint_task is None


async def test_a_burst_of_commands_shares_a_bounded_number_of_connections_to_discord(
    fray: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py's own connector has no limit: each answer sent while the others are under way would open a
    connection of its own (a TLS handshake each against Discord; about 800 in a storm of a thousand)."""
    monkeypatch.setattr(app, "REST_CONNECTIONS", 3)
    await fray.restart()
    fray.script(*[4] * 30)
    fray.fd.rest_peers.clear()
    answers = await asyncio.gather(
        *(fray.fd.invoke(fray.channel, fray.player, "roll", expression="1d6") for _ in range(30))
    )
    assert all(r.response is not None and "4" in r.response.content for r in answers)
    assert 1 <= len(fray.fd.rest_peers) <= 3, fray.fd.rest_peers


async def test_a_new_message_is_observed_at_once_and_builds_no_message(
    fray: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Fray reads no message: a new one goes to the message observers in the gateway's callback as its ids (a
    failing observer is logged, the others still see it); neither a new nor an edited message builds a
    ``discord.Message`` or starts a task for a listener."""
    bot = fray.bot
    assert bot is not None
    scheduled: list[str] = []
    real_schedule = bot._schedule_event

    def schedule(coro, name, *args, **kwargs):  # type: ignore[no-untyped-def]
        scheduled.append(name)
        return real_schedule(coro, name, *args, **kwargs)

    monkeypatch.setattr(bot, "_schedule_event", schedule)
    built: list[object] = []
    real_message = discord.state.Message
    monkeypatch.setattr(discord.state, "Message", lambda **kw: built.append(kw) or real_message(**kw))
    seen: list[NewMessage] = []
    observers = bot.message_observers  # the list the gateway's parser tells
    observers[:0] = [lambda m: 1 / 0, seen.append]
    channel, member = fray.channel, fray.player
    with caplog.at_level(logging.ERROR, logger="bot.message_events"):
        posted = await fray.fd.post_message(channel, member, "a turn, in prose")
        await fray.fd.edit_message(posted, {"content": "a turn, in better prose"}, [])
        after = await fray.fd.post_message(channel, member, "and another")  # seen once the edit was read
        for _ in range(200):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.01)
    assert seen == [NewMessage(posted.id, channel.id), NewMessage(after.id, channel.id)]
    assert "a message observer failed" in caplog.text
    assert built == []
    assert [n for n in scheduled if "message" in n] == []
