import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput
from rules.systems.kaernest.check import check
from rules.systems.kaernest.roll import roll_2d12

from .helpers import HOUSE, fighter


def roll(target, a, b):
    with ScriptedDice([(12, a), (12, b)]) as dice:
        return roll_2d12(dice, target)


def test_success_is_at_most_the_target_and_margin_is_target_minus_roll():
    r = roll(14, 6, 7)
    assert (r.total, r.success, r.margin, r.critical) == (13, True, 1, False)
    r = roll(12, 6, 7)
    assert (r.success, r.margin, r.critical_failure) == (False, -1, False)


def test_exactly_the_target_is_a_critical_success():
    r = roll(13, 6, 7)
    assert r.success and r.critical and r.margin == 0


def test_failing_by_twelve_is_a_critical_failure_eleven_is_not():
    assert roll(12, 12, 12).critical_failure  # 24 - 12 = 12
    assert not roll(13, 12, 12).critical_failure  # by 11


def test_check_is_attribute_plus_skill_plus_bonus_minus_wounds():
    sheet = fighter("Mico", grace=6, skills={"Stealth": 4})
    with ScriptedDice([5, 6]) as dice:
        event = check(sheet, "grace", dice, HOUSE, skill="stealth", bonus=2, wound_penalty=1)
    assert [(m.label, m.value) for m in event.modifiers] == [
        ("Grace", 6),
        ("stealth", 4),
        ("bonus", 2),
        ("wounds", -1),
    ]
    assert (event.target, event.total, event.success, event.critical) == (11, 11, True, True)
    assert [d.value for d in event.dice] == [5, 6]


def test_check_refuses_an_unknown_stat_before_rolling():
    with pytest.raises(InvalidInput, match="neither"):
        check(fighter("Mico"), "charm", ScriptedDice([]), HOUSE)
