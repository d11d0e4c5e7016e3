"""Damage (RULES.md §1 "Damage"): the Claymore example, the Carnifex formula, criticals, armour, traits,
fumbles."""

import dataclasses

import pytest

from rules.errors import InvalidInput, NotAllowed
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.damage import damage_modifiers
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.tables import load_tables
from rules.systems.nyra.weapons import DamageType

from .helpers import HOUSE, combat, first, kinds, run, sheet


def _fight(attacker, defender, house=HOUSE):
    return combat(attacker, defender, ids=["a", "b"], house=house)


def test_claymore_example_7_and_10_plus_str_3_is_20_on_an_unarmoured_foe():
    user = sheet("User", STR=7, AGI=6, CON=7, skills={"Swords": 7}, weapons=["Claymore"], sequence=9)
    foe = sheet("Enemy", STR=6, AGI=6, CON=6, skills={}, sequence=1)
    # no Dodge/Defense: no reaction die. Location d6 4 = Right Arm by the table (the passage's "left" loses).
    out = run(
        strikes.strike, _fight(user, foe), strikes.StrikeArgs("a", "b", "C"), [3, (6, 4), (10, 7), (10, 10)]
    )
    assert first(out, "ContestRolled").reaction is None
    assert first(out, "LocationRolled").location == "Right Arm"
    damage = first(out, "DamageRolled")
    assert (damage.rolled_total, damage.gross, damage.armour_total, damage.dealt) == (17, 20, 0, 20)
    assert out.state.get("b").wound("Right Arm").value == "serious"  # 20 > slight 12, ≤ serious 24


def _carnifex_user(agi=7, skill=8):
    return sheet("Smith's Friend", AGI=agi, skills={"Swords": skill}, weapons=["Carnifex"], sequence=9)


def test_carnifex_effective_damage_formula():
    # [Base Weapon Damage] + 2×[Primary Mod] + ½[Base Rolled] + ½[Weapon Skill]
    foe = sheet("Foe", skills={}, sequence=1)
    out = run(
        strikes.strike,
        _fight(_carnifex_user(), foe),
        strikes.StrikeArgs("a", "b", "S", aim="Chest"),
        [4, 5, 6, 8],
    )
    damage = first(out, "DamageRolled")
    assert damage.weapon_damage == "3d10+15"
    rolled, primary, skill = 19, 3, 8
    assert damage.gross == rolled + 15 + 2 * primary + rolled // 2 + skill // 2 == 53
    assert [m.source for m in damage.modifiers] == [
        "base flat damage",
        "AGI mod",
        "Swiftness",
        "Impact",
        "Mastercraft",
    ]


def test_impact_and_mastercraft_round_down():
    carnifex = load_tables().weapon("Carnifex")
    mods = {m.source: m.value for m in damage_modifiers(carnifex, DamageType.P, 7, 7, 13)}
    assert mods["Impact"] == 6 and mods["Mastercraft"] == 3 and mods["Swiftness"] == 3


def test_unknown_traits_are_shown_with_no_effect():
    weapon = dataclasses.replace(load_tables().weapon("Short Sword"), traits=("Glowing",))
    mods = damage_modifiers(weapon, DamageType.C, 7, 7, 9)
    assert ("Glowing", 0) in [(m.source, m.value) for m in mods]
    assert sum(m.value for m in mods) == 3


def _crit_strike(house, script):
    user = sheet("A", skills={"Swords": 7}, sequence=9)
    foe = sheet("B", skills={}, sequence=1)
    return run(
        strikes.strike,
        _fight(user, foe, house),
        strikes.StrikeArgs("a", "b", "C", aim="Chest"),
        script,
        house,
    )


def test_critical_doubles_the_rolled_dice_not_the_flat_part():
    out = _crit_strike(HouseRules(), [1, 3, 4, 2])
    damage = first(out, "DamageRolled")
    assert damage.critical and damage.critical_rule == "double"
    assert damage.critical_bonus == 9 and damage.dealt == 9 * 2 + 3


def test_critical_roll_again_draws_more_dice_after_the_damage_dice():
    out = _crit_strike(HouseRules(critical_damage="roll_again"), [1, 3, 4, 2, 6, 6, 6])
    damage = first(out, "DamageRolled")
    assert damage.critical_bonus == 18 and damage.dealt == 9 + 18 + 3
    assert [d.label for d in damage.dice][-3:] == ["critical damage"] * 3


def test_critical_off_adds_nothing():
    assert first(_crit_strike(HouseRules(critical_damage="off"), [1, 3, 4, 2]), "DamageRolled").dealt == 12


def test_affinity_makes_a_two_critical():
    weapon = dataclasses.replace(load_tables().weapon("Short Sword"), traits=("Affinity",))
    user = dataclasses.replace(sheet("A", sequence=9), weapons=(weapon,))
    foe = sheet("B", skills={}, sequence=1)
    out = run(strikes.strike, _fight(user, foe), strikes.StrikeArgs("a", "b", "C", aim="Chest"), [2, 1, 1, 1])
    assert first(out, "ContestRolled").attack.critical_range == 2
    assert first(out, "DamageRolled").critical_bonus == 3


def test_armour_subtracts_per_type_and_never_below_zero():
    user = sheet("A", STR=1, sequence=9)
    foe = sheet("B", skills={}, sequence=1, armour=["Chain Hauberk", "Leather Jerkin"])
    out = run(strikes.strike, _fight(user, foe), strikes.StrikeArgs("a", "b", "S", aim="Chest"), [3, 1, 1])
    damage = first(out, "DamageRolled")
    assert damage.armour == (("Chain Hauberk", 5), ("Leather Jerkin", 2))
    assert damage.gross == 3 and damage.dealt == 0
    assert out.state.get("b").damage_at("Chest") == 0


def test_not_available_type_is_refused_naming_the_available_ones():
    user = sheet("A", sequence=9)
    state = _fight(user, sheet("B", sequence=1))
    with pytest.raises(NotAllowed, match=r"P \(Piercing\), S \(Slashing\), C \(Cleaving\)"):
        run(strikes.strike, state, strikes.StrikeArgs("a", "b", "B"), [])
    with pytest.raises(InvalidInput, match="not a damage type"):
        run(strikes.strike, state, strikes.StrikeArgs("a", "b", "laser"), [])


def test_unknown_aimed_location_is_refused():
    state = _fight(sheet("A", sequence=9), sheet("B", sequence=1))
    with pytest.raises(Exception, match="Left Arm"):
        run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C", aim="tail"), [])


def test_natural_ten_misses_and_costs_durability_when_tracked():
    house = HouseRules(track_durability=True)
    state = _fight(sheet("A", sequence=9), sheet("B", skills={"Dodge": 5}, sequence=1), house)
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C"), [10], house)
    assert first(out, "StrikeResolved").result == "miss"
    fumble = first(out, "WeaponFumbled")
    assert (fumble.tracked, fumble.durability_before, fumble.durability_after, fumble.penalty_due) == (
        True,
        100,
        95,
        True,
    )
    assert out.state.get("a").durability["Short Sword"] == 95
    assert "DamageRolled" not in kinds(out)


def test_natural_ten_untracked_only_tells_the_gm():
    state = _fight(sheet("A", sequence=9), sheet("B", sequence=1))
    out = run(strikes.strike, state, strikes.StrikeArgs("a", "b", "C"), [10])
    fumble = first(out, "WeaponFumbled")
    assert not fumble.tracked and fumble.loss == 0 and fumble.penalty_due
    assert out.state.get("a").durability == state.get("a").durability
