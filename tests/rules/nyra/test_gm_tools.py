"""/gm set on a Nyra combatant, and the house-rule readings named in the events."""

import pytest

from rules.errors import InvalidInput, NotFound
from rules.systems.nyra import actions as other_actions
from rules.systems.nyra import sheet as sheets
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.house import HouseRules

from .helpers import combat, duel, first, run, sheet


def test_gm_set_sequence_resorts_and_keeps_the_turn():
    state = combat(sheet("A", sequence=9), sheet("B", sequence=5), sheet("C", sequence=2))
    out = run(other_actions.gm_set, state, other_actions.GmSetArgs("C", "sequence", "9"), [(10, 3), (10, 8)])
    assert out.state.order == ("c2", "c0", "c1")
    assert out.state.current_id == "c0"
    assert first(out, "FieldSet").after == "9" and [d.value for d in first(out, "OrderSet").dice] == [3, 8]


def test_gm_set_other_fields():
    state = duel()
    s = run(other_actions.gm_set, state, other_actions.GmSetArgs("d2", "left arm damage", "20"), []).state
    assert (
        s.get("d2").location_damage == {"Left Arm": 20} and s.get("d2").wound("Left Arm").value == "serious"
    )
    s = run(other_actions.gm_set, s, other_actions.GmSetArgs("d2", "Left Arm damage", "0"), []).state
    assert s.get("d2").location_damage == {}
    assert (
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "delay", "2"), [])
        .state.get("d1")
        .delay_pool
        == 2
    )
    assert (
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "energy", "12"), [])
        .state.get("d1")
        .energy
        == 12
    )
    assert (
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "stance", "Dodge"), [])
        .state.get("d1")
        .stance
        == "dodge"
    )
    assert (
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "side", "red"), [])
        .state.get("d1")
        .side
        == "red"
    )
    out = run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "short sword durability", "40"), [])
    assert out.state.get("d1").durability == {"Short Sword": 40}
    with pytest.raises(InvalidInput, match="Fields: sequence"):
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "mood", "grim"), [])
    with pytest.raises(InvalidInput):
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "delay", "-1"), [])
    with pytest.raises(NotFound):
        run(other_actions.gm_set, state, other_actions.GmSetArgs("d1", "wing damage", "3"), [])


def test_the_stance_reading_is_named_in_the_contest():
    house = HouseRules()
    state = duel(house)
    out = run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [8], house)
    assert first(out, "ContestRolled").stance_rule == "house default_stance: higher"
    state = run(strikes.set_stance, state, ("d2", "defense"), [], house).state
    out = run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [8], house)
    assert first(out, "ContestRolled").stance_rule == "chosen: defense"


def test_changing_the_location_table_refuses_armour_that_no_longer_fits():
    s = sheets.wear_armour(
        sheet("S", location_health={"Head": {"slight": 3}, "Left Arm": {"slight": 5}}), "Iron Helm"
    )
    wolf = sheets.set_field(s, "location_table", "quadruped")  # the helm's Head exists on a quadruped
    assert wolf.location_health == {"Head": {"slight": 3}}
    with pytest.raises(InvalidInput, match="Chain Hauberk covers"):
        sheets.set_field(sheets.wear_armour(s, "Chain Hauberk"), "location_table", "quadruped")
