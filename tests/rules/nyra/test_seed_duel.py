"""Golden tests: the seed's duel (Basic Combat), step by step, with the seed's dice."""

import dataclasses

import pytest

from rules.errors import NotAllowed
from rules.systems.nyra import strike as strikes
from rules.systems.nyra import turns
from rules.systems.nyra.house import HouseRules

from .helpers import HOUSE, duel, first, kinds, run


def test_duelist_1_acts_first_on_sequence_5_against_4():
    state = duel()
    assert state.order == ("d1", "d2")
    assert state.current_id == "d1" and state.phase == 1
    assert state.get("d1").delay_pool == 6  # AGI 6


def test_wild_cleaving_strike_hits_the_left_arm_for_12():
    state = duel()
    # attacker d10 3, defender d10 4, location d6 3, damage 3d6: 3, 4, 2
    out = run(
        strikes.strike,
        state,
        strikes.StrikeArgs("d1", "d2", "C"),
        [(10, 3), (10, 4), (6, 3), (6, 3), (6, 4), (6, 2)],
    )
    contest = first(out, "ContestRolled")
    assert (contest.attack.margin, contest.reaction_skill, contest.reaction.margin) == (4, "Defense", 1)
    assert first(out, "StrikeResolved").result == "hit"
    assert first(out, "LocationRolled").location == "Left Arm"
    damage = first(out, "DamageRolled")
    assert damage.rolled_total == 9
    assert [(m.source, m.value) for m in damage.modifiers] == [("base flat damage", 0), ("STR mod", 3)]
    assert damage.dealt == 12
    assert out.state.get("d2").location_damage == {"Left Arm": 12}
    # 6 AGI − delay 3 = 3 left: another strike is allowed, the turn goes on.
    assert out.state.get("d1").delay_pool == 3 and out.state.current_id == "d1"
    assert "TurnEnded" not in kinds(out)
    assert [d.value for d in out.dice] == [3, 4, 3, 3, 4, 2]


def _after_first_strike():
    return run(strikes.strike, duel(), strikes.StrikeArgs("d1", "d2", "C"), [3, 4, 3, 3, 4, 2]).state


def test_aimed_slash_at_the_head_is_defended():
    out = run(strikes.strike, _after_first_strike(), strikes.StrikeArgs("d1", "d2", "S", aim="head"), [2, 2])
    contest = first(out, "ContestRolled")
    assert contest.attack.effective == 3 and contest.attack.margin == 1
    assert contest.reaction.margin == 3
    assert first(out, "StrikeResolved").result == "defended"
    assert "DamageRolled" not in kinds(out)
    assert out.state.get("d2").location_damage == {"Left Arm": 12}


def test_aimed_strike_rolling_4_misses_without_a_defender_roll():
    out = run(strikes.strike, _after_first_strike(), strikes.StrikeArgs("d1", "d2", "S", aim="Head"), [4])
    assert first(out, "StrikeResolved").result == "miss"
    assert first(out, "ContestRolled").reaction is None
    assert len(out.dice) == 1


def test_a_defense_block_on_the_first_strike_ends_the_volley_and_the_turn():
    state = duel()
    out = run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [5, 1])
    assert first(out, "StrikeResolved").result == "defended"
    ended = first(out, "VolleyEnded")
    assert ended.delay_lost == 3
    assert first(out, "TurnEnded").reason == "defense ended the volley"
    assert out.state.current_id == "d2"


def test_after_a_defense_block_no_further_strike_even_without_auto_end():
    house = HouseRules(auto_end_turn="never")
    out = run(strikes.strike, duel(house), strikes.StrikeArgs("d1", "d2", "C"), [5, 1], house)
    assert out.state.current_id == "d1" and out.state.volley_ended
    assert out.state.get("d1").delay_pool == 0
    with pytest.raises(NotAllowed, match="Defense ended"):
        run(strikes.strike, out.state, strikes.StrikeArgs("d1", "d2", "C"), [], house)


def test_a_successful_dodge_does_not_end_the_volley():
    state = duel()
    state = run(turns.end_turn, state, "d1", []).state  # Duelist 2's turn; Duelist 1 dodges
    out = run(strikes.strike, state, strikes.StrikeArgs("d2", "d1", "C"), [6, 2])
    contest = first(out, "ContestRolled")
    assert contest.reaction_skill == "Dodge" and first(out, "StrikeResolved").result == "defended"
    assert "VolleyEnded" not in kinds(out)
    assert out.state.get("d2").delay_pool == 3 and out.state.current_id == "d2"


def test_second_strike_is_refused_when_the_pool_cannot_cover_it():
    house = HouseRules(auto_end_turn="never")
    state = duel(house)
    d1 = state.get("d1")
    state = state.with_combatant(dataclasses.replace(d1, delay_pool=2))
    with pytest.raises(NotAllowed, match="2 delay left"):
        run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [], house)


def test_the_input_state_is_never_mutated():
    state = duel()
    before = state.to_dict()
    run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [3, 4, 3, 3, 4, 2], HOUSE)
    assert state.to_dict() == before
