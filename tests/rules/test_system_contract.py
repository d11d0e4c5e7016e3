"""Every system adapter honours rules.encounter.System the same way (the cogs rely on it)."""

from __future__ import annotations

import pytest

from rules.dice import RandomDice
from rules.encounter import System, TrackerView, TurnStatus
from rules.errors import InvalidInput, RulesError
from rules.systems.registry import get_system, system_names

SYSTEMS = system_names()


@pytest.fixture(params=SYSTEMS)
def system(request) -> System:
    return get_system(request.param)


def test_adapter_is_a_system(system):
    assert isinstance(system, System)
    assert system.name in system_names()


def test_unknown_system_is_refused():
    with pytest.raises(InvalidInput, match="nyra"):
        get_system("gurps")


def test_house_rules_round_trip_and_refuse_nonsense(system):
    house = system.default_house()
    assert system.house_from_dict(system.house_to_dict(house)) == house
    infos = system.describe_house(house)
    assert infos, "every system has at least one house rule"
    with pytest.raises(InvalidInput):
        system.set_house_rule(house, infos[0].name, "\u0000 certainly not a value \u0000")
    with pytest.raises(InvalidInput):
        system.set_house_rule(house, "no-such-rule", "1")


def test_sheets_round_trip_and_templates_exist(system):
    sheet = system.new_sheet("Vale")
    assert system.sheet_name(sheet) == "Vale"
    assert system.sheet_from_dict(system.sheet_to_dict(sheet)) == sheet
    assert system.sheet_fields()
    assert system.creature_names()
    for template in system.creature_names():
        npc = system.creature_sheet(template, f"{template} 1")
        assert system.sheet_name(npc) == f"{template} 1"
        assert system.sheet_from_dict(system.sheet_to_dict(npc)) == npc
    view = system.sheet_view(sheet)
    assert view.title and view.sections


def _encounter(system: System, seed: int):
    house = system.default_house()
    dice = RandomDice(seed)
    state = system.new_state()
    templates = system.creature_names()
    for i in range(4):
        sheet = system.creature_sheet(templates[i % len(templates)], f"C{i}")
        out = system.add_combatant(
            state,
            f"c{i}",
            sheet,
            side="party" if i % 2 else "foes",
            distance=i,
            is_pc=i % 2 == 1,
            house=house,
            dice=dice,
        )
        state = out.state
    out = system.begin(state, dice, house, attackers="foes", surprise=0)
    return out.state, dice, house


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_turns_move_and_state_round_trips(system, seed):
    state, dice, house = _encounter(system, seed)
    view = system.tracker(state)
    assert isinstance(view, TrackerView) and view.begun
    assert sorted(c.id for c in view.order) == ["c0", "c1", "c2", "c3"]
    keys = []
    for _ in range(12):  # bounded: three rounds of four
        turn = system.turn(state)
        assert isinstance(turn, TurnStatus) and turn.actors, "after begin someone must owe an action"
        keys.append(turn.key)
        assert system.state_from_dict(system.state_to_dict(state)) == state
        state = system.end_turn(state, turn.actors[0], dice, house).state
        assert system.turn(state).key != turn.key, "ending a turn must change the turn key"
    assert len(set(keys)) == len(keys)


def test_end_turn_out_of_turn_is_refused(system):
    state, dice, house = _encounter(system, 5)
    turn = system.turn(state)
    other = next(c.id for c in system.tracker(state).order if c.id not in turn.actors)
    with pytest.raises(RulesError):
        system.end_turn(state, other, dice, house)


def test_gm_damage_shows_in_the_tracker(system):
    state, dice, house = _encounter(system, 7)
    before = system.tracker(state)
    locations = system.damage_locations(state, "c1")
    out = system.gm_damage(state, "c1", 3, locations[0] if locations else None, dice, house)
    after = system.tracker(out.state)
    assert out.events
    row_before = next(c for c in before.order if c.id == "c1")
    row_after = next(c for c in after.order if c.id == "c1")
    assert row_before != row_after


def test_unknown_combatant_is_refused(system):
    state, dice, house = _encounter(system, 9)
    with pytest.raises(RulesError):
        system.gm_damage(state, "nobody", 3, None, dice, house)
