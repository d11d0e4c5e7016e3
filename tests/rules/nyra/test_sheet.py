"""The Nyra sheet: validation with every problem's path, the exact dict round trip, /character set."""

import json

import pytest

from rules.errors import InvalidInput, NotFound, ValidationError
from rules.systems.nyra import sheet as sheets
from rules.systems.nyra.sheet import NyraSheet, validate_sheet
from rules.systems.nyra.weapons import DamageType

from .helpers import sheet


def _full_sheet() -> NyraSheet:
    s = sheet(
        "Ayla",
        skills={"Swords": 7, "Dodge": 5},
        weapons=["Short Sword", "Carnifex"],
        sequence=4,
        energy=38,
        armour=["Iron Helm"],
        location_health={"Left Arm": {"serious": 25}},
        notes="left-handed",
    )
    s = sheets.set_field(s, "MAG", "3")
    return sheets.wear_armour(s, "Greaves", "left leg")


def test_round_trip_is_exact_through_json():
    s = _full_sheet()
    raw = json.loads(json.dumps(s.to_dict()))
    again = NyraSheet.from_dict(raw)
    assert again == s
    assert again.to_dict() == s.to_dict()


def test_validation_collects_every_problem_with_its_path():
    raw = {
        "name": "",
        "stats": {"STR": 0, "AGI": "fast", "LUCK": 3},
        "skills": {"Swords": -1},
        "sequence": 11,
        "weapons": [
            "Laser Sword",
            {"name": "Stick", "skill": "Clubs", "modifier": "XYZ", "delay": -1, "damage": {"B": "2x6"}},
        ],
        "armour": [{"name": "Cap", "locations": ["Tail"]}],
        "location_health": {"Head": {"serious": 0}, "Wing": {"slight": 3}},
        "colour": "red",
    }
    with pytest.raises(ValidationError) as err:
        validate_sheet(raw)
    paths = {p.path for p in err.value.problems}
    assert {
        "name",
        "stats.STR",
        "stats.AGI",
        "stats.LUCK",
        "stats.CON",
        "skills.Swords",
        "sequence",
        "weapons[0]",
        "weapons[1].modifier",
        "weapons[1].delay",
        "weapons[1].damage.B",
        "armour[0].locations[0]",
        "location_health.Head.serious",
        "location_health.Wing",
        "colour",
    } <= paths


def test_override_order_must_hold():
    with pytest.raises(ValidationError, match=r"location_health\.Head"):
        sheet(location_health={"Head": {"slight": 50}})


def test_set_field_stats_case_insensitive_and_skills_by_any_name():
    s = sheet("S")
    assert sheets.set_field(s, "str", "9").stats["STR"] == 9
    assert sheets.set_field(s, "Agi", "4").stat("AGI") == 4
    assert sheets.set_field(s, "Swords 8").skill("swords") == 8
    assert sheets.set_field(s, "swords", "6").skills == {"Swords": 6}  # keeps the existing spelling
    assert sheets.set_field(s, "Axes", "3").skill("Axes") == 3
    assert "Swords" not in sheets.set_field(s, "swords", "none").skills
    assert sheets.set_field(s, "sequence", "7").sequence == 7
    assert sheets.set_field(sheets.set_field(s, "sequence", "7"), "sequence", "auto").sequence is None
    assert sheets.set_field(s, "energy", "30").energy == 30
    assert sheets.set_field(s, "Left Arm serious", "25").health("Left Arm").serious == 25
    assert sheets.set_field(s, "health.head.slight", "5").health("Head").slight == 5
    assert sheets.set_field(s, "location_table", "quadruped").table().die == 10
    assert s.stats["STR"] == 7 and s.skills == {"Swords": 7}  # never mutated


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("STR", "strong", InvalidInput),
        ("sequence", "11", InvalidInput),
        ("Swords", "-2", InvalidInput),
        ("Climbing", "none", NotFound),
        ("location_table", "dragon", NotFound),
        ("", "3", InvalidInput),
    ],
)
def test_set_field_refuses_bad_values(field, value, error):
    with pytest.raises(error):
        sheets.set_field(sheet("S"), field, value)


