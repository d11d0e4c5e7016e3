"""A fake Discord with one server, one channel and one member, running a small test bot."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.playground.loopback import FakeChannel, FakeDiscord, FakeMember


@contextlib.asynccontextmanager
async def one_channel(
    client: discord.Client, **fake_options: Any
) -> AsyncIterator[tuple[FakeDiscord, FakeChannel, FakeMember]]:
    """``client`` logged in to a fake (``FakeDiscord(**fake_options)``) with a server "Table", its channel
    "combat" and a member "alice"."""
    async with FakeDiscord(**fake_options) as fd:
        guild = fd.add_guild("Table")
        channel = guild.add_channel("combat")
        member = guild.add_member("alice")
        async with fd.run_bot(client):
            yield fd, channel, member
