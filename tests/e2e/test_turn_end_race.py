"""`/turn end` ends only a turn that had begun when the command was sent: members sending it at once must not
end the turns their own commands started (the End turn button is safe: it carries its turn's token)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from bot.models import EventLog
from rules.dice import RandomDice
from rules.systems.registry import system_names
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import current, make_character, ok, setup_gm

REFUSAL = "began after you sent"


class ShiftedClock:
    """The bot's clock: real time plus ``shift`` (snowflakes are made from real time)."""

    def __init__(self) -> None:
        self.shift = timedelta(0)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.shift


async def _two_of_the_players(fray: Harness, system: str) -> None:
    fray.dice.current = RandomDice(3)
    await setup_gm(fray, system)
    for name in ("Ayla", "Bree"):
        await make_character(fray, fray.player, name, system)
    await ok(fray, fray.gm, "encounter start", name="Sparring")
    await ok(fray, fray.player, "encounter join", character="Ayla")
    await ok(fray, fray.player, "encounter join", character="Bree", side="rivals")
    await ok(fray, fray.gm, "encounter begin")


async def _turns_ended(fray: Harness) -> int:
    assert fray.bot is not None
    async with fray.bot.sessions() as session:
        rows = (await session.exec(select(EventLog.command))).scalars().all()
    return sum(1 for c in rows if c == "turn end")


@pytest.mark.parametrize("system", system_names())
async def test_two_turn_ends_sent_at_once_end_one_turn(fray: Harness, system: str) -> None:
    await _two_of_the_players(fray, system)
    _, before = await current(fray)
    results = await asyncio.gather(
        fray.fd.invoke(fray.channel, fray.player, "turn end"),
        fray.fd.invoke(fray.channel, fray.player, "turn end"),
    )
    ended = [r for r in results if not r.ephemeral]
    refused = [r for r in results if r.ephemeral]
    assert len(ended) == 1 and len(refused) == 1, [r.content for r in results]
    assert REFUSAL in refused[0].content and "again" in refused[0].content
    _, after = await current(fray)
    assert after.key != before.key and await _turns_ended(fray) == 1
    r = await ok(fray, fray.player, "turn end")  # sent now, after the turn began: it ends it
    assert "ended the turn" in r.content and await _turns_ended(fray) == 2


async def test_a_turn_that_began_after_the_command_is_not_ended(fray: Harness) -> None:
    clock = ShiftedClock()
    await fray.restart(clock=clock)
    await _two_of_the_players(fray, "d6")
    clock.shift = timedelta(minutes=5)
    await ok(fray, fray.gm, "gm next")  # this turn begins "later" than any command sent now
    read, turn = await current(fray)
    for member, options in ((fray.player, {}), (fray.gm, {"as": read.names[turn.actors[0]]})):
        r = await fray.fd.invoke(fray.channel, member, "turn end", **options)
        assert r.ephemeral and REFUSAL in r.content and read.names[turn.actors[0]] in r.content
    assert (await current(fray))[1].key == turn.key and await _turns_ended(fray) == 0
