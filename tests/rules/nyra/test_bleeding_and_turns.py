"""Bleeding at the start of the bleeding combatant's turn; phases; death (RULES.md §1)."""

import dataclasses

import pytest

from rules.errors import NotAllowed
from rules.systems.nyra import actions as other_actions
from rules.systems.nyra import strike as strikes
from rules.systems.nyra import turns

from .helpers import combat, first, kinds, run, sheet


def _pair(**damage):
    a = sheet("A", sequence=9)
    b = sheet("B", CON=6, STR=6, sequence=1)
    state = combat(a, b, ids=["a", "b"])
    return state.with_combatant(dataclasses.replace(state.get("b"), location_damage=damage))


def _bleeding_of(out, who="b"):
    return [
        (e.location, e.amount, e.state_after)
        for e in out.events
        if e.kind == "LocationDamaged" and e.combatant == who
    ]


def test_serious_bleeds_1_and_critical_bleeds_3_at_the_start_of_its_own_turn():
    state = _pair(**{"Left Arm": 13, "Right Leg": 25})
    out = run(turns.end_turn, state, "a", [])
    assert first(out, "TurnStarted").bleeding == 4
    assert _bleeding_of(out) == [("Left Arm", 1, "serious"), ("Right Leg", 3, "mangled")]
    assert out.state.get("b").location_damage == {"Left Arm": 14, "Right Leg": 28}
    assert all(e.source == "bleeding" for e in out.events if e.kind == "LocationDamaged")


def test_slight_wounds_do_not_bleed_and_nobody_bleeds_on_anothers_turn():
    state = _pair(**{"Left Arm": 12})
    out = run(turns.end_turn, state, "a", [])
    assert _bleeding_of(out) == []
    bleeding_b = _pair(**{"Left Arm": 20})
    out = run(turns.end_turn, run(turns.end_turn, bleeding_b, "a", []).state, "b", [])
    assert _bleeding_of(out) == []  # a's turn: b does not bleed
    assert first(out, "PhaseStarted").phase == 2


def test_bleeding_to_death_loses_the_turn_and_is_skipped_after():
    state = _pair(Head=13)  # head critical for CON 6 (serious 12, critical 14): bleeds 3 → 16 > 14: fatal
    out = run(turns.end_turn, state, "a", [])
    assert first(out, "CombatantDied").combatant == "b"
    assert kinds(out)[-2:] == ["PhaseStarted", "TurnStarted"]
    assert out.state.current_id == "a" and out.state.phase == 2
    with pytest.raises(NotAllowed, match="dead"):
        run(strikes.strike, out.state, strikes.StrikeArgs("a", "b", "C"), [])


def test_start_turn_cannot_be_applied_twice():
    state = _pair(**{"Left Arm": 13})
    with pytest.raises(NotAllowed, match="already started"):
        run(lambda st, _, d, h: turns.start_turn(st, d, h), state, None, [])


def test_start_turn_on_a_pending_turn_resets_delay_and_bleeds():
    state = _pair(**{"Left Arm": 13})
    state = dataclasses.replace(state, turn_index=1, turn_started=False)
    out = run(lambda st, _, d, h: turns.start_turn(st, d, h), state, None, [])
    assert out.state.get("b").delay_pool == 6 and out.state.get("b").damage_at("Left Arm") == 14


def test_only_the_turn_holder_may_end_it():
    with pytest.raises(NotAllowed, match="A's turn"):
        run(turns.end_turn, _pair(), "b", [])


def test_gm_damage_to_a_location_and_rolled_location():
    state = _pair()
    out = run(other_actions.gm_damage, state, other_actions.GmDamageArgs("b", 5, "chest"), [])
    assert out.state.get("b").location_damage == {"Chest": 5}
    out = run(other_actions.gm_damage, state, other_actions.GmDamageArgs("b", 5), [(6, 6)])
    assert first(out, "LocationRolled").location == "Right Leg"
    healed = run(other_actions.gm_heal, out.state, other_actions.GmHealArgs("b", 9, "right leg"), [])
    assert healed.state.get("b").location_damage == {}
    assert first(healed, "LocationHealed").amount == 5
