"""The facade the Discord layer uses: lists for autocomplete, /check, templates, rerolls."""

import pytest

from rules.dice import ScriptedDice
from rules.errors import NotFound
from rules.systems.kaernest import check as checks
from rules.systems.kaernest import creatures, initiative, tables
from rules.systems.kaernest import encounter as roster
from rules.systems.kaernest import house as house_rules
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest import state as states
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import KaernestState

from .helpers import HOUSE, arena, fighter


def test_lists_for_autocomplete_and_gm_rules():
    assert "Sword, Short" in tables.weapon_names() and "Chainmaille" in tables.armour_names()
    assert tables.weapon("Glaive").damage_types() == ("cut", "pierce", "slash")
    assert "Bandit" in creatures.creature_names()
    assert states.POSTURES == ("passive", "active", "aggressive", "none")
    assert house_rules.describe()[0]["name"] == "called_shot_penalty"
    assert house_rules.set_rule(HouseRules(), "called_shot_penalty", "4").called_shot_penalty == 4
    assert "Grace" in sheets.field_names()


def test_new_sheet_and_template_sheets_enter_an_encounter():
    state = roster.add_combatant(KaernestState(), "me", sheets.new_sheet("Mico")).state
    sheet, posture = creatures.from_template("Bandit", "Bandit 1")
    state = roster.add_combatant(state, "b1", sheet, side="bandits", posture=posture).state
    assert [c.entry for c in state.combatants] == [0, 1]
    assert state.get("b1").npc and state.get("b1").side == "bandits"
    with pytest.raises(NotFound):
        creatures.from_template("Dragon")
    state = roster.remove_combatant(state, "me").state
    assert [c.id for c in state.combatants] == ["b1"]


def test_check_in_an_encounter_counts_wounds():
    sheet = fighter("X", grace=7, health=4, skills={"Climb": 3})
    state = arena(("x", sheet, 10))
    state = roster.gm_damage(state, "x", 7, HOUSE).state  # 7 > 6: a wound
    with ScriptedDice([4, 5]) as dice:
        event = checks.check(
            sheet, "Grace", dice, HOUSE, skill="climb", wound_penalty=state.get("x").wound_penalty
        )
    assert (event.target, event.total, event.success, event.critical) == (9, 9, True, True)
    with ScriptedDice([4, 5]) as dice:
        assert checks.check(sheet, "climb", dice, HOUSE).target == 3  # a skill alone


def test_reroll_replaces_initiative_and_others_keep_theirs():
    state = arena(("x", fighter("X", instinct=3), 10))
    with ScriptedDice([12]) as dice:
        out = initiative.roll_initiative(state, dice, HOUSE, reroll=["x"])
    assert out.state.get("x").initiative == 15
    with ScriptedDice([]) as dice:  # nobody lacks initiative: no die
        assert initiative.roll_initiative(state, dice, HOUSE).events == ()
