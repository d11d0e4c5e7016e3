"""End-to-end harness: the real ``Fray`` (same class, cogs, migrations, database) against the loopback fake
Discord, with deterministic dice.

``fray`` yields a ``Harness`` whose bot is already running and ready; ``await fray.restart()`` starts a second
bot on the same database (and ``await fray.stop()`` / ``await fray.start()`` do it in two steps). The world:
one server "Table" with a channel, a thread in it, a GM role and three members — ``owner`` (Manage Server),
``gm`` (the GM role, set through ``/gm role`` by the owner in tests that need it) and ``player``.
Dice: ``fray.script(4, 2)`` makes the next dice show 4 then 2; a die that was not scripted fails the
command (``ScriptError`` → incident reply), so a test never passes on accidental randomness.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio

from bot.app import Fray, running
from bot.playground.loopback import DEFAULT_TOKEN, FakeChannel, FakeDiscord, FakeGuild, FakeMember, FakeRole
from bot.settings import Settings
from rules.dice import Die, ScriptedDice
from tests.conftest import settings_over

READY_WITHIN = 10.0


class SwitchableDice:
    """The bot's dice source in tests: draws from the current script (``Harness.script``)."""

    def __init__(self) -> None:
        self.current = ScriptedDice([])

    def roll(self, sides: int, label: str = "") -> Die:
        return self.current.roll(sides, label)


@dataclass
class Harness:
    fd: FakeDiscord
    settings: Settings
    guild: FakeGuild
    channel: FakeChannel
    thread: FakeChannel
    gm_role: FakeRole
    owner: FakeMember
    gm: FakeMember
    player: FakeMember
    dice: SwitchableDice = field(default_factory=SwitchableDice)
    bot: Fray | None = None
    starts: int = 0
    _stack: contextlib.AsyncExitStack | None = None

    def script(self, *values: int) -> ScriptedDice:
        self.dice.current = ScriptedDice(values)
        return self.dice.current

    async def start(self, **injectables) -> Fray:
        assert self._stack is None, "already running"
        stack = contextlib.AsyncExitStack()
        await stack.__aenter__()
        try:
            injectables.setdefault("dice_factory", lambda: self.dice)
            self.bot = await stack.enter_async_context(
                running(self.settings, ready_within=READY_WITHIN, **injectables)
            )
            await self.fd.wait_until_ready(timeout=READY_WITHIN)
        except BaseException:
            await stack.aclose()
            raise
        self._stack = stack
        self.starts += 1
        return self.bot

    async def stop(self) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:
            await stack.aclose()
        self.bot = None

    async def restart(self, **injectables) -> Fray:
        await self.stop()
        return await self.start(**injectables)

    async def idle(self, within: float = 10.0) -> None:
        """Wait (bounded) until the bot has no answer, announcement or tracker edit under way: what a change
        does after its answer (a tracker posted and its id stored) is done."""
        assert self.bot is not None
        loop = asyncio.get_running_loop()
        until = loop.time() + within
        while (pending := self.bot.under_way()) and loop.time() < until:
            await asyncio.wait(pending, timeout=until - loop.time())
        assert not self.bot.under_way(), f"still under way after {within} s"

    async def make_gm_role(self) -> None:
        """The owner (Manage Server) makes ``gm_role`` the server's GM role."""
        r = await self.fd.invoke(self.channel, self.owner, "gm role", role=self.gm_role)
        assert not r.ephemeral, r.content


@pytest_asyncio.fixture
async def fake_discord_world(tmp_path: Path) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(default_timeout=READY_WITHIN) as fd:
        with fd.redirect_discord():
            yield fd


@pytest.fixture
def e2e_settings(tmp_path: Path) -> Iterator[Settings]:
    yield from settings_over(
        tmp_path, DEFAULT_TOKEN, heartbeat_interval=0.1, guild_ready_timeout=0.05, tracker_edit_interval=0.0
    )


@pytest_asyncio.fixture
async def fray(fake_discord_world: FakeDiscord, e2e_settings: Settings) -> AsyncIterator[Harness]:
    fd = fake_discord_world
    guild = fd.add_guild("Table")
    channel = guild.add_channel("combat")
    thread = guild.add_thread(channel, "side-fight")
    gm_role = guild.add_role("GM")
    harness = Harness(
        fd=fd,
        settings=e2e_settings,
        guild=guild,
        channel=channel,
        thread=thread,
        gm_role=gm_role,
        owner=guild.add_member("olga", manage_guild=True),
        gm=guild.add_member("gerd", roles=[gm_role]),
        player=guild.add_member("pia"),
    )
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()
