import pytest

from rules.errors import InvalidInput, ValidationError
from rules.systems.d6.house import RULE_SPECS, HouseRules, describe, reset_rule, rule_names, set_rule


def test_defaults_are_the_rules_md_house_defaults():
    h = HouseRules()
    assert (h.explode, h.wild_one, h.called_shot_bonus, h.throw_cap_dice) == ("halved", "complication", 5, 20)
    assert (h.takedown_dice, h.npc_last_gasp, h.critical_effect) == ("d6", False, "double_natural_dice")


def test_every_rule_is_described_with_its_default_and_current_value():
    rows = describe(set_rule(HouseRules(), "explode", "full"))
    assert [r["name"] for r in rows] == list(rule_names()) == [s.name for s in RULE_SPECS]
    explode = rows[0]
    assert explode["default"] == "halved" and explode["value"] == "full"
    assert explode["choices"] == ["halved", "full"] and explode["help"]
    for spec, row in zip(RULE_SPECS, rows, strict=True):
        assert row["value"] == spec.default or spec.name == "explode"
        assert getattr(HouseRules(), spec.name) == spec.default


def test_set_rule_parses_each_type():
    h = HouseRules()
    assert set_rule(h, "Wild-One", "DROP").wild_one == "drop"
    assert set_rule(h, "called_shot_bonus", " 3 ").called_shot_bonus == 3
    assert set_rule(h, "npc_last_gasp", "on").npc_last_gasp is True
    assert set_rule(h, "takedown_dice", "d66").takedown_dice == "d66"
    assert h == HouseRules()  # never mutated
    assert reset_rule(set_rule(h, "throw_cap_dice", "30"), "throw_cap_dice") == h


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("explode", "double", "Allowed: halved, full"),
        ("wild_one", "x", "complication, drop, none"),
        ("called_shot_bonus", "five", "Allowed: 0..30"),
        ("throw_cap_dice", "1", "Allowed: 2..100"),
        ("npc_last_gasp", "maybe", "on, off"),
        ("nonsense", "1", "not a D6 house rule"),
    ],
)
def test_bad_values_name_the_allowed_ones(name, text, message):
    with pytest.raises(InvalidInput, match=message.replace("|", r"\|").replace(".", r"\.")):
        set_rule(HouseRules(), name, text)


def test_round_trip_and_bad_stored_rules():
    h = HouseRules(explode="full", npc_last_gasp=True, throw_cap_dice=12)
    assert HouseRules.from_dict(h.to_dict()) == h
    with pytest.raises(ValidationError) as err:
        HouseRules.from_dict({"explode": "x", "wild_one": "y", "retired_rule": 1})
    # Every bad value is reported; a key no rule has any more is ignored, so an old row still loads.
    assert {p.path for p in err.value.problems} == {"explode", "wild_one"}
