import json

import pytest

from rules.dice import ScriptedDice
from rules.errors import ValidationError
from rules.events import plain
from rules.systems.kaernest import encounter, timeline
from rules.systems.kaernest import state as states

from .helpers import HOUSE, arena, fighter, run_to_turn

NONE = ScriptedDice([])


def busy_state():
    a = fighter("A", health=4, armour="Chain Shirt", skills={"Swords": 5, "Parry": 2})
    b = fighter("B", npc=True, weapons=("Mace",))
    state = arena(("a", a, 20), ("b", b, 10), posture={"b": "aggressive"})
    state, _ = run_to_turn(state)
    state = timeline.declare_attack(state, "a", "b", NONE, HOUSE, called_location="head", bonus=2).state
    state = encounter.gm_damage(state, "a", 7, HOUSE, location="arm").state
    return encounter.set_wound_effect(state, "a", 1, "drops the shield").state


def test_round_trip_through_json_is_exact():
    state = busy_state()
    raw = json.loads(json.dumps(state.to_dict()))
    back = states.from_dict(raw)
    assert back == state
    assert back.to_dict() == raw
    assert back.get("a").wounds[0].effect == "drops the shield"
    assert back.get("a").pending.called_location == "head"


def test_events_are_json_ready():
    _state, events = run_to_turn(busy_state(), [1, 1, 4])  # attack 2 vs target; b aggressive: d12 = 4
    json.dumps([e.to_dict() for e in events])
    assert plain(events[1])["kind"] == "AttackResolved"


def test_a_damaged_record_names_its_paths():
    raw = busy_state().to_dict()
    raw["combatants"][0]["posture"] = "sideways"
    raw["combatants"][0]["pending"]["lands_tick"] = 1
    raw["combatants"][1]["sheet"]["grace"] = -4
    raw["tick"] = -1
    with pytest.raises(ValidationError) as err:
        states.from_dict(raw)
    assert [p.path for p in err.value.problems] == [
        "tick",
        "combatants[0].posture",
        "combatants[0].pending",
        "combatants[1].sheet.grace",
    ]
    raw = busy_state().to_dict()
    raw["combatants"][1]["damage"] = "lots"
    with pytest.raises(ValidationError, match=r"combatants\[1\].damage"):
        states.from_dict(raw)


def test_operations_never_mutate_their_input():
    state = busy_state()
    before = state.to_dict()
    with ScriptedDice([1, 1, 4]) as dice:
        timeline.advance(state, dice, HOUSE)
    encounter.gm_damage(state, "b", 30, HOUSE)
    assert state.to_dict() == before
