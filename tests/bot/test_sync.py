"""Command sync happens only when the payload changed for that scope (or when forced)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import discord
import pytest
from discord import app_commands

from bot.models import CommandSync
from bot.store import Store
from bot.sync import command_payload, payload_hash, sync_commands


class CountingTree(app_commands.CommandTree):
    def __init__(self) -> None:
        super().__init__(discord.Client(intents=discord.Intents.none()))
        self.synced: list[int | None] = []
        self.fail = False

    async def sync(self, *, guild: discord.abc.Snowflake | None = None) -> list:  # type: ignore[override]
        if self.fail:
            raise discord.HTTPException(_Response(), "boom")
        self.synced.append(None if guild is None else guild.id)
        return []


class _Response:
    status = 500
    reason = "Internal Server Error"


def make_tree(description: str = "Roll dice") -> CountingTree:
    tree = CountingTree()

    @tree.command(name="roll", description=description)
    async def roll(interaction: discord.Interaction, expression: str) -> None: ...

    return tree


def clock() -> datetime:
    return datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def store(sessions) -> Store:
    return Store(sessions, clock)


async def test_unchanged_commands_do_not_sync_again(sessions, store: Store) -> None:
    first = await sync_commands(make_tree(), store, application_id=1, dev_guild_id=None, clock=clock)
    assert first.synced and first.scope == "global"
    tree = make_tree()
    again = await sync_commands(tree, store, application_id=1, dev_guild_id=None, clock=clock)
    assert not again.synced and tree.synced == []
    async with sessions() as session:
        row = await session.get(CommandSync, "global")
        assert row.payload_hash == first.payload_hash and row.synced_at == clock()


async def test_changed_commands_force_and_new_application_sync(sessions, store: Store) -> None:
    await sync_commands(make_tree(), store, application_id=1, dev_guild_id=None, clock=clock)
    changed = make_tree("Roll some dice")
    assert (await sync_commands(changed, store, application_id=1, dev_guild_id=None, clock=clock)).synced
    forced = make_tree("Roll some dice")
    assert (
        await sync_commands(forced, store, application_id=1, dev_guild_id=None, clock=clock, force=True)
    ).synced
    assert forced.synced == [None]
    other_app = make_tree("Roll some dice")
    assert (await sync_commands(other_app, store, application_id=2, dev_guild_id=None, clock=clock)).synced


async def test_dev_guild_scope_copies_global_commands(sessions, store: Store) -> None:
    tree = make_tree()
    result = await sync_commands(tree, store, application_id=1, dev_guild_id=42, clock=clock)
    assert result.synced and result.scope == "42" and tree.synced == [42]
    assert [c["name"] for c in command_payload(tree, discord.Object(42))] == ["roll"]
    again = make_tree()
    assert not (await sync_commands(again, store, application_id=1, dev_guild_id=42, clock=clock)).synced
    # the global scope is separate
    assert (await sync_commands(make_tree(), store, application_id=1, dev_guild_id=None, clock=clock)).synced


async def test_a_failed_sync_stores_nothing(sessions, store: Store) -> None:
    tree = make_tree()
    tree.fail = True
    with pytest.raises(discord.HTTPException):
        await sync_commands(tree, store, application_id=1, dev_guild_id=None, clock=clock)
    async with sessions() as session:
        assert await session.get(CommandSync, "global") is None


def test_the_hash_ignores_key_order() -> None:
    assert payload_hash([{"a": 1, "b": 2}], 1) == payload_hash([{"b": 2, "a": 1}], 1)
    assert payload_hash([{"a": 1}], 1) != payload_hash([{"a": 2}], 1)


class MeetingTree(CountingTree):
    """Its sync returns only once every tree of the meeting has reached it (both saw no row yet)."""

    def __init__(self, meeting: asyncio.Barrier, description: str) -> None:
        super().__init__()
        self.meeting = meeting

        @self.command(name="roll", description=description)
        async def roll(interaction: discord.Interaction, expression: str) -> None: ...

    async def sync(self, *, guild: discord.abc.Snowflake | None = None) -> list:  # type: ignore[override]
        await asyncio.wait_for(self.meeting.wait(), timeout=10)
        return await super().sync(guild=guild)


async def test_two_processes_syncing_at_once_both_record_it(sessions, store: Store) -> None:
    """Two bot processes starting together both find no row, both sync and both write it; neither fails."""
    meeting = asyncio.Barrier(2)
    results = await asyncio.gather(
        *(
            sync_commands(
                MeetingTree(meeting, description), store, application_id=1, dev_guild_id=None, clock=clock
            )
            for description in ("Roll dice", "Roll some dice")
        )
    )
    assert all(result.synced for result in results)
    async with sessions() as session:
        row = await session.get(CommandSync, "global")
    assert row is not None and row.payload_hash in {result.payload_hash for result in results}
