"""The combat state's exact dict round trip, and refusals of broken saved states."""

import json

import pytest

from rules.errors import NotFound, ValidationError
from rules.systems.nyra import sequence
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.creatures import creature
from rules.systems.nyra.state import NyraCombat, NyraCombatant

from .helpers import duel, run


def _busy_state():
    state = duel()
    state = run(
        sequence.add_combatant,
        state,
        NyraCombatant.from_sheet("w", creature("Wolf"), side="beasts"),
        [(10, 3)],
    ).state
    state = run(strikes.strike, state, strikes.StrikeArgs("d1", "d2", "C"), [3, 4, 3, 3, 4, 2]).state
    return run(strikes.set_stance, state, ("d2", "dodge"), []).state


def test_state_round_trip_is_exact_through_json():
    state = _busy_state()
    raw = json.loads(json.dumps(state.to_dict()))
    again = NyraCombat.from_dict(raw)
    assert again == state
    assert again.to_dict() == raw
    assert again.get("d2").location_damage == {"Left Arm": 12} and again.get("d2").stance == "dodge"
    assert again.get("w").sheet.location_table == "quadruped"


def test_broken_saved_state_lists_its_problems():
    raw = _busy_state().to_dict()
    raw["order"].append("ghost")
    raw["combatants"][0]["location_damage"]["Tail"] = 3
    raw["combatants"][1]["stance"] = "parry"
    with pytest.raises(ValidationError) as err:
        NyraCombat.from_dict(raw)
    paths = {p.path for p in err.value.problems}
    assert {"order", "combatants[0].location_damage.Tail", "combatants[1].stance"} <= paths


def test_events_serialise_to_plain_json():
    out = run(strikes.strike, duel(), strikes.StrikeArgs("d1", "d2", "C"), [3, 4, 3, 3, 4, 2])
    text = json.dumps([e.to_dict() for e in out.events])
    assert '"kind": "DamageRolled"' in text and '"STR mod"' in text


@pytest.mark.parametrize(
    "raw", [[], {"combatants": "x"}, {"combatants": [3]}, {"combatants": [{"location_damage": []}]}]
)
def test_garbage_is_a_validation_error_not_a_crash(raw):
    with pytest.raises(ValidationError):
        NyraCombat.from_dict(raw)


def test_what_a_combatant_and_its_sheet_work_out_once_follows_every_change():
    """Wound states, location health and table lookups are made once per (frozen) object; a changed one
    is a new object and works them out anew, and the kept results never count in equality."""
    from dataclasses import replace

    from rules.systems.nyra.locations import WoundState

    from .helpers import sheet

    fresh = NyraCombatant.from_sheet("a", sheet(CON=6))
    hurt = replace(fresh, location_damage={"Head": 5})
    assert fresh.wounds()["Head"] is WoundState.UNHURT and not fresh.dead
    assert hurt.wounds()["Head"] is WoundState.SLIGHT
    assert replace(hurt, location_damage={"Head": 40}).dead and not hurt.dead
    assert hurt == replace(fresh, location_damage={"Head": 5})  # asked or not, equal
    tougher = replace(fresh.sheet, location_health={"Head": {"slight": 20}})
    assert fresh.sheet.health("head").slight == 6 and tougher.health("Head").slight == 20
    assert fresh.sheet.table().find("left_arm") == "Left Arm" == fresh.sheet.table().find("Left Arm")
    with pytest.raises(NotFound):
        fresh.sheet.table().find("tail")
