"""Turn reminders on a real encounter: the change path schedules them when a turn starts, the loop sends them
at `after`, `after + repeat`, then follows `then`; ending the turn cancels what is pending. Time comes from
a fake clock; the loop is ticked by hand (no sleeping)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rules.dice import RandomDice
from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import current, make_character, ok, setup_gm
from tests.e2e.test_reminders import Clock, reminder_loop

H = timedelta(hours=1)
T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


async def _fight_until_the_players_turn(fray: Harness, clock: Clock) -> int:
    """A D6 fight: the player's Ayla against a bandit, moved on (by the GM) until it is Ayla's turn."""
    d6 = get_system("d6")
    fray.dice.current = RandomDice(5)
    await setup_gm(fray, "d6")
    await make_character(fray, fray.player, "Ayla", "d6", d6.new_sheet("Ayla"))
    await ok(fray, fray.gm, "encounter start", name="Road")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter add", name="Bandit", template=d6.creature_names()[0], side="bandits")
    await ok(fray, fray.gm, "encounter begin")
    for _ in range(4):  # bounded: two combatants
        read, turn = await current(fray)
        if read.names[turn.actors[0]] == "Ayla":
            return read.encounter.id
        await ok(fray, fray.gm, "gm next")
    raise AssertionError("Ayla never got a turn")


def _reminders(fray: Harness) -> list:
    return [m for m in fray.fd.channel_messages(fray.channel) if "Reminder" in m.content]


async def test_reminders_follow_the_policy_then_tell_the_gms(fray: Harness) -> None:
    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await fray.make_gm_role()
    await ok(fray, fray.owner, "gm reminders", after="12h", repeat="6h", max=2, then="gm")
    eid = await _fight_until_the_players_turn(fray, clock)
    loop = reminder_loop(bot)

    clock.now = T0 + 12 * H - timedelta(minutes=1)
    assert (await loop.tick()).sent == 0, "nothing before `after`"
    clock.now = T0 + 12 * H
    assert (await loop.tick()).sent == 1
    await fray.fd.flush()
    [first] = _reminders(fray)
    assert set(fray.fd.pings(first)) == {fray.player.id} and "Ayla" in first.content
    assert first.custom_ids[0].startswith(f"fray:end-turn:{eid}:")

    clock.now = T0 + 18 * H
    await loop.tick()
    clock.now = T0 + 24 * H  # max (2) reached: the GMs are told, once
    await loop.tick()
    clock.now = T0 + 30 * H
    assert (await loop.tick()).sent == 0
    await fray.fd.flush()
    assert len(_reminders(fray)) == 2
    gm_step = fray.fd.channel_messages(fray.channel)[-1]
    pings = fray.fd.pings(gm_step)
    assert pings.roles == {fray.gm_role.id} and not pings.everyone and fray.player.id not in pings


async def test_ending_the_turn_cancels_what_is_pending(fray: Harness) -> None:
    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await ok(fray, fray.owner, "gm reminders", after="1h", repeat="1h")
    await _fight_until_the_players_turn(fray, clock)
    read, _ = await current(fray)
    assert read.encounter.reminder_due_at == T0 + H
    await ok(fray, fray.player, "turn end")  # the bandit's turn: an NPC reminds nobody
    read, _ = await current(fray)
    assert read.encounter.reminder_due_at is None
    clock.now = T0 + 5 * H
    assert (await reminder_loop(bot).tick()).sent == 0
    assert _reminders(fray) == []


async def test_then_skip_ends_the_turn_and_announces_the_next(fray: Harness) -> None:
    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await ok(fray, fray.owner, "gm reminders", after="2h", repeat="2h", max=1, then="skip")
    await _fight_until_the_players_turn(fray, clock)
    _, before = await current(fray)
    loop = reminder_loop(bot)
    clock.now = T0 + 2 * H
    await loop.tick()
    clock.now = T0 + 4 * H  # one reminder was the max: the turn is skipped
    await loop.tick()
    await fray.fd.flush()
    read, after = await current(fray)
    assert after.key != before.key and read.names[after.actors[0]] == "Bandit"
    assert len(_reminders(fray)) == 1
    assert any("Bandit" in m.content for m in fray.fd.channel_messages(fray.channel)[-2:])
    r = await fray.fd.invoke(fray.channel, fray.owner, "encounter log", count=1)
    assert "turn was skipped (no answer to the reminders)" in r.embeds[0]["description"]


async def test_acting_in_ones_own_turn_cancels_the_pending_reminder(fray: Harness) -> None:
    from bot.encounters import edit_encounter
    from rules.encounter import Action
    from tests.e2e.test_encounters import here

    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await _fight_until_the_players_turn(fray, clock)
    read, turn = await current(fray)
    assert read.encounter.reminder_due_at is not None
    # the GM changing something does not cancel the player's reminder …
    async with edit_encounter(bot, here(fray), fray.gm.id, "gm condition") as edit:
        bandit = edit.combatant("Bandit")
        edit.apply(edit.system.gm_condition(edit.state, str(bandit.id), "prone", False, edit.house))
    read, _ = await current(fray)
    assert read.encounter.reminder_due_at is not None
    # … the player declaring an action in its own turn (the turn does not pass) does.
    async with edit_encounter(bot, here(fray), fray.player.id, "defend") as edit:
        action = Action("defend", actor=turn.actors[0], stance="dodge")
        edit.apply(edit.system.act(edit.state, action, edit.dice, edit.house))
    read, after = await current(fray)
    assert after.key == turn.key and read.encounter.reminder_due_at is None
