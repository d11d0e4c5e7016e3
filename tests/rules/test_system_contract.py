"""Every registered system honours rules.encounter.System the same way (the cogs rely on it): the built-in
ones and the duel that exists only in the test suite."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator

import pytest

from rules.dice import RandomDice
from rules.encounter import AnySystem, System, TrackerView, Traits, TurnStatus
from rules.errors import InvalidInput, RulesError
from rules.systems import registry
from rules.systems.registry import get_system, system_names
from tests import fourth_system

SYSTEMS = (*system_names(), fourth_system.SYSTEM.name)


@pytest.fixture(params=SYSTEMS)
def system(request) -> Iterator[AnySystem]:
    if request.param in system_names():
        yield get_system(request.param)
        return
    with fourth_system.registered():
        yield get_system(request.param)


def _protocol_methods() -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(System).items()
        if inspect.isfunction(member) and not name.startswith("_")
    }


def test_adapter_is_a_system(system):
    assert isinstance(system, System)
    assert system.name in system_names()
    assert system.title and system.short_title
    assert isinstance(system.traits, Traits) and system.traits.round_word


@pytest.mark.parametrize("method", sorted(_protocol_methods()))
def test_every_method_takes_the_protocols_parameters(system, method):
    """Same names, same kinds, same defaults: the shell calls every system the same way (``dice=`` too)."""
    wanted = _protocol_methods()[method]
    got = inspect.signature(getattr(system, method))
    expected = [p for name, p in wanted.parameters.items() if name != "self"]
    assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == [
        (p.name, p.kind, p.default) for p in expected
    ]


def test_register_adds_a_system_and_unregister_takes_it_out():
    duel = fourth_system.SYSTEM
    assert duel.name not in system_names()
    with fourth_system.registered():
        assert system_names()[-1] == duel.name
        assert get_system("Duel") is duel and duel in registry.all_systems()
        with pytest.raises(ValueError):
            registry.register(duel)
    assert duel.name not in system_names()
    with pytest.raises(InvalidInput):
        get_system(duel.name)
    with pytest.raises(ValueError):
        registry.unregister("d6")


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
        raw = system.state_to_dict(state)
        assert system.state_from_dict(raw) == state
        # plain JSON already (lists, text keys): a change keeps it as its read of the next version
        assert raw == json.loads(json.dumps(raw))
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
