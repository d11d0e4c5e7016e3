"""Never late, never silent: a change that waits (here: on the channel's lock) is acknowledged first and then
answered, its turn announcement and ping included; and no change is made that its member is not told of,
however short Discord's patience."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from sqlalchemy import select

from bot import app
from bot.models import EventLog
from bot.store import channel_key
from cogs import deadline
from rules.dice import RandomDice
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import announcement, end_turn_id, ok, setup_gm


async def _fight(fray: Harness) -> None:
    fray.dice.current = RandomDice(7)
    await setup_gm(fray, "d6")
    await ok(fray, fray.gm, "encounter start", name="Toll bridge")
    await ok(fray, fray.gm, "encounter add", name="Bandit", template="bandit", count=2, side="bandits")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="wolf", side="wolves")
    await ok(fray, fray.gm, "encounter begin")


async def test_changes_queued_behind_a_slow_one_are_deferred_then_answered(fray: Harness) -> None:
    await _fight(fray)
    assert fray.bot is not None
    async with fray.bot.store.lock(channel_key(fray.channel.id)):  # a slow change holds the channel
        damage = asyncio.create_task(
            fray.fd.invoke(fray.channel, fray.gm, "gm damage", target="Bandit 1", amount=1)
        )
        next_turn = asyncio.create_task(fray.fd.invoke(fray.channel, fray.gm, "gm next"))
        await asyncio.sleep(deadline.DISCORD_DEADLINE / 2)
    r, passed = await damage, await next_turn
    assert r.deferred and not r.ephemeral and "Bandit 1" in r.content
    assert passed.deferred and not passed.ephemeral
    assert announcement(passed).custom_ids  # the next turn is announced, with its buttons
    assert not fray.fd.problems


async def test_no_change_is_made_that_its_member_is_not_told_of(
    fray: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _fight(fray)
    gms = [fray.guild.add_member(f"gm-{i}", roles=[fray.gm_role]) for i in range(30)]
    limit = 0.02  # Discord's patience, made tiny (the bot is told the same)
    monkeypatch.setattr(deadline, "DISCORD_DEADLINE", limit)
    fray.fd.callback_deadline = limit
    first = len(fray.fd.interactions)
    posted = len(fray.fd.channel_messages(fray.channel))
    # The process stalls (a slow machine, a long collection) with the commands under way, past the deadline:
    # it bites whatever this machine's speed (without the stall, all thirty may be acknowledged in time).
    asyncio.get_running_loop().call_later(limit / 4, time.sleep, 3 * limit)
    await asyncio.gather(
        *(
            fray.fd.invoke(
                fray.channel, gm, "gm set", target="Bandit 1", field="distance", value=str(i + 1), timeout=20
            )
            for i, gm in enumerate(gms)
        ),
        return_exceptions=True,
    )
    await asyncio.sleep(1.0)  # late answers still arrive (and are rejected)
    records = fray.fd.interactions[first:]
    told = {
        rec.member.id
        for rec in records
        if not rec.problems
        and rec.answered
        and any(not m.ephemeral and not m.deleted for m in [rec.original, *rec.followups] if m is not None)
    }
    # A public answer Discord no longer took as its interaction's (the change was checked young, then the
    # stall) is posted in the channel instead (``deadline.post_in_channel``); each GM set a distance of its
    # own, which tells whose answer it is.
    late = [
        gms[int(value) - 1].id
        for m in fray.fd.channel_messages(fray.channel)[posted:]
        if m.interaction_id is None
        for value in re.findall(r"→ \*\*(\d+)\*\*", m.content)
    ]
    assert not told & set(late) and len(late) == len(set(late))  # told once
    told |= set(late)
    assert fray.bot is not None
    async with fray.bot.sessions() as session:
        applied = (
            (await session.exec(select(EventLog.actor_id).where(EventLog.command == "gm set")))
            .scalars()
            .all()
        )
    assert sorted(applied) == sorted(told)  # each change was told, once; nothing else was made
    assert len(told) < len(gms) and fray.fd.take_problems()  # the deadline did bite
    monkeypatch.setattr(deadline, "DISCORD_DEADLINE", 3.0)
    fray.fd.callback_deadline = 3.0
    r = await ok(fray, gms[0], "gm set", target="Bandit 1", field="distance", value="9")
    assert "Bandit 1" in r.content  # with time to answer, the change is made and told


async def _admitted(bot, n: int) -> None:
    """Until ``n`` interactions are being answered (bounded)."""
    for _ in range(200):
        if len(bot._finishing) >= n:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{len(bot._finishing)} interactions being answered, not {n}")


async def test_a_stop_finishes_the_answers_under_way_and_refuses_new_ones(fray: Harness) -> None:
    fray.dice.current = RandomDice(7)
    await setup_gm(fray, "d6")
    await ok(fray, fray.gm, "encounter start", name="Toll bridge")
    await ok(fray, fray.gm, "encounter add", name="Bandit", template="bandit", count=2, side="bandits")
    begun = await ok(fray, fray.gm, "encounter begin")
    bot = fray.bot
    assert bot is not None
    async with bot.store.lock(channel_key(fray.channel.id)):  # both commands are under way, waiting
        damage = asyncio.create_task(
            fray.fd.invoke(fray.channel, fray.gm, "gm damage", target="Bandit 1", amount=1)
        )
        next_turn = asyncio.create_task(fray.fd.invoke(fray.channel, fray.gm, "gm next"))
        await _admitted(bot, 2)
        closing = asyncio.create_task(bot.close())
        for _ in range(100):  # bounded: until the stop has begun
            if bot.stopping:
                break
            await asyncio.sleep(0.01)
        late = await fray.fd.invoke(fray.channel, fray.gm, "gm damage", target="Bandit 2", amount=5)
        click = await fray.fd.click(announcement(begun), fray.gm, end_turn_id(announcement(begun)))
        assert not closing.done()  # the stop waits for the two under way
    r, passed = await damage, await next_turn
    await asyncio.wait_for(closing, 10)
    assert not r.ephemeral and "Bandit 1" in r.content
    assert not passed.ephemeral and announcement(passed).custom_ids  # the next turn is announced
    for refusal in (late, click):
        assert (
            refusal.ephemeral and "restarting" in refusal.content and "nothing was changed" in refusal.content
        )
    async with bot.sessions() as session:
        logged = (await session.exec(select(EventLog.command).order_by(EventLog.seq))).scalars().all()
    assert logged[-2:] == ["gm damage", "gm next"]  # the refused ones changed nothing
    assert not fray.fd.problems


async def test_a_stop_waits_for_a_stuck_answer_only_so_long(
    fray: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(app, "FINISH_WITHIN", 0.1)
    bot = fray.bot
    assert bot is not None
    stuck = asyncio.create_task(asyncio.sleep(30))
    bot.finish_before_closing(stuck)
    await asyncio.wait_for(bot.close(), 5)
    assert bot.is_closed() and not stuck.done()
    assert "answers still under way: 1" in caplog.text
    stuck.cancel()
