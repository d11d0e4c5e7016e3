"""A change's read of a version this process knows: a probe of the joined rows' versions, the rest kept
(``bot.encounter_rows.ReadCache``). Whatever another process or another path wrote in between is read again:
the channel's settings, its parent's, the encounter's columns written without a version."""

from __future__ import annotations

from typing import Any

import pytest

from bot.encounter_reads import OPEN, load_encounter
from bot.encounter_rows import read_for_change
from bot.encounters import edit_encounter, set_tracker_message, start_encounter
from bot.models import Encounter
from bot.parsed_states import parsed_states
from bot.store import Store, Where, channel_key, compare_and_set
from rules.systems.registry import get_system
from tests.bot.test_encounter_store import GM, HERE, THREAD, FakeBot, setup_fight
from tests.bot.test_encounter_store import bot as bot  # the fixture
from tests.bot.test_lean_change import ACROSS_PROCESSES, _condition, statements, what


def another_process(fake: FakeBot) -> FakeBot:
    """The same database through a store of its own: nothing it writes reaches this process's caches."""
    return FakeBot(Store(fake.store.sessions, fake.clock), fake.clock)


async def seen_by_a_change(fake: FakeBot, where: Where = HERE) -> dict[str, Any]:
    async with edit_encounter(fake, where, GM, "gm note") as edit:
        edit.summary = "looked"
        return {
            "dice": list(edit.dice.remaining),
            "rules": dict(edit.view.rules_for(edit.encounter.system)),
            "tracker_message_id": edit.encounter.tracker_message_id,
            "reminders_sent": edit.encounter.reminders_sent,
            "version": edit.encounter.version,
        }


async def test_a_change_of_a_known_version_reads_only_the_versions(bot: FakeBot) -> None:
    await setup_fight(bot)
    await seen_by_a_change(bot)
    with statements(bot) as seen:
        await seen_by_a_change(bot)
    assert [what(s) for s in seen] == [
        *ACROSS_PROCESSES,
        "SELECT encounter",
        "UPDATE encounter",
        "INSERT event_log",
    ]
    probe = seen[len(ACROSS_PROCESSES)]
    assert "encounter.state" not in probe and "house_rules" not in probe, probe
    other = another_process(bot)  # knows no version: reads everything, once
    with statements(other) as seen:
        await seen_by_a_change(other)
    selects = [s for s in seen if what(s) == "SELECT encounter"]
    assert len(selects) == 2 and "encounter.state" in selects[1], seen


async def test_settings_another_process_changed_are_read_again(bot: FakeBot) -> None:
    await setup_fight(bot)
    assert (await seen_by_a_change(bot))["dice"] == []
    other = another_process(bot)
    async with other.store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [3, 4]
    assert (await seen_by_a_change(bot))["dice"] == [3, 4]


async def test_a_parents_settings_changed_meanwhile_reach_its_threads_fight(bot: FakeBot) -> None:
    await bot.store.set_system(HERE, "nyra")
    await start_encounter(bot, THREAD, GM, "In the thread")
    assert (await seen_by_a_change(bot, THREAD))["rules"] == {}
    async with another_process(bot).store.edit_channel(HERE) as edit:
        edit.config.house_rules = {"nyra": {"tie_reroll_limit": 2}}
    assert (await seen_by_a_change(bot, THREAD))["rules"] == {"tie_reroll_limit": 2}


async def test_columns_written_without_a_version_are_read_every_time(bot: FakeBot) -> None:
    """The live tracker's message id and a reminder's claim are compare-and-set writes (no version bump):
    a kept read takes them from the probe."""
    eid = await setup_fight(bot)
    before = await seen_by_a_change(bot)
    other = another_process(bot)
    assert await set_tracker_message(other, HERE.channel_id, eid, 555, before["tracker_message_id"])
    async with other.store.change(channel_key(HERE.channel_id), across_processes=False) as session:
        assert await compare_and_set(session, Encounter, eid, {"reminders_sent": 0}, {"reminders_sent": 2})
    after = await seen_by_a_change(bot)
    assert (after["tracker_message_id"], after["reminders_sent"]) == (555, 2)
    assert after["version"] == before["version"] + 1  # neither bumped it


async def test_a_kept_read_hands_out_new_rows_each_time(bot: FakeBot) -> None:
    """A change may set attributes on the rows it read (a channel's row it is about to write); another
    change must not see that unless it was saved."""
    await setup_fight(bot)
    async with bot.store.edit_channel(HERE) as edit:
        edit.config.dice_queue = [5]
    await seen_by_a_change(bot)  # read whole, kept
    for _ in range(2):
        async with bot.store.sessions() as session:
            read = await read_for_change(session, parsed_states(bot.store).reads, HERE.channel_id, None, OPEN)
        assert read is not None and read.own is not None
        assert (read.encounter.name, read.own.dice_queue) == ("Ambush", [5])
        read.encounter.name, read.own.dice_queue = "renamed", [6]  # the next read must not see this


async def test_a_read_outside_a_change_uses_the_kept_read_too(bot: FakeBot) -> None:
    eid = await setup_fight(bot)
    await seen_by_a_change(bot)
    with statements(bot) as seen:
        read = await load_encounter(bot, HERE)
    assert read is not None and read.encounter.id == eid
    assert [what(s) for s in seen] == ["SELECT encounter"] and "encounter.state" not in seen[0], seen
    assert len(parsed_states(bot.store).reads) == 1


async def test_the_tracker_of_a_state_is_made_once(bot: FakeBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """The save makes the view of the state it leaves; the next change's checks and a status read look at
    that same state and take the same view."""
    await setup_fight(bot)
    system = type(get_system("nyra"))
    made: list[Any] = []
    passed_on = system.tracker

    def counted(self: Any, state: Any) -> Any:
        made.append(state)
        return passed_on(self, state)

    monkeypatch.setattr(system, "tracker", counted)
    await _condition(bot, False)
    assert len(made) == 1
    read = await load_encounter(bot, HERE)
    assert read is not None and read.tracker() is read.tracker()
    async with edit_encounter(bot, HERE, GM, "gm note") as edit:
        assert edit.tracker() is read.tracker()
        edit.summary = "looked"
    assert len(made) == 1
