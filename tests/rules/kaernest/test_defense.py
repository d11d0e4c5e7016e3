"""Active defense: interrupting restarts the attack with speed + 1; later defenses are cumulative −1."""

import dataclasses

import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput, NotAllowed
from rules.systems.kaernest import clock, defense, encounter, timeline
from rules.systems.kaernest.house import HouseRules

from .helpers import HOUSE, arena, fighter, kinds, run_to_turn

NONE = ScriptedDice([])


def setup(house=HOUSE, armour=None):
    a = fighter("Andretti", grace=7, skills={"Swords": 5}, weapons=("Sword, Short",))
    d = fighter("Izuki", reflex=6, health=10, skills={"Parry": 4, "Dodge": 2}, armour=armour)
    state = arena(("a", a, 20), ("d", d, 1), posture={"d": "active"})
    state, _ = run_to_turn(state, house=house)
    return timeline.declare_attack(state, "a", "d", NONE, house, damage_type="pierce").state  # lands at 15


def test_a_successful_active_defense_interrupts_and_restarts_with_speed_plus_1():
    # The defender's 2d12 ≤ Reflex 6 + Parry 4 = 10 first (RULES.md §4); it interrupts, so the attack's
    # dice are never drawn. Nobody owes a declaration after the interruption, so the clock runs on to the
    # restarted attack's landing at 8.
    state, events = run_to_turn(setup(), [3, 4, 6, 4, 4, 4])
    assert kinds(events) == [
        "ClockAdvanced",
        "ActiveDefenseRolled",
        "AttackInterrupted",
        "ClockAdvanced",
        "ActiveDefenseRolled",
        "AttackResolved",
        "DamageRolled",
        "DamageTaken",
    ]
    defended, interrupted = events[1], events[2]
    assert [(m.label, m.value) for m in defended.modifiers] == [("Reflex", 6), ("Parry", 4)]
    assert (defended.target, defended.total, defended.success) == (10, 7, True)
    assert [d.label for d in defended.dice] == ["active defense", "active defense"]
    # Interrupted at 15: restarts at 14 with speed 5 + 1 = 6 → lands at 8, where Andretti declares next.
    assert (interrupted.restart_segment, interrupted.speed, interrupted.lands_segment) == (14, 6, 8)
    # The next defense is at −1: target 9. Rolling 10 fails → passive defense 6: target 15 − 6 = 9.
    assert events[4].success is False and [d.label for d in events[4].dice] == ["active defense"] * 2
    hit = events[5]
    assert (hit.segment, hit.interrupted) == (8, False)
    assert [d.label for d in hit.dice] == ["attack", "attack"]
    assert [(m.label, m.value) for m in hit.active_defense.modifiers] == [
        ("Reflex", 6),
        ("Parry", 4),
        ("earlier defenses", -1),
    ]
    assert (hit.active_defense.target, hit.active_defense.success) == (9, False)
    assert (hit.defense_posture, hit.defense, hit.target, hit.total, hit.hit) == ("active", 6, 9, 8, True)
    assert (
        state.get("d").defenses_since_action == 2 and state.get("d").damage == 7
    )  # Muscle 5/2 = 2 + pierce 5


def test_the_interrupted_attack_is_rescheduled_and_the_defense_counted():
    # resolve_landing alone, to see the state right after the interruption at 15
    state = dataclasses.replace(setup(), tick=clock.tick_of(1, 15))
    with ScriptedDice([3, 4]) as dice:
        state = timeline.resolve_landing(state, "a", dice, HOUSE).state
    pending = state.get("a").pending
    assert (pending.declared_tick, pending.speed, pending.lands_tick, pending.restarts) == (16, 6, 22, 1)
    assert state.get("a").ready_tick == 22 and state.get("d").defenses_since_action == 1
    assert state.get("d").damage == 0
    assert timeline.next_due(state) == timeline.Due("resolve", 22, ("a",))


def test_the_defense_count_restarts_when_the_defender_acts():
    state, _ = run_to_turn(setup(), [3, 4, 12, 12, 12, 12])  # interrupted, then a miss at 8
    assert state.get("d").defenses_since_action == 2
    state = timeline.declare_action(state, "a", 30, NONE, HOUSE).state
    state, _ = run_to_turn(state)
    assert timeline.on_turn(state).id == "d"
    state = timeline.declare_action(state, "d", 3, NONE, HOUSE, defend=True).state
    assert state.get("d").defenses_since_action == 0 and state.get("d").posture == "active"


def test_interrupt_penalty_and_armour_on_active_defense_are_house_rules():
    house = HouseRules(interrupt_speed_penalty=2, armour_penalty_on_active_defense=True)
    _state, events = run_to_turn(setup(house, armour="Chainmaille"), [3, 3, 12, 12, 12, 12], house)
    assert [(m.label, m.value) for m in events[1].modifiers][-1] == (
        "Chainmaille Reflex penalty",
        -2,
    )
    assert (events[2].speed, events[2].lands_segment) == (7, 7)


def test_posture_names_and_refusals():
    state = arena(("a", fighter("A"), 20))
    assert defense.set_posture(state, "a", "Defensive").state.get("a").posture == "active"
    assert defense.set_posture(state, "a", "passive").events == ()
    with pytest.raises(InvalidInput, match="posture"):
        defense.set_posture(state, "a", "sneaky")
    down = encounter.gm_damage(state, "a", 99, HOUSE).state
    with pytest.raises(NotAllowed, match="dying"):
        defense.set_posture(down, "a", "active")
