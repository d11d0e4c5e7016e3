import pytest

from rules.errors import NotFound, ValidationError
from rules.systems.d6 import tables
from rules.systems.d6.pool import DieCode


def test_every_shipped_row_validates_and_the_seed_items_are_there():
    weapons = tables.weapons()
    armour, shields = tables.armour_and_shields()
    creatures = tables.creatures()
    assert tables.weapon("Short Sword").damage == DieCode(1, 2)
    assert tables.armour("padded leather").ar == 4
    for name in (
        "dagger",
        "longsword",
        "greatsword",
        "mace",
        "warhammer",
        "spear",
        "longbow",
        "shortbow",
        "crossbow",
        "sling",
        "unarmed",
    ):
        assert name in weapons
    assert {"light", "medium", "heavy"} == {a.armour_class for a in armour.values()}
    assert shields and all(s.av > 0 for s in shields.values())
    assert {"bandit", "wolf", "thrall", "catboy"} <= set(creatures)
    bandit = tables.creature("bandit").sheet
    assert bandit.armour_ar == 4 and bandit.weapons[0].name == "short sword"
    assert bandit.skill("dodge") is not None
    for c in creatures.values():
        assert c.sheet.hp_max > 0 and c.sheet.weapons


def test_a_malformed_weapon_row_names_file_row_and_field():
    text = """
[[weapon]]
name = "ok"
damage = "1D"

[[weapon]]
name = "bad"
damage = "2X"
kind = "laser"
"""
    with pytest.raises(ValidationError) as err:
        tables.parse_weapons(text)
    paths = [p.path for p in err.value.problems]
    assert paths == ["weapons.toml weapon[1].damage", "weapons.toml weapon[1].kind"]
    assert str(err.value).startswith(
        "weapons.toml is not valid: weapons.toml weapon[1].damage: `2X` is not a die code"
    )


def test_malformed_armour_and_creature_rows():
    with pytest.raises(ValidationError) as err:
        tables.parse_armour('[[armour]]\nname = "tin"\nar = -1\nclass = "shiny"\n')
    assert [p.path for p in err.value.problems] == ["armour.toml armour[0].ar", "armour.toml armour[0].class"]
    armour, shields = tables.armour_and_shields()
    text = '[[creature]]\nname = "imp"\nhp = 0\nagility = "fast"\nweapons = ["wand"]\n'
    with pytest.raises(ValidationError) as err:
        tables.parse_creatures(text, tables.weapons(), armour, shields)
    paths = {p.path for p in err.value.problems}
    assert paths == {
        "creatures.toml creature[0].weapons[0]",
        "creatures.toml creature[0].agility",
        "creatures.toml creature[0].hp_max",
    }


def test_bad_toml_and_unknown_names():
    with pytest.raises(ValidationError, match="not valid TOML"):
        tables.parse_weapons("[[weapon]\n")
    with pytest.raises(NotFound, match="dagger"):
        tables.weapon("blaster")
    with pytest.raises(NotFound):
        tables.creature("dragon")
