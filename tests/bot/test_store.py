"""The change path: channel settings, thread inheritance, GM role, rolls with GM-queued dice, secret rolls."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import event

from bot import store as store_module
from bot.models import ChannelConfig, GuildConfig
from bot.rolling import d6_rules, roll_in_channel
from bot.store import Store, Where
from rules.dice import QueuedDiceMismatch, ScriptedDice
from rules.notation import NotationError

CHANNEL = Where(guild_id=1, channel_id=10)
THREAD = Where(guild_id=1, channel_id=11, parent_id=10)


def clock() -> datetime:
    return datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)


async def test_threads_inherit_the_parent_system(store: Store) -> None:
    assert (await store.channel_view(CHANNEL)).system is None
    await store.set_system(CHANNEL, "d6")
    view = await store.channel_view(THREAD)
    assert view.system == "d6" and view.inherited_system
    await store.set_system(THREAD, "nyra")
    assert (await store.channel_view(THREAD)).system == "nyra"
    assert (await store.channel_view(CHANNEL)).system == "d6"
    # the thread remembers its parent even when a later interaction does not carry it
    await store.set_system(THREAD, "nyra")
    assert (await store.channel_view(Where(1, 11))).system == "nyra"


async def test_versions_count_changes(store: Store) -> None:
    await store.set_system(CHANNEL, "d6")
    await store.set_system(CHANNEL, "nyra")
    async with store.sessions() as session:
        assert (await session.get(ChannelConfig, 10)).version == 2


async def test_gm_role(store: Store) -> None:
    assert await store.gm_role_id(1) is None
    await store.set_gm_role(1, 99)
    await store.set_gm_role(1, 98)
    assert await store.gm_role_id(1) == 98


def guild_reads(store: Store) -> list[str]:
    seen: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        if "guild_config" in statement and statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(store.sessions.kw["bind"].sync_engine, "before_cursor_execute", record)
    return seen


async def test_the_gm_role_is_read_once_and_forgotten_when_set(store: Store) -> None:
    reads = guild_reads(store)
    await store.set_gm_role(1, 99)
    assert [await store.gm_role_id(1) for _ in range(5)] == [99] * 5
    assert len(reads) == 2  # the set's own read, then one for the five asks
    await store.set_gm_role(1, 98)
    assert await store.gm_role_id(1) == 98


async def test_a_gm_role_set_elsewhere_is_seen_once_the_kept_one_expires(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await store.gm_role_id(1) is None
    async with store.sessions() as session:  # another process sets it
        session.add(GuildConfig(guild_id=1, gm_role_id=77))
        await session.commit()
    assert await store.gm_role_id(1) is None  # still the kept one
    monkeypatch.setattr(store_module, "GM_ROLE_KEPT", 0.0)
    assert await store.gm_role_id(1) == 77


async def set_channel(store: Store, **values) -> None:
    async with store.edit_channel(CHANNEL) as edit:
        for name, value in values.items():
            setattr(edit.config, name, value)


async def test_a_roll_uses_queued_dice_first_and_saves_the_rest(store: Store) -> None:
    await set_channel(store, dice_queue=[6, 5, 4])
    with ScriptedDice([(6, 3)]) as dice:
        outcome = await roll_in_channel(store, CHANNEL, "2d6+3", dice, user_id=5)
        outcome2 = await roll_in_channel(store, CHANNEL, "2d6", dice, user_id=5)
    assert outcome.result.total == 14 and [d.origin for d in outcome.result.dice] == ["gm", "gm"]
    assert [d.origin for d in outcome2.result.dice] == ["gm", "script"] and outcome2.result.total == 7
    assert "ᴳ" in outcome.described
    async with store.sessions() as session:
        assert (await session.get(ChannelConfig, 10)).dice_queue == []
    assert outcome.secret_id is None


async def test_a_queued_die_that_does_not_fit_changes_nothing(store: Store) -> None:
    await set_channel(store, dice_queue=[9])
    with pytest.raises(QueuedDiceMismatch):
        await roll_in_channel(store, CHANNEL, "1d6", ScriptedDice([]), user_id=5)
    async with store.sessions() as session:
        assert (await session.get(ChannelConfig, 10)).dice_queue == [9]


async def test_bad_notation_is_refused_before_any_die(store: Store) -> None:
    for text in ("", "((((", "500d6", "1d0", "1d1001", "1" * 201):
        with pytest.raises(NotationError):
            await roll_in_channel(store, CHANNEL, text, ScriptedDice([]), user_id=5)


async def test_d6_house_rules_apply(store: Store) -> None:
    await set_channel(store, house_rules={"d6": {"explode": "full", "wild_one": "drop"}})
    # 2D: a normal die 4, the wild die 6 explodes into 6 then 2: full → 4 + 6 + 8
    with ScriptedDice([4, 6, 6, 2]) as dice:
        outcome = await roll_in_channel(store, CHANNEL, "2D", dice, user_id=5)
    assert outcome.result.total == 18
    assert d6_rules({}) == ("halved", "complication")
    assert d6_rules({"d6": {"explode": "weird"}}) == ("halved", "complication")


async def test_a_secret_roll_is_stored(store: Store) -> None:
    with ScriptedDice([2, 3]) as dice:
        outcome = await roll_in_channel(store, CHANNEL, "2d6", dice, user_id=5, secret=True)
    row = await store.secret_roll(outcome.secret_id)
    assert row is not None and row.user_id == 5 and row.result_text == outcome.described
    assert row.created_at == clock() and "= 5" in row.result_text


async def test_concurrent_rolls_never_use_a_queued_die_twice(store: Store) -> None:
    import asyncio

    await set_channel(store, dice_queue=[1, 2, 3])
    outcomes = await asyncio.gather(
        *(roll_in_channel(store, CHANNEL, "1d6", ScriptedDice([]), user_id=n) for n in range(3))
    )
    assert sorted(o.result.total for o in outcomes) == [1, 2, 3]
    async with store.sessions() as session:
        row = await session.get(ChannelConfig, 10)
        assert row.dice_queue == [] and row.version == 4


async def test_a_plain_roll_writes_nothing(store: Store) -> None:
    with ScriptedDice([(6, 2), (6, 5)]) as dice:
        outcome = await roll_in_channel(store, CHANNEL, "2d6", dice, user_id=5)
    assert outcome.result.total == 7
    async with store.sessions() as session:
        assert await session.get(ChannelConfig, 10) is None  # no channel row made for it


async def test_gm_commands_arriving_together_share_one_read_of_the_role(store: Store) -> None:
    await store.set_gm_role(1, 99)
    reads = guild_reads(store)
    assert await asyncio.gather(*(store.gm_role_id(1) for _ in range(50))) == [99] * 50
    assert len(reads) == 1


async def test_a_role_set_during_a_read_is_not_overwritten_by_that_read(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store.set_gm_role(1, 99)
    store._gm_roles.clear()
    read, release = asyncio.Event(), asyncio.Event()
    real_select = store_module.lean.select

    async def slow_select(*args, **kwargs):
        rows = await real_select(*args, **kwargs)
        read.set()
        await asyncio.wait_for(release.wait(), 5)
        return rows

    monkeypatch.setattr(store_module.lean, "select", slow_select)
    reading = asyncio.ensure_future(store.gm_role_id(1))
    await asyncio.wait_for(read.wait(), 5)  # it has read 99 …
    await store.set_gm_role(1, 98)  # … and the role changes before it is kept
    release.set()
    assert await reading == 99
    monkeypatch.setattr(store_module.lean, "select", real_select)
    assert await store.gm_role_id(1) == 98  # the stale read kept nothing


async def test_a_failed_read_of_the_role_fails_every_waiter_and_the_next_ask_reads_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = store.sessions
    monkeypatch.setattr(store, "sessions", lambda: (_ for _ in ()).throw(OSError("disk gone")))
    results = await asyncio.gather(*(store.gm_role_id(1) for _ in range(3)), return_exceptions=True)
    assert all(isinstance(r, OSError) for r in results)
    monkeypatch.setattr(store, "sessions", real)
    assert await store.gm_role_id(1) is None
