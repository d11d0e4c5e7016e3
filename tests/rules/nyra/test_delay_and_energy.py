"""Delay (RULES.md §1 "Delay") and the optional energy pool ("Energy")."""

import dataclasses

import pytest

from rules.errors import InvalidInput, NotAllowed
from rules.systems.nyra import actions as other_actions
from rules.systems.nyra import strike as strikes
from rules.systems.nyra import turns
from rules.systems.nyra.house import HouseRules

from .helpers import HOUSE, combat, first, kinds, run, sheet


def _state(house=HOUSE, **kw):
    return combat(
        sheet("A", sequence=9, **kw), sheet("B", skills={}, sequence=1), ids=["a", "b"], house=house
    )


def test_move_costs_gm_set_delay_and_the_pool_never_goes_negative():
    state = _state()
    out = run(other_actions.other_action, state, other_actions.ActionArgs("a", 2), [])
    assert first(out, "DelaySpent").delay_after == 4
    with pytest.raises(NotAllowed, match="4 delay left"):
        run(other_actions.other_action, out.state, other_actions.ActionArgs("a", 5), [])
    with pytest.raises(InvalidInput):
        run(other_actions.other_action, out.state, other_actions.ActionArgs("a", -1), [])


def test_strikes_auto_end_when_no_strike_is_affordable():
    house = HouseRules(auto_end_turn="strikes")
    out = run(
        other_actions.other_action, _state(house), other_actions.ActionArgs("a", 4), [], house
    )  # 2 left < Short Sword delay 3
    ended = first(out, "TurnEnded")
    assert (ended.reason, ended.delay_lost) == ("nothing affordable", 2)
    assert out.state.current_id == "b"


def test_empty_rule_keeps_the_turn_until_the_pool_is_0():
    house = HouseRules(auto_end_turn="empty")
    out = run(other_actions.other_action, _state(house), other_actions.ActionArgs("a", 4), [], house)
    assert "TurnEnded" not in kinds(out)
    out = run(other_actions.other_action, out.state, other_actions.ActionArgs("a", 2), [], house)
    assert first(out, "TurnEnded").reason == "delay spent"


def test_never_rule_waits_for_the_player():
    house = HouseRules(auto_end_turn="never")
    out = run(other_actions.other_action, _state(house), other_actions.ActionArgs("a", 6), [], house)
    assert out.state.current_id == "a" and out.state.get("a").delay_pool == 0
    ended = run(turns.end_turn, out.state, "a", [], house)
    assert first(ended, "TurnEnded").reason == "player"


def test_out_of_turn_actions_are_refused():
    with pytest.raises(NotAllowed, match="not B's turn"):
        run(other_actions.other_action, _state(), other_actions.ActionArgs("b", 1), [])
    with pytest.raises(NotAllowed, match="not B's turn"):
        run(strikes.strike, _state(), strikes.StrikeArgs("b", "a", "C"), [])


def test_energy_is_spent_per_strike_and_a_strike_it_cannot_pay_is_refused():
    house = HouseRules(auto_end_turn="never")
    state = _state(house, energy=5)  # Short Sword costs 3
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C", aim="Chest"), [8], house)
    declared = first(out, "StrikeDeclared")
    assert (declared.energy_before, declared.energy_after) == (5, 2)
    with pytest.raises(NotAllowed, match="2 energy left"):
        run(strikes.strike, out.state, strikes.StrikeArgs("a", "b", "C"), [], house)


def test_claymore_energy_7_of_38():
    user = sheet("User", weapons=["Claymore"], energy=38, sequence=9)
    state = combat(user, sheet("B", skills={}, sequence=1), ids=["a", "b"])
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C"), [9])
    assert first(out, "StrikeDeclared").energy_after == 31
    assert first(out, "TurnEnded").reason == "delay spent"  # Claymore delay 6 = AGI 6


def test_no_energy_pool_means_energy_is_off():
    out = run(strikes.strike, _state(), strikes.StrikeArgs("a", "b", "C", aim="Chest"), [8])
    assert first(out, "StrikeDeclared").energy_before is None


def test_a_strike_pays_delay_whatever_its_outcome():
    house = HouseRules(auto_end_turn="never")
    out = run(strikes.strike, _state(house), strikes.StrikeArgs("a", "b", "C"), [9], house)
    assert out.state.get("a").delay_pool == 3


def test_delay_reset_to_agi_at_each_turn_start():
    state = _state()
    state = state.with_combatant(dataclasses.replace(state.get("b"), delay_pool=0))
    out = run(turns.end_turn, state, "a", [])
    assert out.state.get("b").delay_pool == 6 and first(out, "TurnStarted").delay_pool == 6
