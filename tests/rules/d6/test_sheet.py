import pytest

from rules.errors import InvalidInput, ValidationError
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import ATTRIBUTES, Sheet, field_names, set_field, sheet_from_dict, validate

from .helpers import SHORT_SWORD, sheet


def full_sheet() -> Sheet:
    return sheet(
        "Orn",
        agility="4D",
        physique="2D+1",
        skills={"dodge": ("agility", "1D"), "swords": ("coordination", "2D+2")},
        hp_max=18,
        hp=-3,
        free_actions=2,
        parry_limit=3,
        dodge_limit=2,
        healing_level=1,
        restoration_level=2,
        shield_av=3,
        armour_ar=4,
        armour_class="medium",
        armour_name="padded leather",
        movement=8,
        dual_wield_trained=True,
        unarmed_trained=True,
        weapons=(SHORT_SWORD,),
    )


def test_round_trip_is_exact():
    s = full_sheet()
    raw = s.to_dict()
    assert Sheet.from_dict(raw) == s
    assert Sheet.from_dict(raw).to_dict() == raw
    assert raw["agility"] == "4D" and raw["physique"] == "2D+1"
    assert raw["weapons"][0] == {
        "name": "short sword",
        "damage": "1D+2",
        "attribute": "coordination",
        "kind": "cutting",
        "hands": 1,
        "skill": "",
        "training": 0,
    }
    assert validate(s) == s


def test_every_problem_is_collected_with_its_path():
    raw = full_sheet().to_dict()
    raw.update(agility="4x", hp_max=0, parry_limit=-1, armour_class="plate", colour="red", hp=50)
    raw["skills"][0]["dice"] = "lots"
    raw["skills"][1]["attribute"] = "luck"
    raw["weapons"] = [
        {"name": "a", "damage": "1D", "attribute": "strength", "kind": "laser", "hands": 3},
        {"name": "b"},
        {"name": "a", "damage": "2D", "training": "x"},
    ]
    with pytest.raises(ValidationError) as err:
        sheet_from_dict(raw)
    paths = {p.path for p in err.value.problems}
    assert paths == {
        "agility",
        "hp_max",
        "hp",
        "parry_limit",
        "armour_class",
        "colour",
        "skills[0].dice",
        "skills[1].attribute",
        "weapons[0].attribute",
        "weapons[0].kind",
        "weapons[0].hands",
        "weapons[1].damage",
        "weapons[2].training",
        "weapons[2].name",
    }
    assert "Orn" in str(err.value)


def test_hp_above_max_is_refused():
    raw = sheet("a", hp_max=10).to_dict() | {"hp": 11}
    with pytest.raises(ValidationError, match="hp: cannot be above hp_max"):
        sheet_from_dict(raw)


def test_set_field_stats_hp_system_fields_and_skills():
    s = sheet("Eva")
    assert set_field(s, "PHYSIQUE", "4d+1").physique == DieCode(4, 1)
    assert set_field(s, "Agility", "2D").agility == DieCode(2)
    assert set_field(s, "hp_max", "25").hp_max == 25
    assert set_field(s, "max hp", "25").hp_max == 25
    assert set_field(set_field(s, "hp_max", "30"), "hp", "-4").current_hp == -4
    assert set_field(s, "shield_av", "3").has_shield
    assert set_field(s, "armour_class", "Heavy").armour_class == "heavy"
    assert set_field(s, "dual_wield_trained", "yes").dual_wield_trained
    dodge = set_field(s, "dodge", "1D").skill("dodge")
    assert dodge is not None and (dodge.attribute, dodge.dice) == ("agility", DieCode(1))
    lore = set_field(s, "Lore", "2D intellect").skill("lore")
    assert lore is not None and lore.attribute == "intellect"
    removed = set_field(set_field(s, "dodge", "1D"), "dodge", "0D")
    assert removed.skill("dodge") is None
    assert s == sheet("Eva")


def test_lowering_hp_max_clamps_current_hp():
    s = set_field(sheet("a", hp_max=20), "hp", "15")
    assert set_field(s, "hp_max", "10").current_hp == 10


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("agility", "fast", "not a die code"),
        ("hp", "lots", "whole number"),
        ("lore", "2D", "Say which attribute"),
        ("lore", "2D luck", "Say which attribute"),
        ("weapons", "x", "cannot be set"),
        ("parry_limit", "-2", "parry_limit"),
        ("", "1", "Name a field"),
    ],
)
def test_set_field_refusals(field, value, message):
    with pytest.raises(InvalidInput, match=message):
        set_field(sheet("a"), field, value)


def test_field_names_offer_stats_hp_and_known_skills():
    names = field_names()
    assert set(ATTRIBUTES) <= set(names)
    assert {"hp", "hp_max", "free_actions", "parry_limit", "shield_av", "dodge", "stealth"} <= set(names)
    assert len(names) == len(set(names))
