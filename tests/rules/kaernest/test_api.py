"""The facade the Discord layer uses: lists for autocomplete, /check, templates, rerolls."""

import pytest

from rules.dice import ScriptedDice
from rules.errors import NotFound
from rules.systems.kaernest import api

from .helpers import HOUSE, arena, fighter


def test_lists_for_autocomplete_and_gm_rules():
    assert "Sword, Short" in api.weapon_names() and "Chainmaille" in api.armour_names()
    assert api.damage_types("Glaive") == ("cut", "pierce", "slash")
    assert "Bandit" in api.creature_names()
    assert api.POSTURES == ("passive", "active", "aggressive", "none")
    assert api.describe_house_rules()[0]["name"] == "called_shot_penalty"
    assert api.set_house_rule(api.HouseRules(), "called_shot_penalty", "4").called_shot_penalty == 4
    assert "Grace" in api.sheet_fields()


def test_new_sheet_and_template_sheets_enter_an_encounter():
    state = api.add_combatant(api.new_state(), "me", api.new_sheet("Mico")).state
    sheet, posture = api.sheet_from_template("Bandit", "Bandit 1")
    state = api.add_combatant(state, "b1", sheet, side="bandits", posture=posture).state
    assert [c.entry for c in state.combatants] == [0, 1]
    assert state.get("b1").npc and state.get("b1").side == "bandits"
    with pytest.raises(NotFound):
        api.sheet_from_template("Dragon")
    state = api.remove_combatant(state, "me").state
    assert [c.id for c in state.combatants] == ["b1"]


def test_check_in_an_encounter_counts_wounds():
    sheet = fighter("X", grace=7, health=4, skills={"Climb": 3})
    state = arena(("x", sheet, 10))
    state = api.gm_damage(state, "x", 7, HOUSE).state  # 7 > 6: a wound
    with ScriptedDice([4, 5]) as dice:
        event = api.check(sheet, "Grace", dice, HOUSE, skill="climb", state=state, combatant_id="x")
    assert (event.target, event.total, event.success, event.critical) == (9, 9, True, True)
    with ScriptedDice([4, 5]) as dice:
        assert api.check(sheet, "climb", dice, HOUSE).target == 3  # a skill alone


def test_reroll_replaces_initiative_and_others_keep_theirs():
    state = arena(("x", fighter("X", instinct=3), 10))
    with ScriptedDice([12]) as dice:
        out = api.roll_initiative(state, dice, HOUSE, reroll=["x"])
    assert out.state.get("x").initiative == 15
    with ScriptedDice([]) as dice:  # nobody lacks initiative: no die
        assert api.roll_initiative(state, dice, HOUSE).events == ()
