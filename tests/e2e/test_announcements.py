"""An old turn announcement stops offering its End turn button and its "Now: …" hint: each new announcement
of an encounter (after a command, or the reminder loop's skip) edits the one before it down to its Status
button and its news, once. After a restart, the first announcement of an encounter looks back through the
channel for those posted before it."""

from __future__ import annotations

from bot.playground.loopback import FakeMessage
from rules.dice import RandomDice
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import announcement, ok, setup_gm
from tests.e2e.test_reminder_flow import T0, H, _fight_until_the_players_turn
from tests.e2e.test_reminders import Clock, reminder_loop

END = "fray:end-turn:"


def ends(message: FakeMessage) -> bool:
    return any(c.startswith(END) for c in message.custom_ids)


def announcements(fray: Harness) -> list[FakeMessage]:
    return [m for m in fray.fd.channel_messages(fray.channel) if m.content.startswith("🔔")]


async def wolves_at_the_ford(fray: Harness, count: int) -> FakeMessage:
    """A running D6 fight against ``count`` wolves; its first turn announcement."""
    fray.dice.current = RandomDice(3)
    await setup_gm(fray, "d6")
    await ok(fray, fray.gm, "encounter start", name="Ford")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="wolf", count=count, side="wolves")
    return announcement(await ok(fray, fray.gm, "encounter begin"))


async def test_after_two_turn_passes_only_the_latest_announcement_offers_end_turn(fray: Harness) -> None:
    first = await wolves_at_the_ford(fray, 3)
    assert ends(first)
    second = announcement(await ok(fray, fray.gm, "gm next"))
    edits = len(first.history)
    third = announcement(await ok(fray, fray.gm, "gm next"))
    assert len(first.history) == edits and len(second.history) == 1  # one edit per passing, each once
    assert not ends(first) and not ends(second) and ends(third)
    assert [m.id for m in announcements(fray) if ends(m)] == [third.id]
    assert all(any(c.startswith("fray:status:") for c in m.custom_ids) for m in (first, second, third))
    sent = first.history[0]["content"]
    hint = next(line for line in sent.splitlines() if line.startswith("Now:"))
    assert first.content == sent.replace(f"\n{hint}", "") and "Wolf" in first.content  # only the hint goes
    assert "Now:" not in second.content and hint in third.content


async def test_the_reminder_loops_skip_retires_the_announcement_it_replaces(fray: Harness) -> None:
    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await ok(fray, fray.owner, "gm reminders", after="2h", repeat="2h", max=1, then="skip")
    await _fight_until_the_players_turn(fray, clock)
    before = announcements(fray)[-1]
    assert ends(before) and "Ayla" in before.content
    loop = reminder_loop(bot)
    clock.now = T0 + 2 * H
    await loop.tick()
    clock.now = T0 + 4 * H  # the turn is skipped: the loop announces the Bandit's
    await loop.tick()
    await fray.fd.flush()
    latest = announcements(fray)[-1]
    assert latest.id != before.id and "Bandit" in latest.content and ends(latest)
    assert not ends(before)


async def test_an_announcement_that_cannot_be_edited_does_not_fail_the_turn_passing(fray: Harness) -> None:
    first = await wolves_at_the_ford(fray, 2)
    await fray.fd.delete_message(first)  # the edit meets a 404
    r = await ok(fray, fray.gm, "gm next")
    assert ends(announcement(r)) and "turn" in r.content


async def test_ending_the_encounter_retires_its_last_announcement(fray: Harness) -> None:
    first = await wolves_at_the_ford(fray, 2)
    latest = announcement(await ok(fray, fray.gm, "gm next"))
    assert ends(latest)
    await ok(fray, fray.gm, "encounter end")
    await fray.fd.flush()
    assert [m.id for m in announcements(fray) if ends(m)] == []
    assert any(c.startswith("fray:status:") for c in latest.custom_ids) and not ends(first)
    assert "Now:" not in latest.content and "Wolf" in latest.content


async def test_a_reminders_end_turn_goes_once_its_turn_has_passed(fray: Harness) -> None:
    clock = Clock(T0)
    bot = await fray.restart(clock=clock)
    await ok(fray, fray.owner, "gm reminders", after="2h", repeat="2h", max=1, then="nothing")
    await _fight_until_the_players_turn(fray, clock)
    clock.now = T0 + 2 * H
    await reminder_loop(bot).tick()
    await fray.fd.flush()
    (reminder,) = [m for m in fray.fd.channel_messages(fray.channel) if "Reminder" in m.content]
    assert ends(reminder)
    await ok(fray, fray.gm, "gm next")
    await fray.fd.flush()
    assert not ends(reminder) and any(c.startswith("fray:status:") for c in reminder.custom_ids)
    assert [m.id for m in announcements(fray) if ends(m)] == [announcements(fray)[-1].id]


async def test_after_a_restart_the_next_announcement_retires_the_ones_from_before(fray: Harness) -> None:
    first = await wolves_at_the_ford(fray, 3)
    second = announcement(await ok(fray, fray.gm, "gm next"))
    edited_before = len(first.history)
    await fray.restart()  # the new process remembers no announcement
    third = announcement(await ok(fray, fray.gm, "gm next"))
    await fray.fd.flush()
    assert [m.id for m in announcements(fray) if ends(m)] == [third.id]
    assert "Now:" not in second.content and "Wolf" in second.content and "Now:" in third.content
    assert any(c.startswith("fray:status:") for c in second.custom_ids)
    assert len(first.history) == edited_before  # already passed: not edited again
    fourth = announcement(await ok(fray, fray.gm, "gm next"))  # remembered again: one edit, no search
    await fray.fd.flush()
    assert [m.id for m in announcements(fray) if ends(m)] == [fourth.id] and len(second.history) == 1


async def test_ending_the_encounter_after_a_restart_retires_its_last_announcement(fray: Harness) -> None:
    await wolves_at_the_ford(fray, 2)
    latest = announcement(await ok(fray, fray.gm, "gm next"))
    await fray.restart()
    await ok(fray, fray.gm, "encounter end")
    await fray.fd.flush()
    assert [m.id for m in announcements(fray) if ends(m)] == []
    assert "Now:" not in latest.content and "Wolf" in latest.content


def _history_reads(fray: Harness) -> int:
    return sum(1 for method, path in fray.fd.requests if method == "GET" and path.endswith("/messages"))


async def test_a_fight_opened_since_the_start_searches_no_channel_history(fray: Harness) -> None:
    reads = _history_reads(fray)
    first = await wolves_at_the_ford(fray, 2)
    await ok(fray, fray.gm, "gm next")
    await fray.fd.flush()
    assert not ends(first) and _history_reads(fray) == reads  # retired from memory, nothing searched
