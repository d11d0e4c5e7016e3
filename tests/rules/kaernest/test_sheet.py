import json

import pytest

from rules.errors import InvalidInput, NotFound, ValidationError
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest.sheet import Sheet


def full_sheet() -> Sheet:
    return Sheet(
        name="Izuki",
        grace=8,
        muscle=9,
        reflex=9,
        instinct=7,
        health=6,
        luck=2,
        skills=(("Swords", 6), ("Parry", 4)),
        armour="Chain Shirt",
        weapons=("Sword, Bastard", "Dagger/Knife"),
        initiative_modifier=-1,
        defense_skill="Parry",
        npc=False,
        notes="a Warri",
    )


def test_round_trip_through_json_is_exact():
    sheet = sheets.validate(full_sheet())
    raw = json.loads(json.dumps(sheet.to_dict()))
    assert sheets.from_dict(raw) == sheet
    assert sheets.from_dict(raw).to_dict() == raw


def test_skills_are_kept_sorted_so_equal_sheets_compare_equal():
    assert Sheet("A", skills=(("b", 1), ("A", 2))).skills == (("A", 2), ("b", 1))


def test_every_problem_is_collected_with_its_path():
    raw = {
        "name": "",
        "grace": 31,
        "health": 0,
        "luck": "lots",
        "skills": {"Swords": -1, "GRACE": 3},
        "armour": "Mithril",
        "weapons": ["Sword, Short", "Spoon"],
        "initiative_modifier": 99,
        "colour": "red",
    }
    with pytest.raises(ValidationError) as err:
        sheets.from_dict(raw)
    assert [p.path for p in err.value.problems] == [
        "colour",
        "name",
        "grace",
        "health",
        "luck",
        "skills.GRACE",
        "skills.Swords",
        "armour",
        "weapons[1]",
        "initiative_modifier",
    ]


def test_names_from_the_tables_are_case_insensitive_and_stored_as_the_table_spells_them():
    sheet = sheets.from_dict({"name": "Mico", "armour": "chain shirt", "weapons": ["sword, short"]})
    assert sheet.armour == "Chain Shirt" and sheet.weapons == ("Sword, Short",)


def test_set_field_attribute_any_case_and_skills_by_name():
    sheet = full_sheet()
    assert sheets.set_field(sheet, "GRACE", "5").grace == 5
    assert sheets.set_field(sheet, "swords", "7").skill("Swords") == 7
    assert sheets.set_field(sheet, "swords", "7").skills == (("Parry", 4), ("Swords", 7))
    assert sheets.set_field(sheet, "Dodge", "3").skill("dodge") == 3
    assert not sheets.set_field(sheet, "parry", "none").has_skill("Parry")
    assert sheets.set_field(sheet, "armor", "padded armour").armour == "Padded Armour"
    assert sheets.set_field(sheet, "armour", "none").armour is None
    assert sheets.set_field(sheet, "aptitudes", "2").initiative_modifier == 2
    assert sheets.set_field(sheet, "npc", "yes").npc is True
    assert sheets.set_field(sheet, "weapons", "mace, pick").weapons == ("Mace", "Pick")


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("Grace", "seven", InvalidInput),
        ("Health", "0", InvalidInput),
        ("Swords", "31", InvalidInput),
        ("armour", "mithril", NotFound),
        ("npc", "perhaps", InvalidInput),
        ("", "3", InvalidInput),
    ],
)
def test_set_field_refuses_bad_values(field, value, error):
    with pytest.raises(error):
        sheets.set_field(full_sheet(), field, value)


def test_weapons_are_added_once_and_removed():
    sheet = sheets.add_weapon(full_sheet(), "mace")
    assert sheet.weapons[-1] == "Mace"
    with pytest.raises(InvalidInput, match="already"):
        sheets.add_weapon(sheet, "Mace")
    assert "Mace" not in sheets.remove_weapon(sheet, "MACE").weapons


def test_field_names_for_autocomplete():
    names = sheets.field_names(full_sheet())
    assert names[:6] == ("Grace", "Muscle", "Reflex", "Instinct", "Health", "Luck")
    assert "armour" in names and "Swords" in names and "Dodge" in names and "Clubs/Maces" in names


def test_active_defense_skill_is_the_better_of_parry_and_dodge_unless_named():
    assert Sheet("A", skills=(("Dodge", 5), ("Parry", 3))).active_defense_skill() == ("Dodge", 5)
    assert Sheet("A", skills=(("Dodge", 3), ("Parry", 3))).active_defense_skill() == ("Parry", 3)
    assert Sheet("A", skills=(("Dodge", 5),), defense_skill="Parry").active_defense_skill() == ("Parry", 0)
