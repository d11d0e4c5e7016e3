from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import RandomDice, ScriptedDice
from rules.systems.d6.checks import pool_roll
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode, roll_pool


def test_seed_wild_die_bonus_of_5_adds_2():
    # Seed: "you roll a 5 for your bonus wild dice roll ... 5/2 = 2.5, rounded down is +2".
    with ScriptedDice([3, 6, 5]) as dice:
        roll = roll_pool(DieCode(2), dice)
    assert (roll.wild_bonus, roll.total) == (2, 3 + 6 + 2)
    with ScriptedDice([3, 6, 5]) as dice:
        assert roll_pool(DieCode(2), dice, explode="full").total == 14


def test_pool_roll_uses_the_channel_house_rules():
    with ScriptedDice([4, 1]) as dice:
        rolled = pool_roll("2D+1", dice, HouseRules(wild_one="drop"))
    assert rolled.total == 1 and [d.value for d in rolled.roll.dropped] == [1, 4]
    with ScriptedDice([6, 6, 3]) as dice:
        assert pool_roll("1D", dice, HouseRules()).total == 6 + (6 + 3) // 2


@settings(derandomize=True, max_examples=150, deadline=None)
@given(
    dice_count=st.integers(0, 8),
    pips=st.integers(0, 2),
    seed=st.integers(0, 10_000),
    explode=st.sampled_from(["halved", "full"]),
    wild_one=st.sampled_from(["complication", "drop", "none"]),
)
def test_total_is_kept_dice_plus_wild_bonus_plus_pips(dice_count, pips, seed, explode, wild_one):
    roll = roll_pool(DieCode(dice_count, pips), RandomDice(seed), explode=explode, wild_one=wild_one)
    dropped = {id(d) for d in roll.dropped}
    kept = [d.value for d in (*roll.normal, *((roll.wild,) if roll.wild else ())) if id(d) not in dropped]
    assert roll.total == sum(kept) + roll.wild_bonus + pips
    extra = sum(d.value for d in roll.explosions)
    assert roll.wild_bonus == (extra // 2 if explode == "halved" else extra)
    assert len(roll.dice) == dice_count + len(roll.explosions)
