"""A sheet's stored form is made once and shared; a copy to change is still the sheet's own."""

from __future__ import annotations

import dataclasses

import pytest

from rules.systems.d6.sheet import Sheet as D6Sheet
from rules.systems.kaernest.sheet import Sheet as KaernestSheet
from rules.systems.nyra.sheet import NyraSheet

SHEETS = [D6Sheet(name="Ana"), KaernestSheet(name="Bo"), NyraSheet(name="Cy", stats={"STR": 3})]


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: type(s).__module__)
def test_the_stored_form_is_made_once_and_equals_to_dict(sheet) -> None:
    stored = sheet.stored()
    assert stored == sheet.to_dict()
    assert sheet.stored() is stored


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: type(s).__module__)
def test_to_dict_still_gives_a_copy_to_change(sheet) -> None:
    stored = sheet.stored()
    mine = sheet.to_dict()
    mine["name"] = "changed"
    assert sheet.stored() is stored and stored["name"] == sheet.name


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: type(s).__module__)
def test_a_changed_sheet_has_its_own_and_the_cache_changes_no_comparison(sheet) -> None:
    sheet.stored()
    renamed = dataclasses.replace(sheet, name="Dee")
    assert renamed.stored()["name"] == "Dee" and sheet.stored()["name"] == sheet.name
    fresh = dataclasses.replace(sheet)  # nothing stored yet
    assert fresh == sheet and "_stored" not in repr(sheet)


def test_a_d6_state_saved_after_a_change_shares_the_unchanged_combatants_stored_forms() -> None:
    from rules.systems.d6.state import D6State, new_combatant

    ana, bo = (
        new_combatant("1", D6Sheet(name="Ana", hp_max=20)),
        new_combatant("2", D6Sheet(name="Bo", hp_max=20)),
    )
    before = D6State().add([ana, bo])
    after = before.update("2", hp=3)
    saved_before, saved_after = before.to_dict(), after.to_dict()
    assert saved_after["combatants"][0] is saved_before["combatants"][0]  # Ana did not change
    assert saved_after["combatants"][1]["hp"] == 3 and saved_before["combatants"][1]["hp"] == 20
    assert saved_after["combatants"] == [c.to_dict() for c in after.combatants]
    assert D6State.from_dict(saved_after) == after and "_stored" not in saved_after["combatants"][0]
