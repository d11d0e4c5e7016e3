"""House rules: defaults, descriptions for /gm rules, setting from text with validation."""

import pytest

from rules.errors import InvalidInput
from rules.systems.nyra.house import RULE_SPECS, HouseRules, describe_rules, rule_names, set_rule


def test_defaults_follow_rules_md():
    house = HouseRules()
    assert house.tie_rule == "reroll"
    assert house.default_stance == "higher"
    assert house.critical_damage == "double"
    assert house.track_durability is False
    assert house.fumble_durability_loss == 5


def test_every_field_is_described_with_its_default():
    house = HouseRules()
    assert set(rule_names()) == set(house.to_dict())
    for spec in RULE_SPECS:
        assert spec.default == getattr(house, spec.name)
        assert spec.help and spec.allowed
    rows = describe_rules(set_rule(house, "tie_rule", "defender"))
    assert {r["name"]: r["value"] for r in rows}["tie_rule"] == "defender"
    assert next(r for r in rows if r["name"] == "tie_rule")["choices"] == ["reroll", "defender", "attacker"]


def test_set_rule_from_text():
    house = set_rule(HouseRules(), "Tie-Rule", " Attacker ")
    house = set_rule(house, "track_durability", "on")
    house = set_rule(house, "tie_reroll_limit", "3")
    assert (house.tie_rule, house.track_durability, house.tie_reroll_limit) == ("attacker", True, 3)
    assert HouseRules().tie_rule == "reroll"  # the original is untouched


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("tie_rule", "coin", "reroll, defender, attacker"),
        ("track_durability", "maybe", "on, off"),
        ("tie_reroll_limit", "0", "1..20"),
        ("tie_reroll_limit", "x", "1..20"),
        ("flanking", "on", "not a Nyra house rule"),
    ],
)
def test_bad_values_name_the_allowed_ones(name, value, message):
    with pytest.raises(InvalidInput, match=message):
        set_rule(HouseRules(), name, value)


def test_dict_round_trip():
    house = set_rule(set_rule(HouseRules(), "critical_damage", "roll_again"), "track_durability", "yes")
    assert HouseRules.from_dict(house.to_dict()) == house
    assert HouseRules.from_dict({"old_rule": 1}) == HouseRules()
