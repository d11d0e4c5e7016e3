"""The segment timeline: RULES.md §2 "Time" golden cases, ordering and next_due/advance."""

import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.systems.kaernest import clock, timeline
from rules.systems.kaernest.house import HouseRules

from .helpers import HOUSE, arena, fighter, kinds, run_to_turn

NONE = ScriptedDice([])


def test_tick_arithmetic_matches_the_seed():
    assert clock.tick_of(1, 30) == 0 and clock.tick_of(1, 1) == 29 and clock.tick_of(2, 30) == 30
    # Izuki acts at 17 with a speed-9 weapon: it lands at 8.
    lands = clock.lands_at(clock.tick_of(1, 17), 9)
    assert (clock.minute_of(lands), clock.segment_of(lands)) == (1, 8)
    # 5 - 9 = -4 → 26 of the next minute; 5 - 5 = 0 → 30 of the next minute.
    lands = clock.lands_at(clock.tick_of(1, 5), 9)
    assert (clock.minute_of(lands), clock.segment_of(lands)) == (2, 26)
    lands = clock.lands_at(clock.tick_of(1, 5), 5)
    assert (clock.minute_of(lands), clock.segment_of(lands)) == (2, 30)
    # -3 → 27
    lands = clock.lands_at(clock.tick_of(3, 2), 5)
    assert (clock.minute_of(lands), clock.segment_of(lands)) == (4, 27)


def duel(init_a=17, init_b=5, weapon="Sword, Bastard"):
    a = fighter("Izuki", grace=8, reflex=9, skills={"Swords": 6}, weapons=(weapon,))
    b = fighter("Andretti", grace=7, reflex=6, weapons=("Club (Common)",))
    return arena(("izuki", a, init_a), ("andretti", b, init_b))


def test_initiative_17_speed_9_resolves_at_segment_8_and_declares_again_there():
    state, events = run_to_turn(duel())
    assert (state.minute, state.segment) == (1, 17)
    assert kinds(events) == ["ClockAdvanced"]
    out = timeline.declare_attack(state, "izuki", "andretti", NONE, HOUSE, grip="1h")
    declared = out.events[-1]
    assert (declared.speed, declared.lands_minute, declared.lands_segment) == (9, 1, 8)
    due = timeline.next_due(out.state)
    assert (due.kind, due.minute, due.segment, due.combatants) == ("resolve", 1, 8, ("izuki",))
    state, events = run_to_turn(out.state, [1, 1])  # the attack's 2d12; the hit's damage draws no die
    assert kinds(events) == ["ClockAdvanced", "AttackResolved", "DamageRolled", "DamageTaken"]
    assert (events[1].minute, events[1].segment, events[1].hit) == (1, 8, True)
    # The action's landing is also where Izuki declares again; Andretti (5) has not been reached.
    assert (state.minute, state.segment, timeline.on_turn(state).id) == (1, 8, "izuki")
    assert timeline.next_due(state).combatants == ("izuki",)


def test_speed_9_declared_at_5_resolves_at_26_of_the_next_minute():
    state, _ = run_to_turn(duel(init_a=5, init_b=1))
    out = timeline.declare_attack(state, "izuki", "andretti", NONE, HOUSE)
    assert (out.events[-1].lands_minute, out.events[-1].lands_segment) == (2, 26)


def test_speed_5_declared_at_5_resolves_at_30_of_the_next_minute():
    state, _ = run_to_turn(duel(init_a=5, init_b=1, weapon="Sword, Short"))
    out = timeline.declare_attack(state, "izuki", "andretti", NONE, HOUSE)
    assert (out.events[-1].speed, out.events[-1].lands_minute, out.events[-1].lands_segment) == (5, 2, 30)


def test_a_gm_set_speed_replaces_the_weapon_speed():
    state, _ = run_to_turn(duel())
    out = timeline.declare_attack(state, "izuki", "andretti", NONE, HOUSE, speed=3)
    assert out.events[-1].lands_segment == 14


def test_waiting_moves_one_segment_later():
    state, _ = run_to_turn(duel())
    out = timeline.wait(state, "izuki", NONE, HOUSE)
    assert (out.events[0].next_minute, out.events[0].next_segment) == (1, 16)
    state, _events = run_to_turn(out.state)
    assert (state.segment, timeline.on_turn(state).id) == (16, "izuki")


