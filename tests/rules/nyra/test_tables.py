"""Every shipped data row validates; a malformed row's error names the file, the row and the field."""

import pytest

from rules.errors import ValidationError
from rules.systems.nyra.creatures import load_creatures, parse_creatures
from rules.systems.nyra.tables import (
    load_tables,
    parse_armour_file,
    parse_hones,
    parse_location_tables,
    parse_materials,
    parse_weapons_file,
    read_toml,
)
from rules.systems.nyra.weapons import DamageType


def test_every_shipped_table_loads():
    tables = load_tables()
    assert {"Short Sword", "Nodachi", "Claymore", "Carnifex"} <= set(tables.weapons)
    assert set(tables.materials) == {"Oscite"} and tables.hones["Hone III"].bonus == 3
    assert {"humanoid", "quadruped", "winged"} <= set(tables.location_tables)
    assert tables.armour
    creatures = load_creatures()
    assert {"Duelist", "Wolf"} <= set(creatures)
    for sheet in creatures.values():  # each creature's table and armour locations resolve
        for piece in sheet.armour:
            assert all(loc in sheet.table().locations for loc in piece.locations)


def test_seed_weapons_as_listed():
    tables = load_tables()
    short = tables.weapon("Short Sword")
    assert [str(short.damage_for(t)) if short.damage_for(t) else "N/A" for t in DamageType] == [
        "2d6+2",
        "2d6",
        "3d6",
        "N/A",
    ]
    assert (short.delay, short.modifier) == (3, "STR")
    nodachi = tables.weapon("Nodachi")
    assert (str(nodachi.damage_for(DamageType.S)), nodachi.delay, nodachi.modifier) == ("3d10+4", 5, "AGI")
    claymore = tables.weapon("Claymore")
    assert (str(claymore.damage_for(DamageType.C)), claymore.modifier, claymore.energy_cost) == (
        "2d10",
        "STR",
        7,
    )


def test_malformed_weapon_row_names_file_row_and_field():
    raw = read_toml("weapons.toml")
    raw["weapon"][1] = {**raw["weapon"][1], "delay": "slow", "damage": {"P": "2d"}}
    with pytest.raises(ValidationError) as err:
        parse_weapons_file(raw, load_tables().materials, load_tables().hones)
    paths = [p.path for p in err.value.problems]
    assert "weapons.toml: weapon[1].delay" in paths
    assert "weapons.toml: weapon[1].damage.P" in paths
    assert "weapons.toml" in str(err.value)


def test_crafted_row_with_unknown_material_and_duplicate_name():
    raw = read_toml("weapons.toml")
    raw["crafted"].append({"name": "Short Sword", "base": "Nodachi", "material": "Adamant"})
    with pytest.raises(ValidationError) as err:
        parse_weapons_file(raw, load_tables().materials, load_tables().hones)
    text = str(err.value)
    assert "crafted[1].material" in text and "repeats the name `Short Sword`" in text


def test_location_table_must_cover_the_die_once():
    raw = {
        "table": [
            {
                "name": "bad",
                "die": 4,
                "row": [
                    {"faces": [1, 2], "location": "Head", "kind": "head"},
                    {"face": 2, "location": "Body", "kind": "torso"},
                ],
            }
        ]
    }
    with pytest.raises(ValidationError, match=r"table\[0\]\.row\[1\]\.kind"):
        parse_location_tables(raw)
    raw["table"][0]["row"][1]["kind"] = "chest"
    with pytest.raises(ValidationError, match=r"cover 1\.\.4 exactly once"):
        parse_location_tables(raw)


def test_bad_material_hone_armour_and_creature_rows():
    with pytest.raises(ValidationError, match=r"material\[0\]\.P"):
        parse_materials({"material": [{"name": "Glass", "P": "sharp"}]})
    with pytest.raises(ValidationError, match=r"hone\[0\]\.bonus"):
        parse_hones({"hone": [{"name": "Hone IX"}]})
    with pytest.raises(ValidationError, match=r"armour\[0\]\.S"):
        parse_armour_file({"armour": [{"name": "Tin", "locations": ["Head"], "S": -1}]})
    with pytest.raises(ValidationError, match=r"creature\[0\]\.stats\.AGI"):
        parse_creatures({"creature": [{"name": "Blob", "stats": {"STR": 1, "CON": 1}}]})
