"""The shipped tables against the seed's numbers, and what a broken row says."""

import tomllib

import pytest

from rules.errors import InvalidInput, NotFound, ValidationError
from rules.systems.kaernest import creatures, tables


def test_battle_axe_row_matches_the_seed():
    # Seed: | Axe, Battle | 10/8 | 1/2 | 4/5 | 8/9 | -- | -- |
    axe = tables.weapon("axe, battle")
    assert axe.grips == (1, 2)
    assert (axe.speed(1), axe.speed(2)) == (10, 8)
    assert (axe.damage("bludgeon", 1), axe.damage("bludgeon", 2)) == (4, 5)
    assert (axe.damage("cut", 1), axe.damage("cut", 2)) == (8, 9)
    assert axe.damage_types() == ("bludgeon", "cut")
    with pytest.raises(InvalidInput, match="no pierce damage"):
        axe.damage("pierce", 1)


def test_short_sword_row_matches_the_seed():
    # Seed: | Sword, Short* | 5 | 1 | 2 | 3 | 5 | 3 |
    sword = tables.weapon("Sword, Short")
    assert sword.grips == (1,) and sword.speed(1) == 5
    assert [sword.damage(t, 1) for t in tables.DAMAGE_TYPES] == [2, 3, 5, 3]
    assert "flat of the blade" in sword.note
    with pytest.raises(InvalidInput, match="1h"):
        sword.speed(2)


def test_single_cells_apply_to_both_grips_and_pairs_split():
    # Seed: | Sword, Broad/Long* | 6/5 | 1/2 | 3 | 6/7 | 5/6 | 4 |  and  | Flail | 11/9 | 1/2 | 10 | ...
    long = tables.weapon("Sword, Broad/Long")
    assert [long.damage(t, 1) for t in tables.DAMAGE_TYPES] == [3, 6, 5, 4]
    assert [long.damage(t, 2) for t in tables.DAMAGE_TYPES] == [3, 7, 6, 4]
    flail = tables.weapon("Flail")
    assert (flail.speed(1), flail.speed(2), flail.damage("bludgeon", 1), flail.damage("bludgeon", 2)) == (
        11,
        9,
        10,
        10,
    )


def test_two_handed_only_and_dagger_rows():
    great = tables.weapon("Axe, Great")
    assert great.grips == (2,) and great.speed(2) == 10 and great.damage("cut", 2) == 12
    dagger = tables.weapon("Dagger/Knife")
    assert dagger.damage_types() == ("cut", "pierce", "slash")
    assert [dagger.damage(t, 1) for t in ("cut", "pierce", "slash")] == [1, 3, 2]


def test_every_seed_weapon_is_there_in_order():
    assert [w.name for w in tables.weapons()] == [
        "Axe, Battle", "Axe, Great", "Axe, Hand", "Club, Great", "Club (Common)", "Club, War", "Dagger/Knife",
        "Flail", "Glaive", "Hammer", "Mace", "Pick", "Poleaxe", "Sword, Bastard", "Sword, Broad/Long",
        "Sword, Great", "Sword, Short",
    ]  # fmt: skip


def test_armour_rows_match_the_seed():
    # Seed: | Articulated Plate | 3 | 12 | 2 | 2 | 50lbs | traditional "knights armour" |
    plate = tables.armour("articulated plate")
    assert (plate.reflex_penalty, plate.physical, plate.energy, plate.arcane, plate.weight) == (
        3,
        12,
        2,
        2,
        "50lbs",
    )
    assert plate.weight_lbs == 50 and plate.notes == 'traditional "knights armour"'
    # Seed: | Hardened Leather | 1 | 5 | 5 | 1 | 20lbs | ...   | Padded Leather | 0 | 3 | 4 | 1 | 10lbs | |
    leather = tables.armour("Hardened Leather")
    assert (leather.reflex_penalty, leather.physical, leather.energy, leather.arcane, leather.weight_lbs) == (
        1,
        5,
        5,
        1,
        20,
    )
    padded = tables.armour("Padded Leather")
    assert (padded.reflex_penalty, padded.physical, padded.energy, padded.arcane, padded.notes) == (
        0,
        3,
        4,
        1,
        "",
    )
    assert len(tables.armours()) == 9


def test_unknown_names_are_not_found():
    with pytest.raises(NotFound, match="Spoon"):
        tables.weapon("Spoon")
    with pytest.raises(NotFound):
        tables.armour("Mithril")


def test_a_malformed_weapon_row_names_file_row_and_field():
    raw = tomllib.loads(
        """
        [[weapon]]
        name = "Axe, Battle"
        speed = "10/8"
        handed = "1/2"
        bludgeon = "4/5"
        cut = "8/9"
        pierce = "--"
        slash = "--"
        skill = "Axes"

        [[weapon]]
        name = "Broken"
        speed = "ten"
        handed = "1"
        bludgeon = "4/5"
        cut = 3
        skill = "Axes"
        """
    )
    with pytest.raises(ValidationError) as err:
        tables.parse_weapons(raw, "weapons.toml")
    paths = [p.path for p in err.value.problems]
    assert paths == [
        "weapon[1].speed",
        "weapon[1].bludgeon",
        "weapon[1].cut",
        "weapon[1].pierce",
        "weapon[1].slash",
    ]
    assert str(err.value).startswith("weapons.toml is not valid: weapon[1].speed:")


def test_a_malformed_armour_row_names_its_fields():
    raw = {
        "armour": [
            {"name": "Tin", "reflex_penalty": -1, "physical": 2, "energy": 1, "arcane": 0, "weight": "heavy"}
        ]
    }
    with pytest.raises(ValidationError) as err:
        tables.parse_armour(raw, "armour.toml")
    assert [p.path for p in err.value.problems] == ["armour[0].reflex_penalty", "armour[0].weight"]


def test_duplicate_names_are_refused():
    row = {"name": "Tin", "reflex_penalty": 0, "physical": 2, "energy": 1, "arcane": 0, "weight": "5lbs"}
    with pytest.raises(ValidationError, match=r"armour\[1\].name"):
        tables.parse_armour({"armour": [row, {**row, "name": "TIN"}]})


def test_creature_templates_are_valid_npc_sheets():
    names = [c.name for c in creatures.creatures()]
    assert "Bandit" in names and "Berserker" in names
    sheet, posture = creatures.from_template("berserker", "Berserker 2")
    assert sheet.npc and sheet.name == "Berserker 2" and posture == "aggressive"
    assert sheet.skill("axes") == 7


def test_a_bad_creature_row_names_row_and_field():
    raw = {"creature": [{"name": "Ghost", "health": 0, "armour": "Ectoplasm", "posture": "floaty"}]}
    with pytest.raises(ValidationError) as err:
        creatures.parse_creatures(raw)
    assert [p.path for p in err.value.problems] == [
        "creature[0].posture",
        "creature[0].health",
        "creature[0].armour",
    ]
