"""A bot process of the benchmark: ``python -m bot.bench.proc floor|fray API GATEWAY TOKEN DB [HEARTBEAT]``.

``floor``: a bare discord.py client with one slash command, ``/noop``, that answers at once (with
``edit:true`` it then also edits a message of its own in the channel, as a bot keeping a live tracker must).
``fray``: the production ``Fray`` (migrations, cogs, sync, reminders) over ``DB``: a SQLite file, or a
database URL (``postgresql+asyncpg://…``; the heartbeat file is then ``HEARTBEAT``, by default
``var/heartbeat`` under the working folder).
Both are pointed at the fake Discord's REST and gateway URLs; SIGTERM stops them cleanly. With
``FRAY_BENCH_PROFILE=<file>`` Fray's process is profiled into that file (``python -m pstats``).
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import logging
import os
import signal
import sys
from pathlib import Path

import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands

PROFILE_ENV = "FRAY_BENCH_PROFILE"  # a file: Fray's process is profiled (cProfile) into it


class Floor(discord.Client):
    """The least a discord.py bot can do per command: answer it (and, with ``edit``, keep one message of
    its own in the channel up to date: the least a bot with a live tracker does per change)."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.shown: dict[int, int] = {}  # channel id → the message edited there

        @self.tree.command(name="noop", description="Answers at once")
        async def noop(interaction: discord.Interaction, edit: bool = False) -> None:
            await interaction.response.send_message("ok")
            if edit:
                await self.show(interaction.channel_id or 0, f"edited by {interaction.id}")

    async def show(self, channel_id: int, content: str) -> None:
        channel = self.get_partial_messageable(channel_id)
        message_id = self.shown.get(channel_id)
        if message_id is None:
            self.shown[channel_id] = (await channel.send(content)).id
        else:
            await channel.get_partial_message(message_id).edit(content=content)

    async def setup_hook(self) -> None:
        await self.tree.sync()


async def _run(client: discord.Client, token: str) -> None:
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stopping.add(loop.create_task(client.close())))
    async with client:
        await client.start(token)
    if stopping:
        await asyncio.wait(stopping, timeout=10)


def main(argv: list[str]) -> int:
    kind, api, gateway, token, database, *rest = argv
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    if kind == "floor":
        logging.basicConfig(level=logging.WARNING)
        client: discord.Client = Floor()
    else:
        from bot.app import Fray
        from bot.logs import setup_logging
        from bot.settings import Settings

        if "://" in database:
            heartbeat = Path(rest[0]) if rest else Path.cwd() / "var" / "heartbeat"
            settings = Settings.for_url(token, database, heartbeat, guild_ready_timeout=0.05)
        else:
            settings = Settings.for_database(token, Path(database), guild_ready_timeout=0.05)
        setup_logging(settings.log_level, secrets=[token, settings.database_password or ""])
        client = Fray(settings, freeze_startup=True)  # as ``run_bot`` starts it
    profile = os.environ.get(PROFILE_ENV)
    profiler = cProfile.Profile() if profile and kind == "fray" else None
    if profiler is not None:
        profiler.enable()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(client, token))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
