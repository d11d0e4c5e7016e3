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
