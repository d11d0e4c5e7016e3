"""A plain answer (``cogs.plain_answer``) goes out without asking Discord for the message back, and reads
exactly as discord.py's ``send_message`` would have posted it; an answer with a view still goes the way
discord.py keeps its view; through ``cogs.deadline`` every quick plain answer takes the plain way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands

from cogs import deadline
from cogs.plain_answer import is_plain, send_plain
from tests.one_channel import one_channel

WITHOUT = "callbacks_without_response"


class Count(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="More", custom_id="more")
    async def more(self, interaction: discord.Interaction, _: discord.ui.Button) -> None:
        await interaction.response.send_message("counted", ephemeral=True)


class Table(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.seen: list[Any] = []

        @self.tree.command(name="plain", description="a plain answer, then a followup")
        async def plain(interaction: discord.Interaction, secret: bool = False) -> None:
            embed = discord.Embed(title="Ford", description="Vale takes 3")
            mentions = discord.AllowedMentions(users=[interaction.user], everyone=False, roles=False)
            kwargs = {"embed": embed, "ephemeral": secret, "allowed_mentions": mentions}
            assert is_plain(kwargs)
            await send_plain(interaction.response, f"{interaction.user.mention}: your turn", kwargs)
            self.seen.append(interaction.response.is_done())
            try:
                await send_plain(interaction.response, "twice", {})
            except discord.InteractionResponded:
                self.seen.append("refused twice")
            await interaction.followup.send("and more")

        @self.tree.command(name="counter", description="an answer with a view")
        async def counter(interaction: discord.Interaction) -> None:
            self.seen.append(is_plain({"view": None}))
            await interaction.response.send_message("count", view=Count())

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest_asyncio.fixture
async def table() -> AsyncIterator[tuple[Any, ...]]:
    client = Table()
    async with one_channel(client, strict=True) as (fd, channel, member):
        yield fd, channel, member, client


@pytest.mark.parametrize("secret", [False, True])
async def test_a_plain_answer_reads_as_asked_and_counts_as_the_answer(table, secret: bool) -> None:
    fd, channel, member, client = table
    r = await fd.invoke(channel, member, "plain", secret=secret)
    await r.wait_followups(1)
    assert fd.stats[WITHOUT] == 1 and not r.deferred
    assert r.content == f"<@{member.id}>: your turn" and r.ephemeral is secret
    assert r.embeds[0]["title"] == "Ford" and r.embeds[0]["description"] == "Vale takes 3"
    assert set(fd.pings(r)) == {member.id}
    assert [m.content for m in r.messages] == [r.content, "and more"]
    assert client.seen == [True, "refused twice"]
    fd.assert_no_problems()


async def test_an_answer_with_a_view_keeps_discord_pys_way_and_its_buttons_work(table) -> None:
    fd, channel, member, client = table
    r = await fd.invoke(channel, member, "counter")
    assert fd.stats[WITHOUT] == 0 and client.seen == [False]
    clicked = await fd.click(r, member, "more")
    assert clicked.content == "counted"
    fd.assert_no_problems()


async def test_a_quick_answer_through_the_deadline_takes_the_plain_way(monkeypatch) -> None:
    calls: list[dict[str, Any]] = []

    async def counted(response: Any, content: Any, kwargs: dict[str, Any]) -> None:
        calls.append(kwargs)
        await send_plain(response, content, kwargs)

    monkeypatch.setattr(deadline, "send_plain", counted)
    client = discord.Client(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)
    tree = app_commands.CommandTree(client)

    @tree.command(name="quick", description="answers at once")
    async def quick(interaction: discord.Interaction) -> None:
        deadline.keep_deadline(interaction)
        await interaction.response.send_message("quick", ephemeral=True)

    client.setup_hook = tree.sync  # type: ignore[method-assign]
    async with one_channel(client, strict=True) as (fd, channel, member):
        r = await fd.invoke(channel, member, "quick")
    assert r.content == "quick" and r.ephemeral and calls == [{"ephemeral": True}]
    assert fd.stats[WITHOUT] == 1
