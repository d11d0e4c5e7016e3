"""Health edges (RULES.md §2 "Health"): 1.5×, 4× and 5× Health, and going down."""

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from rules.systems.kaernest import encounter, health, initiative, timeline
from rules.systems.kaernest.house import HouseRules

from .helpers import HOUSE, arena, fighter, run_to_turn

NONE = ScriptedDice([])


@pytest.mark.parametrize(("health_score", "at", "over"), [(6, 9, 10), (5, 7, 8)])
def test_a_wound_needs_more_than_one_and_a_half_health_in_one_hit(health_score, at, over):
    state = arena(("x", fighter("X", health=health_score), 10))
    assert encounter.gm_damage(state, "x", at, HOUSE).state.get("x").wounds == ()
    wounded = encounter.gm_damage(state, "x", over, HOUSE).state.get("x")
    assert len(wounded.wounds) == 1 and wounded.wound_penalty == 1


def test_damage_accumulates_but_only_single_hits_wound():
    state = arena(("x", fighter("X", health=6), 10))
    for _ in range(3):
        state = encounter.gm_damage(state, "x", 9, HOUSE).state
    assert state.get("x").damage == 27 and state.get("x").wounds == ()


def test_wound_penalty_is_a_house_rule_and_stacks():
    state = arena(("x", fighter("X", health=10), 10))
    house = HouseRules(wound_penalty=2)
    for _ in range(2):
        state = encounter.gm_damage(state, "x", 16, house).state
    assert state.get("x").wound_penalty == 4


@pytest.mark.parametrize(
    ("damage", "condition"), [(20, "up"), (21, "unconscious"), (25, "unconscious"), (26, "dying")]
)
def test_four_and_five_times_health_at_their_edges(damage, condition):
    state = arena(("x", fighter("X", health=5), 10))
    event = encounter.gm_damage(state, "x", damage, HOUSE).events[0]
    assert (event.condition_before, event.condition_after, event.total_damage) == ("up", condition, damage)


def test_going_down_cancels_the_action_and_leaves_the_timeline_until_healed_and_rerolled():
    state = arena(("x", fighter("X", health=5), 20), ("y", fighter("Y"), 10))
    state, _ = run_to_turn(state)
    state = timeline.declare_action(state, "x", 5, NONE, HOUSE).state
    out = encounter.gm_damage(state, "x", 21, HOUSE)
    assert [e.kind for e in out.events] == ["DamageTaken", "ActionCancelled"]
    down = out.state.get("x")
    assert (down.pending, down.ready_tick, down.initiative) == (None, None, None)
    assert timeline.next_due(out.state).combatants == ("y",)
    healed = encounter.gm_heal(out.state, "x", 5).state
    assert healed.get("x").condition == "up" and healed.get("x").damage == 16
    with ScriptedDice([3]) as dice:  # only the one without initiative rolls
        rolled = initiative.roll_initiative(healed, dice, HOUSE)
    assert [e.combatant for e in rolled.events] == ["x"]


def test_bad_amounts_are_refused():
    state = arena(("x", fighter("X"), 10))
    with pytest.raises(InvalidInput):
        encounter.gm_damage(state, "x", -1, HOUSE)
    with pytest.raises(InvalidInput):
        health.heal(state.get("x"), -1)
