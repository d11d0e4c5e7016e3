from fractions import Fraction

import pytest

from rules.systems.d6.critical import STAGE_PERCENT, column, crit_stage, percent, threshold
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Weapon

from .helpers import SHORT_SWORD, sheet

GREATSWORD = Weapon("greatsword", DieCode(3), "agility", "cutting", 2)
BOW = Weapon("shortbow", DieCode(1, 2), "coordination", "ranged", 2)


def test_stage_table_and_the_300_column_is_200_times_1_5():
    assert [STAGE_PERCENT[s] for s in range(-5, 6)] == [500, 400, 350, 300, 250, 200, 133, 100, 80, 66, 57]
    assert (
        percent(0, 300) == 300 and percent(1, 300) == Fraction(399, 2) and percent(5, 300) == Fraction(171, 2)
    )
    assert percent(9, 200) == 57 and percent(-9, 200) == 500  # clamped
    assert (column(SHORT_SWORD), column(GREATSWORD), column(BOW)) == (200, 300, 300)


@pytest.mark.parametrize(
    ("save", "stage", "col", "expected"),
    [
        (10, 0, 200, 20),  # the seed: natural 10, twice → 20
        (10, 0, 300, 30),
        (10, 1, 200, 14),  # 13.3 rounds up
        (10, 1, 300, 20),  # 19.95 rounds up
        (11, 4, 200, 8),  # 7.26 → 8
        (10, -5, 200, 50),
        (7, 5, 300, 6),  # 5.985 → 6
        (0, 0, 200, 0),
    ],
)
def test_threshold_is_rounded_up(save, stage, col, expected):
    assert threshold(save, stage, col) == expected


def test_stage_modifiers_melee_and_ranged_values():
    attacker = sheet(agility="5D", perception="6D")
    target = sheet(physique="6D", skills={"dodge": ("agility", "2D")})
    trained = Weapon("sword", DieCode(2), training=5)
    melee = crit_stage(
        attacker, trained, target, from_stealth=True, target_staggered=True, target_total_defense=True, gm=1
    )
    assert [(p.label, p.value) for p in melee.parts] == [
        ("Agility 5D", 2),
        ("Perception 6D", 1),
        ("from stealth", 2),
        ("target staggered", 2),
        ("target Physique 6D", -2),
        ("weapon training 5", 2),
        ("target dodge skill 2", -2),
        ("target in total defense", -2),
        ("GM", 1),
    ]
    assert melee.raw == 4 and melee.stage == 4
    ranged = crit_stage(
        attacker,
        Weapon("bow", DieCode(2), "agility", "ranged", 2, training=1),
        target,
        target_staggered=True,
        target_total_defense=True,
    )
    assert [(p.label, p.value) for p in ranged.parts] == [
        ("Agility 5D", 2),
        ("Perception 6D", 2),
        ("target staggered", 1),
        ("target Physique 6D", -4),
        ("target dodge skill 2", -4),
        ("target in total defense", -3),
    ]
    assert ranged.raw == -6 and ranged.stage == -5


def test_low_agility_lowers_the_stage_and_clamps_at_plus_5():
    assert crit_stage(sheet(agility="1D"), SHORT_SWORD, sheet()).stage == -2
    assert crit_stage(sheet(agility="9D"), SHORT_SWORD, sheet(), gm=3).stage == 5
