"""Checks at every difficulty, natural 1 and 10, Affinity's range, and the competitive check (RULES.md §1)."""

import pytest

from rules.dice import Die, ScriptedDice
from rules.systems.nyra.checks import Difficulty, contest, effective_skill, resolve_check, roll_check


def check(skill, difficulty, roll, **kw):
    return resolve_check("Swords", skill, Difficulty.parse(difficulty), Die(10, roll), **kw)


@pytest.mark.parametrize(
    ("skill", "difficulty", "effective"),
    [
        (7, "easy", 14),
        (7, "normal", 7),
        (7, "difficult", 3),  # the seed: "instead of 7 weapon skill, they have effectively 3"
        (6, "difficult", 3),
        (7, "impossible", 1),  # roll < 7/4 = 1.75 → only 1
        (8, "impossible", 1),  # roll < 2 → 1 (2 is not < 2)
        (9, "impossible", 2),  # roll < 2.25 → 1, 2
        (4, "impossible", 0),
        (1, "impossible", 0),
        (7, "critical", 1),
    ],
)
def test_effective_skill(skill, difficulty, effective):
    assert effective_skill(skill, Difficulty.parse(difficulty)) == effective


def test_success_is_roll_at_most_effective_and_margin_is_effective_minus_roll():
    assert check(7, "normal", 7).success and check(7, "normal", 7).margin == 0
    assert not check(7, "normal", 8).success and check(7, "normal", 8).margin == -1
    assert check(7, "normal", 3).margin == 4  # the seed: "they roll 3, which is 4 under their skill"


def test_impossible_needs_strictly_under_a_quarter():
    assert not check(8, "impossible", 2).success
    assert check(9, "impossible", 2).success


def test_critical_difficulty_only_a_one():
    assert check(9, "critical", 1).success
    assert not check(9, "critical", 2).success


def test_natural_one_always_succeeds_and_is_critical():
    result = check(0, "impossible", 1)
    assert result.success and result.critical_success and result.margin == -1


def test_natural_ten_always_fails_even_when_easy():
    result = check(9, "easy", 10)
    assert result.effective == 18
    assert not result.success and result.critical_failure


def test_affinity_widens_the_critical_range_but_never_to_ten():
    assert check(1, "normal", 3, critical_range=3).critical_success
    assert check(1, "normal", 3, critical_range=3).success
    assert not check(1, "normal", 4, critical_range=3).success
    assert not check(20, "normal", 10, critical_range=15).success


def test_bonus_is_added_to_the_effective_skill():
    result = check(7, "difficult", 5, bonus=2)
    assert result.effective == 5 and result.success


def test_unknown_difficulty_names_the_choices():
    with pytest.raises(Exception, match="easy, normal, difficult, impossible, critical"):
        Difficulty.parse("heroic")


def test_roll_check_draws_one_d10():
    with ScriptedDice([(10, 4)]) as dice:
        assert roll_check("Dodge", 5, Difficulty.NORMAL, dice).margin == 1


def test_contest_outcomes():
    hit_by_margin = contest(check(7, "normal", 3), check(5, "normal", 4))  # the seed's first strike
    assert hit_by_margin == "hit"
    assert contest(check(3, "normal", 2), check(5, "normal", 2)) == "defended"  # the aimed strike, defended
    assert contest(check(7, "normal", 8), check(5, "normal", 1)) == "miss"
    assert contest(check(7, "normal", 7), check(5, "normal", 9)) == "hit"  # defender fails
    assert contest(check(7, "normal", 7), None) == "hit"
    assert contest(check(7, "normal", 5), check(5, "normal", 3)) == "tie"
