"""Equal margins by the house tie rule, and the defender's reaction stance (RULES.md §1 "Strike")."""

import pytest

from rules.errors import InvalidInput
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.house import HouseRules

from .helpers import combat, first, run, sheet


def _state(house, defender_skills):
    return combat(
        sheet("A", sequence=9), sheet("B", skills=defender_skills, sequence=1), ids=["a", "b"], house=house
    )


def test_tie_reroll_rolls_both_again_then_decides():
    house = HouseRules()
    out = run(
        strikes.strike,
        _state(house, {"Dodge": 5}),
        strikes.StrikeArgs("a", "b", "C"),
        [5, 3, 2, 4, (6, 2), 1, 1, 1],
        house,
    )  # 7-5=2 vs 5-3=2 tie; 7-2=5 vs 1 → hit; location; 3d6
    rounds = [e for e in out.events if e.kind == "ContestRolled"]
    assert [r.result for r in rounds] == ["tie", "hit"]
    resolved = first(out, "StrikeResolved")
    assert (resolved.result, resolved.tie_rule, resolved.rounds) == ("hit", "reroll", 2)


def test_tie_reroll_limit_falls_to_the_defender():
    house = HouseRules(tie_reroll_limit=1)
    out = run(
        strikes.strike, _state(house, {"Dodge": 5}), strikes.StrikeArgs("a", "b", "C"), [5, 3, 5, 3], house
    )
    resolved = first(out, "StrikeResolved")
    assert resolved.result == "defended" and resolved.tie_rule.startswith("reroll (limit")


@pytest.mark.parametrize(("rule", "result"), [("defender", "defended"), ("attacker", "hit")])
def test_tie_to_one_side(rule, result):
    house = HouseRules(tie_rule=rule, auto_end_turn="never")
    script = [5, 3] + ([(6, 2), 1, 1, 1] if result == "hit" else [])
    out = run(strikes.strike, _state(house, {"Dodge": 5}), strikes.StrikeArgs("a", "b", "C"), script, house)
    resolved = first(out, "StrikeResolved")
    assert (resolved.result, resolved.tie_rule) == (result, rule)


def test_default_stance_takes_the_higher_skill_defense_on_equal():
    house = HouseRules()
    out = run(
        strikes.strike,
        _state(house, {"Dodge": 6, "Defense": 4}),
        strikes.StrikeArgs("a", "b", "C"),
        [8],
        house,
    )
    assert first(out, "ContestRolled").reaction_skill == "Dodge"
    out = run(
        strikes.strike,
        _state(house, {"Dodge": 4, "Defense": 4}),
        strikes.StrikeArgs("a", "b", "C"),
        [8],
        house,
    )
    assert first(out, "ContestRolled").reaction_skill == "Defense"


def test_chosen_stance_and_house_default_stance():
    house = HouseRules(default_stance="dodge")
    state = _state(house, {"Dodge": 2, "Defense": 8})
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C"), [8], house)
    assert first(out, "ContestRolled").reaction_skill == "Dodge"
    state = run(strikes.set_stance, state, ("b", "Defense"), [], house).state
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C"), [8], house)
    assert first(out, "ContestRolled").reaction_skill == "Defense"
    with pytest.raises(InvalidInput, match="dodge, defense or auto"):
        run(strikes.set_stance, state, ("b", "parry"), [], house)


def test_a_stance_without_its_skill_uses_the_other():
    house = HouseRules(default_stance="defense")
    out = run(strikes.strike, _state(house, {"Dodge": 5}), strikes.StrikeArgs("a", "b", "C"), [8], house)
    assert first(out, "ContestRolled").reaction_skill == "Dodge"