def test_waiting_at_segment_1_moves_to_30_of_the_next_minute():
    state, _ = run_to_turn(duel(init_a=1, init_b=30))
    state = timeline.declare_action(state, "andretti", 40, NONE, HOUSE).state
    state, _ = run_to_turn(state)
    assert (state.minute, state.segment) == (1, 1)
    state = timeline.wait(state, "izuki", NONE, HOUSE).state
    state, _ = run_to_turn(state)
    assert (state.minute, state.segment, timeline.on_turn(state).id) == (2, 30, "izuki")


def test_only_the_combatant_on_turn_may_declare():
    state, _ = run_to_turn(duel())
    with pytest.raises(NotAllowed, match="Izuki's turn"):
        timeline.declare_attack(state, "andretti", "izuki", NONE, HOUSE)
    with pytest.raises(NotAllowed):
        timeline.wait(state, "andretti", NONE, HOUSE)


def test_advance_does_nothing_while_someone_owes_a_declaration():
    state, _ = run_to_turn(duel())
    again, events = run_to_turn(state)
    assert again == state and events == ()


def test_same_segment_resolutions_first_then_declarations_each_by_initiative_then_instinct():
    # b and a tie at 20; b has the higher Instinct, so b goes first (RULES.md §4; not the alphabet, not chance).
    a, c, d = (fighter(n) for n in "ACD")
    b = fighter("B", instinct=6)
    state = arena(("c", c, 12), ("b", b, 20), ("a", a, 20), ("d", d, 8))
    state, _ = run_to_turn(state)
    assert timeline.next_due(state).combatants == ("b", "a")
    with pytest.raises(NotAllowed):
        timeline.declare_action(state, "a", 12, NONE, HOUSE)
    state = timeline.declare_action(state, "b", 12, NONE, HOUSE).state
    state = timeline.declare_action(state, "a", 12, NONE, HOUSE).state
    state, _ = run_to_turn(state)
    state = timeline.declare_action(state, "c", 4, NONE, HOUSE).state
    # At 8: b, a and c land (resolutions first, by initiative then Instinct), then d's first turn.
    due = timeline.next_due(state)
    assert (due.kind, due.segment, due.combatants) == ("resolve", 8, ("b", "a", "c"))
    state, events = run_to_turn(state)
    assert [e.combatant for e in events if e.kind == "ActionResolved"] == ["b", "a", "c"]
    due = timeline.next_due(state)
    assert (due.kind, due.segment, due.combatants) == ("declare", 8, ("b", "a", "c", "d"))


def test_next_due_is_idle_without_initiative():
    from rules.systems.kaernest import encounter
    from rules.systems.kaernest.state import KaernestState

    state = encounter.add_combatant(KaernestState(), "a", fighter("A")).state
    assert timeline.next_due(state).kind == "idle"
    assert run_to_turn(state) == (state, ())


def test_defensive_speed_bonus_follows_a_defend_action():
    state, _ = run_to_turn(duel(init_a=20, init_b=1))
    out = timeline.declare_action(state, "izuki", 4, NONE, HOUSE, defend=True)
    assert out.state.get("izuki").posture == "active"
    assert kinds(out.events) == ["PostureChanged", "ActionDeclared"]
    state, _ = run_to_turn(out.state)
    assert state.segment == 16 and state.get("izuki").held_defensive
    out = timeline.declare_attack(state, "izuki", "andretti", NONE, HOUSE)
    declared = out.events[-1]
    assert [(m.label, m.value) for m in declared.speed_modifiers] == [
        ("Sword, Bastard 1h", 9),
        ("held a defensive posture", -1),
    ]
    assert (declared.speed, declared.lands_segment) == (8, 8)
    # Attacking ends the defensive posture.
    assert out.state.get("izuki").posture == "passive" and not out.state.get("izuki").held_defensive
    off = HouseRules(defensive_speed_bonus=0)
    assert timeline.declare_attack(state, "izuki", "andretti", NONE, off).events[-1].speed == 9
