"""A bot process of the benchmark: ``python -m bot.bench.proc floor|fray API GATEWAY TOKEN DB [HEARTBEAT]``.

``floor``: a bare discord.py client with one slash command, ``/noop``, that answers at once (with
``edit:true`` it then also edits a message of its own in the channel, as a bot keeping a live tracker must;
with ``save:true`` it first saves a change durably, as a bot keeping a fight on SQLite must: ``FloorSave``).
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
import sqlite3
import sys
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import orjson
import yarl
from discord import app_commands

PROFILE_ENV = "FRAY_BENCH_PROFILE"  # a file: Fray's process is profiled (cProfile) into it


class FloorSave:
    """The least a change costs to keep on SQLite, done the cheapest way Python can: the stdlib's ``sqlite3``
    on the event loop's thread (WAL, ``synchronous=NORMAL``, as Fray's), one version-checked ``UPDATE`` of a
    channel's fight state as JSON of Fray's size (eight combatants, about 7 KB) and one log ``INSERT``,
    committed; JSON by orjson, as Fray's. No ORM, no undo record, no rules: the floor under any bot that
    persists each change."""

    COMBATANTS = 8

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS fight (channel INTEGER PRIMARY KEY, version INTEGER, state TEXT)"
        )
        self.db.execute("CREATE TABLE IF NOT EXISTS log (channel INTEGER, seq INTEGER, entry TEXT)")
        # channel id → (version, state), kept as a bot keeps its reads
        self.states: dict[int, tuple[int, dict[str, Any]]] = {}

    def _state(self, channel_id: int) -> tuple[int, dict[str, Any]]:
        kept = self.states.get(channel_id)
        if kept is None:
            fighters = [
                {"id": str(i), "name": f"Fighter {i}", "hp": 30, "notes": "x" * 700, "wounds": [0, 0, 0]}
                for i in range(self.COMBATANTS)
            ]
            kept = (0, {"round": 1, "turn": 0, "combatants": fighters})
            self.db.execute(
                "INSERT OR REPLACE INTO fight VALUES (?, 0, ?)", (channel_id, orjson.dumps(kept[1]))
            )
        return kept

    def save(self, channel_id: int, request_id: int) -> None:
        version, state = self._state(channel_id)
        fighter = state["combatants"][request_id % self.COMBATANTS]
        fighter["hp"] = fighter["hp"] - 1 if fighter["hp"] > 0 else 30
        entry = {"command": "noop", "target": fighter["id"], "before": {"hp": fighter["hp"] + 1}}
        self.db.execute("BEGIN")
        done = self.db.execute(
            "UPDATE fight SET version = ?, state = ? WHERE channel = ? AND version = ?",
            (version + 1, orjson.dumps(state), channel_id, version),
        )
        if done.rowcount != 1:
            self.db.execute("ROLLBACK")
            raise RuntimeError("stale")
        self.db.execute("INSERT INTO log VALUES (?, ?, ?)", (channel_id, version + 1, orjson.dumps(entry)))
        self.db.execute("COMMIT")
        self.states[channel_id] = (version + 1, state)


class Floor(discord.Client):
    """The least a discord.py bot can do per command: answer it (and, with ``edit``, keep one message of
    its own in the channel up to date: the least a bot with a live tracker does per change)."""

    def __init__(self, database: str) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.shown: dict[int, int] = {}  # channel id → the message edited there
        self.database = database
        self.saves: FloorSave | None = None  # opened by the first ``save:true``

        @self.tree.command(name="noop", description="Answers at once")
        async def noop(interaction: discord.Interaction, edit: bool = False, save: bool = False) -> None:
            if save:
                if self.saves is None:
                    self.saves = FloorSave(self.database)
                self.saves.save(interaction.channel_id or 0, interaction.id)
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
        client: discord.Client = Floor(database)
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
