import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput, NotAllowed
from rules.systems.kaernest import encounter, initiative
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import KaernestState

from .helpers import HOUSE, fighter


def roster(*sheets):
    state = KaernestState()
    for i, sheet in enumerate(sheets):
        state = encounter.add_combatant(state, f"c{i}", sheet).state
    return state


def test_d12_plus_instinct_plus_aptitudes_drawn_in_entry_order():
    state = roster(fighter("A", instinct=7, initiative_modifier=2), fighter("B", instinct=4))
    with ScriptedDice([(12, 8), (12, 3)]) as dice:
        out = initiative.roll_initiative(state, dice, HOUSE)
    first, second = out.events
    assert (first.combatant, first.roll, first.initiative, first.segment) == ("c0", 8, 17, 17)
    assert [(m.label, m.value) for m in first.modifiers] == [("Instinct", 7), ("aptitudes/defects", 2)]
    assert (second.combatant, second.initiative) == ("c1", 7)
    assert out.state.get("c0").ready_tick == 13
    assert [d.label for d in out.dice] == ["initiative A", "initiative B"]


def test_npcs_use_6_without_a_die_unless_the_house_rolls():
    state = roster(fighter("Bandit", instinct=5, npc=True), fighter("Hero", instinct=5))
    with ScriptedDice([4]) as dice:
        out = initiative.roll_initiative(state, dice, HOUSE)
    assert (out.events[0].roll, out.events[0].fixed, out.events[0].initiative, out.events[0].dice) == (
        6,
        True,
        11,
        (),
    )
    with ScriptedDice([2, 4]) as dice:
        out = initiative.roll_initiative(state, dice, HouseRules(npc_initiative="roll"))
    assert (out.events[0].roll, out.events[0].fixed, out.events[0].initiative) == (2, False, 7)


def test_luck_is_added_when_spent_and_the_total_is_capped_at_30():
    state = roster(fighter("Lucky", instinct=12, luck=9))
    with ScriptedDice([12]) as dice:
        out = initiative.roll_initiative(state, dice, HOUSE, luck=["c0"])
    event = out.events[0]
    assert (event.uncapped, event.initiative, event.segment) == (33, 30, 30)
    assert out.state.get("c0").ready_tick == 0
    with pytest.raises(NotAllowed, match="luck_on_initiative"):
        initiative.roll_initiative(state, ScriptedDice([]), HouseRules(luck_on_initiative=False), luck=["c0"])


def test_a_total_below_1_acts_on_segment_1():
    state = roster(fighter("Slow", instinct=0, initiative_modifier=-5))
    with ScriptedDice([2]) as dice:
        assert initiative.roll_initiative(state, dice, HOUSE).events[0].initiative == 1


def test_rolled_once_per_combat_a_late_joiner_enters_at_its_segment_this_minute_or_the_next():
    state = roster(fighter("A", instinct=5))
    with ScriptedDice([5]) as dice:
        state = initiative.roll_initiative(state, dice, HOUSE).state
    state = KaernestState(tick=15, combatants=state.combatants)  # minute 1, segment 15
    state = encounter.add_combatant(state, "late", fighter("Late", instinct=10)).state
    with ScriptedDice([10]) as dice:  # 20: already past this minute → minute 2
        out = initiative.roll_initiative(state, dice, HOUSE)
    assert [e.combatant for e in out.events] == ["late"]
    assert (out.events[0].minute, out.events[0].segment) == (2, 20)
    state = encounter.add_combatant(state, "later", fighter("Later", instinct=1)).state
    with ScriptedDice([2, 1]) as dice:  # late 12 and later 2: both still to come in minute 1
        out = initiative.roll_initiative(state, dice, HOUSE)
    assert [(e.minute, e.segment) for e in out.events] == [(1, 12), (1, 2)]


def test_gm_set_initiative_is_checked():
    state = roster(fighter("A"))
    assert initiative.set_initiative(state, "c0", 12).state.get("c0").ready_tick == 18
    with pytest.raises(InvalidInput):
        initiative.set_initiative(state, "c0", 31)
