import pytest

from rules.dice import ScriptedDice
from rules.systems.d6.damage import roll_damage, scaling_dice
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Weapon

from .helpers import HOUSE, SHORT_SWORD

MACE = Weapon("mace", DieCode(2), "agility", "blunt")
LONGBOW = Weapon("longbow", DieCode(2, 1), "agility", "ranged", 2)
CROSSBOW = Weapon("crossbow", DieCode(3), "coordination", "crossbow", 2)
FIREBOLT = Weapon("firebolt", DieCode(2), "coordination", "magic")


def dmg(weapon, physique, ar, script, **kw):
    with ScriptedDice(script) as dice:
        return roll_damage("a", "t", weapon, DieCode.parse(physique), ar, dice, kw.pop("house", HOUSE), **kw)


def test_seed_tassadar_short_sword_4_against_padded_leather_4_does_nothing_and_draws_no_scaling():
    out = dmg(SHORT_SWORD, "3D", 4, [2])  # 1D+2 showing 2 → 4
    assert (out.natural, out.amount, out.scaling) == (4, 0, None)
    assert [d.value for d in out.dice] == [2]
    assert "does not exceed AR 4" in out.rule


def test_cutting_that_beats_armour_adds_scaling_and_subtracts_ar():
    out = dmg(SHORT_SWORD, "3D", 4, [3, 4, 1])  # 5 > 4; scaling 2D: 4 + 1
    assert (out.natural, out.scaling, out.amount) == (5, 5, 6)
    assert [d.label for d in out.dice] == ["a damage wild", "a scaling", "a scaling"]


@pytest.mark.parametrize(
    ("physique", "melee", "ranged"),
    [("1D", 1, 0), ("2D", 1, 1), ("3D", 2, 1), ("4D", 2, 1), ("5D", 3, 2), ("6D+2", 3, 2), ("0D+2", 0, 0)],
)
def test_scaling_dice_round_half_up_seed_physique_2d_ranged_is_1d(physique, melee, ranged):
    code = DieCode.parse(physique)
    assert scaling_dice(SHORT_SWORD, code) == DieCode(melee)
    assert scaling_dice(LONGBOW, code) == DieCode(ranged)
    assert scaling_dice(CROSSBOW, code) == DieCode(0)
    assert scaling_dice(FIREBOLT, code, DieCode(1, 1)) == DieCode(1, 1)


def test_no_armour_is_natural_plus_scaling():
    out = dmg(MACE, "2D", 0, [1, 2, 6])  # natural 3 (wild 2), scaling 1D: 6
    assert out.amount == 9 and out.rule.startswith("no armour")


def test_blunt_halves_natural_plus_scaling_when_natural_does_not_break_through():
    out = dmg(MACE, "4D", 7, [3, 3, 5, 6])  # natural 6 ≤ 7; scaling 2D 11; ⌊17/2⌋ − 7 = 1
    assert out.amount == 1 and out.rule.startswith("blunt")


def test_blunt_that_cannot_pass_even_with_max_scaling_draws_no_scaling():
    out = dmg(MACE, "1D", 10, [1, 1])  # natural 2; best ⌊(2 + 6)/2⌋ = 4 ≤ 10
    assert out.amount == 0 and out.scaling is None and len(out.dice) == 2


def test_ranged_first_as_cutting_then_as_blunt():
    cut = dmg(LONGBOW, "3D", 3, [2, 2, 4])  # natural 5 > 3 → 5 + 4 − 3
    assert cut.amount == 6
    blunt = dmg(LONGBOW, "3D", 5, [1, 2])  # natural 4 ≤ 5; even ⌊(4 + 6)/2⌋ = 5 cannot pass: no scaling die
    assert blunt.amount == 0 and blunt.rule.startswith("projectile as blunt") and blunt.scaling is None
    blunt2 = dmg(LONGBOW, "3D", 3, [1, 1, 6])  # natural 3 ≤ 3 → ⌊9/2⌋ − 3 = 1
    assert blunt2.amount == 1
    bolt = dmg(CROSSBOW, "5D", 9, [3, 3, 3])  # natural 9 ≤ 9, no scaling → 0
    assert bolt.amount == 0 and bolt.scaling is None


def test_critical_effects():
    doubled = dmg(SHORT_SWORD, "1D", 0, [3, 4, 2], critical=True)  # 2D+2: 3 + 4 + 2; scaling 1D: 2
    assert doubled.natural_code == DieCode(2, 2) and doubled.amount == 11
    assert doubled.critical_effect == "double_natural_dice"
    twice = dmg(
        SHORT_SWORD, "1D", 0, [3, 2], critical=True, house=HouseRules(critical_effect="double_damage")
    )
    assert twice.amount == 14
    plain = dmg(SHORT_SWORD, "1D", 0, [3, 2], critical=True, house=HouseRules(critical_effect="none"))
    assert plain.amount == 7 and plain.critical


def test_magic_uses_gm_scaling_and_may_ignore_armour():
    out = dmg(FIREBOLT, "5D", 20, [3, 3, 4], magic_scaling=DieCode(1), ignore_armour=True)
    assert out.amount == 10 and out.armour == 0