def test_fields_lists_stats_skills_and_health_for_autocomplete():
    f = sheets.fields(sheet("S", skills={"Swords": 7, "Knots": 2}))
    assert {
        "STR",
        "AGI",
        "CON",
        "MAG",
        "sequence",
        "energy",
        "Swords",
        "Knots",
        "Dodge",
        "Head slight",
    } <= set(f)
    wolf = sheets.fields(sheets.set_field(sheet("W"), "location_table", "quadruped"))
    assert "Tail critical" in wolf and "Left Arm slight" not in wolf


def test_weapons_and_armour_helpers():
    s = sheets.add_weapon(sheet("S"), "nodachi")
    assert [w.name for w in s.weapons] == ["Short Sword", "Nodachi"]
    with pytest.raises(InvalidInput):
        sheets.add_weapon(s, "Nodachi")
    assert [w.name for w in sheets.remove_weapon(s, "short sword").weapons] == ["Nodachi"]
    with pytest.raises(NotFound):
        sheets.add_weapon(s, "Laser")
    worn = sheets.wear_armour(s, "Chain Hauberk")
    assert worn.armour_value("Left Arm", DamageType.S) == (("Chain Hauberk", 5),)
    wolf = sheets.set_field(s, "location_table", "quadruped")
    with pytest.raises(InvalidInput, match="give a location"):
        sheets.wear_armour(wolf, "Chain Hauberk")
    assert sheets.wear_armour(wolf, "Chain Hauberk", "body").armour[0].locations == ("Body",)
    assert sheets.remove_armour(worn, "chain hauberk").armour == ()


def test_new_sheet_and_check():
    from rules.dice import ScriptedDice

    s = sheets.set_field(sheets.new_sheet("Fresh"), "Swords", "6")
    assert s.stats == {"STR": 5, "AGI": 5, "CON": 5}
    with ScriptedDice([(10, 3)]) as dice:
        out = sheets.check(s, "swords", "difficult", 0, dice)
    made = out.events[0]
    assert (made.check.skill_name, made.check.effective, made.check.success) == ("Swords", 3, True)
    with ScriptedDice([(10, 6)]) as dice:
        assert sheets.check(s, "agi", "normal", 0, dice).events[0].check.margin == -1
    with pytest.raises(InvalidInput, match="no stat or skill"):
        sheets.check(s, "Lockpicking", "normal", 0, ScriptedDice([]))


def test_a_weapon_keyed_to_a_stat_the_sheet_lacks_is_refused():
    raw = sheet("S").to_dict()
    raw["weapons"][0]["modifier"] = "MAG"
    with pytest.raises(ValidationError, match=r"weapons\[0\]\.modifier: uses MAG"):
        validate_sheet(raw)
    raw["stats"]["MAG"] = 4
    assert validate_sheet(raw).weapons[0].modifier == "MAG"


@pytest.mark.parametrize("value", ["²", "+²", "①", "--3", "+-3", "3_0"])
def test_a_number_written_as_text_that_int_cannot_read_is_a_problem_not_a_crash(value):
    # str.isdigit() accepts superscripts and circled digits that int() rejects (an imported sheet, fuzzed)
    with pytest.raises(ValidationError) as err:
        validate_sheet({"name": "Ayla", "stats": {"STR": value, "AGI": 5, "CON": 5}})
    assert [p.path for p in err.value.problems] == ["stats.STR"]


def test_numbers_written_as_text_in_any_decimal_script_still_read():
    assert validate_sheet({"name": "Ayla", "stats": {"STR": " +7 ", "AGI": "٥", "CON": "5"}}).stats == {
        "STR": 7,
        "AGI": 5,
        "CON": 5,
    }
