"""Never late, never silent: a change that waits (here: on the channel's lock) is acknowledged first and then
answered, its turn announcement and ping included; and no change is made that its member is not told of,
however short Discord's patience."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from bot.models import EventLog
from bot.store import channel_key
from cogs import deadline
from rules.dice import RandomDice
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import announcement, ok, setup_gm


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
