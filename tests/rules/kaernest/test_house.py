import pytest

from rules.errors import InvalidInput
from rules.systems.kaernest import house
from rules.systems.kaernest.house import HouseRules


def test_defaults_are_the_decided_reading():
    rules = HouseRules()
    assert rules.called_shot_penalty == 3
    assert rules.npc_initiative == "fixed"
    assert rules.simple_action_bonus == 3
    assert rules.wound_penalty == 1
    assert rules.interrupt_speed_penalty == 1
    assert rules.defensive_speed_bonus == 1
    assert rules.called_wound_penalty is False
    assert rules.armour_penalty_on_active_defense is False


def test_every_rule_is_described_with_allowed_values_default_and_help():
    described = house.describe()
    assert [d["name"] for d in described] == list(house.rule_names())
    by_name = {d["name"]: d for d in described}
    assert by_name["called_shot_penalty"]["allowed"] == "0..12"
    assert by_name["npc_initiative"]["allowed"] == "fixed, roll"
    assert by_name["luck_on_initiative"]["allowed"] == "on, off"
    assert all(d["help"] and d["value"] == d["default"] for d in described)


def test_set_rule_from_text_returns_a_new_object():
    rules = HouseRules()
    changed = house.set_rule(rules, "Called-Shot-Penalty", " 4 ")
    assert changed.called_shot_penalty == 4 and rules.called_shot_penalty == 3
    assert house.set_rule(rules, "npc_initiative", "ROLL").npc_initiative == "roll"
    assert house.set_rule(rules, "luck_on_initiative", "off").luck_on_initiative is False


@pytest.mark.parametrize(
    ("name", "text", "allowed"),
    [
        ("called_shot_penalty", "13", "0..12"),
        ("called_shot_penalty", "three", "0..12"),
        ("npc_initiative", "d20", "fixed, roll"),
        ("luck_on_initiative", "maybe", "on, off"),
    ],
)
def test_bad_values_name_the_allowed_ones(name, text, allowed):
    with pytest.raises(InvalidInput, match=f"Allowed: {allowed}"):
        house.set_rule(HouseRules(), name, text)


def test_unknown_rule_lists_the_rules():
    with pytest.raises(InvalidInput, match="called_shot_penalty"):
        house.set_rule(HouseRules(), "wild_one", "drop")


def test_round_trip():
    rules = house.set_rule(house.set_rule(HouseRules(), "wound_penalty", "2"), "called_wound_penalty", "on")
    assert house.from_dict(house.to_dict(rules)) == rules
    assert house.from_dict({}) == HouseRules()
