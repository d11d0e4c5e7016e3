import pytest

from rules.dice import QueuedDice, QueuedDiceMismatch, RandomDice, ScriptedDice, ScriptError, roll_many


def test_scripted_dice_return_values_in_order_and_record_them():
    with ScriptedDice([3, (10, 7)]) as dice:
        assert dice.roll(6).value == 3
        assert dice.roll(10).value == 7
    assert [d.value for d in dice.drawn] == [3, 7]


def test_scripted_dice_fail_on_unexpected_roll():
    dice = ScriptedDice([2])
    dice.roll(6)
    with pytest.raises(ScriptError, match="unexpected roll"):
        dice.roll(6)


def test_scripted_dice_fail_on_wrong_size():
    with pytest.raises(ScriptError, match="d10"):
        ScriptedDice([(10, 4)]).roll(6)
    with pytest.raises(ScriptError, match="does not fit"):
        ScriptedDice([9]).roll(6)


def test_scripted_dice_fail_on_leftover():
    with pytest.raises(ScriptError, match="never rolled"):
        with ScriptedDice([1, 2]) as dice:
            dice.roll(6)


def test_random_dice_are_reproducible_from_a_seed_and_in_range():
    a = [d.value for d in roll_many(RandomDice(seed=7), 50, 6)]
    b = [d.value for d in roll_many(RandomDice(seed=7), 50, 6)]
    assert a == b
    assert set(a) <= set(range(1, 7)) and len(set(a)) > 1


def test_queued_dice_come_first_marked_gm_then_fallback():
    dice = QueuedDice([4, 2], ScriptedDice([5]))
    drawn = [dice.roll(6) for _ in range(3)]
    assert [(d.value, d.origin) for d in drawn] == [(4, "gm"), (2, "gm"), (5, "script")]
    assert dice.remaining == ()


def test_queued_value_that_does_not_fit_is_refused_and_kept():
    dice = QueuedDice([9], RandomDice(1))
    with pytest.raises(QueuedDiceMismatch, match="d6"):
        dice.roll(6)
    assert dice.remaining == (9,)
