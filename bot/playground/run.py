"""``fray play``: the loopback Discord, the real ``Fray`` on it, and the page, on 127.0.0.1.

The bot is the production one (``bot.app.running``: the same class, cogs, migrations and database code) with
its own database file, a token only the loopback accepts, and a forced command sync (the loopback forgets
the commands between starts; the database remembers they were synced).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
from aiohttp import web

from bot.app import Fray, running
from bot.playground.loopback import DEFAULT_TOKEN, FakeDiscord, Snowflakes
from bot.playground.table import TABLE_IDS_FROM, Table, lay_table, seat_demo, set_systems
from bot.playground.web import Site
from bot.settings import Settings

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
READY_WITHIN = 30.0
# Long enough for a busy laptop; Discord's own 3 s rule would fail the page on a slow first start.
ANSWER_WITHIN = 20.0


def playground_database(cwd: Path | None = None) -> Path:
    """``var/playground.db`` beside the production ``var/fray.db``, never the same file."""
    return (cwd or Path.cwd()) / "var" / "playground.db"


class DemoSeating:
    """The demo table, at most once per start (``--demo`` and the page's button may both ask)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.lock = asyncio.Lock()
        self.seated = False

    async def __call__(self) -> list[str]:
        async with self.lock:
            if self.seated:
                return []
            results = await seat_demo(self.table)
            self.seated = True
            return [r.content for r in results]


@dataclass
class Playground:
    fd: FakeDiscord
    table: Table
    bot: Fray
    site: Site
    url: str
    seat_demo: DemoSeating


def _socket(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    return sock


@contextlib.asynccontextmanager
async def playground(
    database_path: Path, *, port: int = 0, demo: bool = False, **injectables: Any
) -> AsyncIterator[Playground]:
    """A running playground (``port=0``: any free port). ``injectables`` go to ``Fray`` (tests: dice)."""
    settings = Settings.for_database(DEFAULT_TOKEN, database_path, guild_ready_timeout=0.05)
    sock = _socket(port)  # fail on a taken port before anything else starts
    fd = FakeDiscord(
        strict=False,
        callback_deadline=None,
        default_timeout=ANSWER_WITHIN,
        snowflakes=Snowflakes(counting_from=TABLE_IDS_FROM),
    )
    await fd.start()
    runner: web.AppRunner | None = None
    site: Site | None = None
    try:
        table = lay_table(fd)
        with fd.redirect_discord():
            injectables.setdefault("sync", "force")
            injectables.setdefault("heartbeat", False)  # var/heartbeat belongs to the production bot
            async with running(settings, ready_within=READY_WITHIN, **injectables) as bot:
                await fd.wait_until_ready(timeout=READY_WITHIN)
                await fd.wait_for_sync(timeout=READY_WITHIN)
                for refusal in await set_systems(table):
                    log.warning("could not set a channel's system: %s", refusal)
                seating = DemoSeating(table)
                site = Site(fd, table, seating)
                runner = web.AppRunner(site.app, access_log=None, shutdown_timeout=2.0)
                await runner.setup()
                await web.SockSite(runner, sock).start()
                url = f"http://{HOST}:{sock.getsockname()[1]}/"
                if demo:
                    await seating()
                pg = Playground(fd, table, bot, site, url, seating)
                try:
                    yield pg
                finally:
                    await site.close()
                    await runner.cleanup()
                    runner = None
    finally:
        if runner is not None:
            await runner.cleanup()
        sock.close()
        await fd.stop()
        for problem in fd.problems:
            log.warning("loopback problem: %s", problem)


async def play(
    *, port: int, demo: bool, open_page: bool, database_path: Path, say: Callable[[str], None] | None = None
) -> None:
    """Run a playground until Ctrl+C (or SIGTERM)."""
    say = say or (lambda line: print(line, flush=True))
    # Fray has no voice; discord.py's warnings that voice is unsupported only alarm someone trying it out.
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    try:
        database_path.parent.mkdir(parents=True, exist_ok=True)
        async with playground(database_path, port=port, demo=demo) as pg:
            say(f"Fray playground: {pg.url}")
            say(
                f"  database {database_path}; loopback Discord API {pg.fd.api_base}, gateway {pg.fd.gateway_url}"
            )
            say("  Ctrl+C stops it.")
            if open_page:
                import webbrowser

                webbrowser.open(pg.url)
            await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
