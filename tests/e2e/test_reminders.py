"""Turn reminders through the fake Discord: `/gm reminders` show/set/refuse, persistence, and the loop's
messages for an encounter row inserted directly (the encounters feature is not needed for that)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.app import Fray
from bot.models import Combatant, Encounter
from bot.reminder_policy import ReminderPolicy
from bot.reminders import ReminderLoop, schedule_turn
from tests.e2e.conftest import Harness

H = timedelta(hours=1)
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
# At most 64 characters with two 19-digit ids, like every combatant name (PostgreSQL enforces the length).
NASTY = "A @everyone @here <@&{role}> <@{other}>"


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def reminder_loop(bot: Fray) -> ReminderLoop:
    for cog in bot.cogs.values():
        loop = getattr(cog, "reminder_loop", None)
        if loop is not None:
            return loop
    raise AssertionError("no reminder loop is running")


async def show(fray: Harness, channel=None) -> str:
    r = await fray.fd.invoke(channel or fray.channel, fray.owner, "gm reminders")
    assert r.ephemeral
    return r.content


# --- /gm reminders ---------------------------------------------------------------------------------------


async def test_show_the_defaults(fray: Harness) -> None:
    text = await show(fray)
    assert "on *(default)*" in text
    assert "after: `1d`" in text and "repeat: `1d`" in text and "max: `2`" in text and "then: `gm`" in text


async def test_set_and_keep_across_a_restart(fray: Harness) -> None:
    r = await fray.fd.invoke(
        fray.channel, fray.owner, "gm reminders", after="12h", repeat="1d12h", max=3, then="skip"
    )
    assert not r.ephemeral and "saved" in r.content
    assert not fray.fd.pings(r)
    await fray.restart()
    text = await show(fray)
    assert "after: `12h`" in text and "repeat: `1d12h`" in text and "max: `3`" in text
    assert "then: `skip`" in text and "on *(default)*" in text
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm reminders", off=True)
    assert "off" in r.content
    await fray.restart()
    assert "**off**" in await show(fray)


async def test_one_bad_option_refuses_everything(fray: Harness) -> None:
    r = await fray.fd.invoke(
        fray.channel, fray.owner, "gm reminders", after="soon", repeat="31d", max=1, then="nothing"
    )
    assert r.ephemeral and "Nothing was changed" in r.content
    assert "`after`" in r.content and "`repeat`" in r.content and "30 days" in r.content
    text = await show(fray)
    assert "max: `2`" in text and "then: `gm`" in text  # max and then were not saved either
    assert fray.fd.channel_messages(fray.channel) == []


async def test_zero_is_refused(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.owner, "gm reminders", after="0m")
    assert r.ephemeral and "longer than zero" in r.content


async def test_threads_fall_back_to_the_parent(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm reminders", after="6h")
    text = await show(fray, fray.thread)
    assert "after: `6h` *(from the parent channel)*" in text and "thread" in text
    await fray.fd.invoke(fray.thread, fray.owner, "gm reminders", max=0)
    text = await show(fray, fray.thread)
    assert "max: `0`" in text and "after: `6h` *(from the parent channel)*" in text
    assert "max: `2`" in await show(fray)


async def test_players_cannot_change_reminders(fray: Harness) -> None:
    r = await fray.fd.invoke(fray.channel, fray.player, "gm reminders", off=True)
    assert r.ephemeral and "Only a GM" in r.content
    assert "on *(default)*" in await show(fray)


# --- the reminders themselves --------------------------------------------------------------------------------


async def add_turn(bot: Fray, fray: Harness, name: str, *, started: datetime = START) -> int:
    policy = ReminderPolicy(after=12 * H, repeat=6 * H, max_reminders=2, then="gm")
    async with bot.sessions() as session, session.begin():
        enc = Encounter(
            guild_id=fray.guild.id,
            channel_id=fray.channel.id,
            system="d6",
            name="Ambush",
            status="running",
            started_by=fray.owner.id,
            turn_key="r1.t1",
            turn_started_at=started,
            created_at=started,
        )
        session.add(enc)
        await session.flush()
        fighter = Combatant(encounter_id=enc.id, entry=1, name=name, owner_id=fray.player.id, is_pc=True)
        session.add(fighter)
        await session.flush()
        enc.turn_combatant_id = fighter.id
        schedule_turn(enc, policy, started, controlled_by_member=True)
        return enc.id


async def test_a_reminder_pings_only_the_member_whatever_the_name(fray: Harness) -> None:
    await fray.make_gm_role()
    await fray.fd.invoke(fray.channel, fray.owner, "gm reminders", after="12h", repeat="6h")
    clock = Clock(START + 12 * H)
    bot = await fray.restart(clock=clock)
    name = NASTY.format(role=fray.gm_role.id, other=fray.gm.id)
    eid = await add_turn(bot, fray, name)
    before = len(fray.fd.channel_messages(fray.channel))
    report = await reminder_loop(bot).tick()
    assert report.sent == 1
    await fray.fd.flush()
    [message] = fray.fd.channel_messages(fray.channel)[before:]
    pings = fray.fd.pings(message)
    assert set(pings) == {fray.player.id} and not pings.everyone and not pings.here and not pings.roles
    assert "12 hours" in message.content and "Reminder 1 of 2" in message.content
    assert message.custom_ids == [f"fray:end-turn:{eid}:r1.t1", f"fray:status:{eid}"]

    clock.now = START + 24 * H  # the second reminder was due at 18h: sent late, once
    await reminder_loop(bot).tick()
    await reminder_loop(bot).tick()
    clock.now = START + 30 * H  # a full repeat after the late one: tell the GMs
    await reminder_loop(bot).tick()
    await fray.fd.flush()
    second, gm_step = fray.fd.channel_messages(fray.channel)[before + 1 :]
    assert set(fray.fd.pings(second)) == {fray.player.id}
    gm_pings = fray.fd.pings(gm_step)
    assert gm_pings.roles == {fray.gm_role.id} and fray.player.id not in gm_pings and not gm_pings.everyone


async def test_a_restart_sends_an_overdue_reminder_once(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "gm reminders", after="12h", repeat="6h", max=5)
    assert fray.bot is not None
    await add_turn(fray.bot, fray, "Ayla")
    await fray.stop()
    late = Clock(START + 60 * H)  # many slots passed while the bot was down
    await fray.start(clock=late)  # the loop runs once as soon as the bot is ready
    for _ in range(200):
        if fray.fd.channel_messages(fray.channel)[1:]:
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)
    reminders = [m for m in fray.fd.channel_messages(fray.channel) if "Reminder" in m.content]
    assert len(reminders) == 1 and "2 days 12 hours" in reminders[0].content
    await fray.restart(clock=late)  # same moment again: nothing new
    await asyncio.sleep(0.3)
    assert len([m for m in fray.fd.channel_messages(fray.channel) if "Reminder" in m.content]) == 1
