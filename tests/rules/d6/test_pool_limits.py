from rules.dice import ScriptedDice
from rules.systems.d6.pool import MAX_WILD_EXPLOSIONS, DieCode, roll_pool


def test_wild_die_explosions_stop_at_the_limit():
    sixes = [6] * (1 + MAX_WILD_EXPLOSIONS)  # the Wild Die and every re-roll show 6
    with ScriptedDice(sixes) as dice:
        result = roll_pool(DieCode(1), dice, explode="full")
    assert len(result.explosions) == MAX_WILD_EXPLOSIONS
    assert result.total == 6 * (1 + MAX_WILD_EXPLOSIONS)
