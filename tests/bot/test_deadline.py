"""Answers in time (``cogs.deadline``), with a small discord.py bot against the fake Discord: a slow answer is
acknowledged first and then fills the acknowledgement in, with the visibility it asked for; a fast one is
sent as it is; a change is made only when the member can still be told."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands

from cogs import deadline
from tests.one_channel import one_channel

FAKE_DEADLINE = 1.0


class SlowButton(discord.ui.DynamicItem[discord.ui.Button], template=r"slow:(?P<n>[0-9]+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label="Slow", custom_id=f"slow:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(cls, interaction, item, match, /) -> SlowButton:
        return cls(int(match["n"]))

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        deadline.keep_deadline(interaction)
        return True

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await asyncio.sleep(0.6)
        await interaction.response.edit_message(content=f"clicked {self.n}")


class Tree(app_commands.CommandTree):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        deadline.keep_deadline(interaction)
        return True


class Table(discord.Client):
    """Commands that hold, wait for and make changes behind one lock, like a channel's."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = Tree(self)
        self.lock = asyncio.Lock()
        self.applied: list[int] = []
        self.hold_for = 0.0  # waiting on I/O inside the lock
        self.busy_for = 0.0  # working inside the lock: nothing else runs meanwhile

        @self.tree.command(name="quick", description="answers at once")
        async def quick(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("quick")

        @self.tree.command(name="slow", description="answers after a while")
        async def slow(interaction: discord.Interaction, secret: bool = False) -> None:
            await asyncio.sleep(0.6)
            await interaction.response.send_message("slow", ephemeral=secret)
            await interaction.followup.send("and more")

        @self.tree.command(name="change", description="a change behind the lock")
        async def change(interaction: discord.Interaction, n: int) -> None:
            async with self.lock:
                await asyncio.sleep(self.hold_for)
                busy_until = time.perf_counter() + self.busy_for
                while time.perf_counter() < busy_until:
                    pass
                await deadline.acknowledge_before_change()
                self.applied.append(n)
            await interaction.response.send_message(f"changed {n}")

        @self.tree.command(name="button", description="posts a slow button")
        async def button(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(SlowButton(1))
            await interaction.response.send_message("press", view=view)

        @self.tree.error
        async def on_error(interaction: discord.Interaction, error: Exception) -> None:
            original = getattr(error, "original", error)
            if isinstance(original, deadline.TooLate):
                return  # nobody can be told any more
            raise error

    async def setup_hook(self) -> None:
        self.add_dynamic_items(SlowButton)
        await self.tree.sync()


@contextlib.asynccontextmanager
async def running(monkeypatch: pytest.MonkeyPatch, limit: float) -> AsyncIterator[tuple[Any, ...]]:
    """The fake with Discord's deadline set to ``limit``, and the bot told the same."""
    monkeypatch.setattr(deadline, "DISCORD_DEADLINE", limit)
    client = Table()
    async with one_channel(client, callback_deadline=limit, strict=False) as (fd, channel, member):
        yield fd, channel, member, client


@pytest_asyncio.fixture
async def table(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Any, ...]]:
    async with running(monkeypatch, FAKE_DEADLINE) as world:
        yield world


async def test_a_quick_answer_is_sent_as_it_is(table) -> None:
    fd, channel, member, _ = table
    r = await fd.invoke(channel, member, "quick")
    assert not r.deferred and r.content == "quick"


@pytest.mark.parametrize("secret", [False, True])
async def test_a_slow_answer_is_acknowledged_first_and_keeps_its_visibility(table, secret: bool) -> None:
    fd, channel, member, _ = table
    r = await fd.invoke(channel, member, "slow", secret=secret)
    await r.wait_followups(1)
    shown = [m for m in r.messages if not m.deleted]  # a public "thinking…" makes way for a private answer
    assert r.deferred and [(m.content, m.ephemeral) for m in shown] == [("slow", secret), ("and more", False)]
    assert not fd.problems


async def test_a_command_queued_behind_a_slow_one_is_deferred_then_answered(table) -> None:
    fd, channel, member, client = table
    client.hold_for = 0.5
    results = await asyncio.gather(*(fd.invoke(channel, member, "change", n=n) for n in range(4)))
    assert [r.content for r in results] == [f"changed {n}" for n in range(4)]
    assert all(r.deferred for r in results[1:])  # each waited 0.5 s and more for the lock, then 0.5 s in it
    assert client.applied == [0, 1, 2, 3] and not fd.problems


async def test_no_change_is_made_that_cannot_be_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    async with running(monkeypatch, 0.05) as (fd, channel, member, client):  # a tiny deadline
        client.busy_for = 0.06  # longer than the deadline: the loop cannot acknowledge meanwhile
        results = await asyncio.gather(
            *(fd.invoke(channel, member, "change", n=n, timeout=10) for n in range(12)),
            return_exceptions=True,
        )
        await asyncio.sleep(0.5)  # late answers still arrive (and are rejected)
    told = {r.content for r in results if not isinstance(r, BaseException)}
    assert told == {f"changed {n}" for n in client.applied}  # each change was told; nothing else was made
    assert len(client.applied) < 12  # the queue outlasted Discord's patience for some


async def test_a_slow_button_is_acknowledged_then_edits_its_message(table) -> None:
    fd, channel, member, _ = table
    posted = await fd.invoke(channel, member, "button")
    r = await fd.click(posted, member, "slow:1")
    assert r.type == 6  # a deferred update: no "thinking" message
    await r.interaction.wait_for(lambda: posted.response.content == "clicked 1", 5, "the edit")
    assert not fd.problems


def _live_interactions() -> int:
    return sum(isinstance(o, discord.Interaction) for o in gc.get_objects())


async def _until_freed(before: int) -> int:
    """The live interactions once the handlers have ended (bounded: at most 2 s)."""
    for _ in range(40):
        if _live_interactions() <= before:
            break
        await asyncio.sleep(0.05)
    return _live_interactions()


@pytest.mark.parametrize("command", ["quick", "slow", "button"])
async def test_an_answered_interaction_is_freed_when_its_handler_ends(table, command: str) -> None:
    """Not left in a reference cycle (the interaction and its response) for the garbage collector: with the
    collector off, every interaction answered is gone once its handler has ended, a slow one's too."""
    fd, channel, member, _ = table
    gc.collect()
    gc.disable()
    try:
        before = _live_interactions()
        r = await fd.invoke(channel, member, command)
        if command == "slow":
            await r.wait_followups(1)
            assert r.deferred
        if command == "button":
            clicked = await fd.click(r, member, "slow:1")
            await clicked.interaction.wait_for(lambda: r.response.content == "clicked 1", 5, "the edit")
        assert await _until_freed(before) == before
    finally:
        gc.enable()
    assert not fd.problems


def test_an_interactions_age_is_read_from_its_snowflake_and_kept_within_the_deadline() -> None:
    from datetime import UTC, datetime
    from types import SimpleNamespace

    def made(seconds_ago: float) -> Any:
        when = datetime.fromtimestamp(time.time() - seconds_ago, UTC)
        return SimpleNamespace(id=discord.utils.time_snowflake(when))

    assert deadline.age(made(1.25)) == pytest.approx(1.25, abs=0.05)
    assert deadline.age(made(-60)) == 0.0  # Discord's clock ahead of ours
    assert deadline.age(made(60)) == deadline.DISCORD_DEADLINE
