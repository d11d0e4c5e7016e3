"""Crafting (seed "Base Weapon Damage"): the Carnifex from a Nodachi, Oscite, +5 roll-under and Hone III."""

import dataclasses

from rules.systems.nyra.crafting import apply_hone, base_flat_damage, craft, flat_breakdown
from rules.systems.nyra.tables import load_tables
from rules.systems.nyra.weapons import DamageType, Hone


def test_base_flat_damage_sum_is_15_not_18():
    assert base_flat_damage(4, 3, 5, 3) == 15


def test_carnifex_reads_2d10_plus_15_and_3d10_plus_15():
    carnifex = load_tables().weapon("Carnifex")
    assert str(carnifex.damage_for(DamageType.P)) == "2d10+15"
    assert str(carnifex.damage_for(DamageType.S)) == "3d10+15"
    assert carnifex.damage_for(DamageType.C) is None and carnifex.damage_for(DamageType.B) is None
    assert (carnifex.delay, carnifex.modifier, carnifex.based_on) == (5, "AGI", "Nodachi")
    assert carnifex.traits == ("Swiftness", "Impact", "Mastercraft")
    assert flat_breakdown(carnifex, DamageType.S) == {"listed": 4, "material": 3, "roll_under": 5, "hone": 3}


def test_oscite_contributions_per_type():
    oscite = load_tables().material("Oscite")
    assert {t.value: oscite.for_type(t) for t in DamageType} == {"P": 3, "S": 3, "C": 1, "B": -3}


def test_a_new_hone_replaces_the_old_one():
    carnifex = load_tables().weapon("Carnifex")
    rehoned = apply_hone(carnifex, Hone("Hone I", 1))
    assert str(rehoned.damage_for(DamageType.S)) == "3d10+13"
    assert str(apply_hone(rehoned, load_tables().hone("Hone III")).damage_for(DamageType.S)) == "3d10+15"


def test_crafting_a_blunt_capable_weapon_applies_the_negative_material():
    sword = load_tables().weapon("Short Sword")
    mace = dataclasses.replace(sword, listed={**sword.listed, DamageType.B: sword.listed[DamageType.S]})
    crafted = craft(mace, name="Oscite Mace", material=load_tables().material("Oscite"))
    assert str(crafted.damage_for(DamageType.B)) == "2d6-3"
    assert str(crafted.damage_for(DamageType.C)) == "3d6+1"


def test_weapon_dict_round_trip_keeps_the_crafting():
    carnifex = load_tables().weapon("Carnifex")
    assert type(carnifex).from_dict(carnifex.to_dict()) == carnifex
