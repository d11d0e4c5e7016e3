"""Kaernest through the system-agnostic adapter (rules.encounter.System), with scripted dice throughout."""

import json

import pytest

from rules.dice import ScriptedDice
from rules.encounter import System
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.systems.kaernest import clock, timeline
from rules.systems.kaernest.adapter import SYSTEM
from rules.systems.registry import get_system

from .helpers import HOUSE, fighter, kinds

K = SYSTEM


def row(state, cid):
    return next(c for c in K.tracker(state).order if c.id == cid)


def setup():
    """In entry order: the Bandit template (NPC: fixed 6 + Instinct 5 = 11), Ada (PC, Instinct 5), Bo (PC,
    Instinct 3)."""
    state = K.new_state()
    entries = [
        ("n", K.creature_sheet("Bandit", "Bandit 1"), "bandits", False),
        ("a", fighter("Ada", health=5, skills={"Swords": 4}), "party", True),
        ("b", fighter("Bo", instinct=3), "party", True),
    ]
    for cid, sheet, side, is_pc in entries:
        state = K.add_combatant(state, cid, sheet, side=side, distance=0, is_pc=is_pc, house=HOUSE).state
    return state


def begun(script=(12, 2), **kwargs):
    """Begun with Ada's d12 = 12 (initiative 17) and Bo's d12 = 2 (initiative 5), unless told otherwise."""
    kwargs.setdefault("attackers", None)
    kwargs.setdefault("surprise", 0)
    with ScriptedDice(script) as dice:
        return K.begin(setup(), dice, HOUSE, **kwargs)


def test_registry_serves_the_kaernest_adapter():
    assert get_system("kaernest") is SYSTEM
    assert isinstance(SYSTEM, System) and (SYSTEM.name, SYSTEM.title) == ("kaernest", "Kaernest")


def test_setup_tracker_is_in_entry_order_and_nobody_is_on_turn():
    state = setup()
    view = K.tracker(state)
    assert not view.begun and (view.minute, view.segment) == (None, None)
    assert [c.id for c in view.order] == ["n", "a", "b"]
    assert (K.turn(state).actors, K.turn(state).label) == ((), "Not begun")
    with ScriptedDice([]) as dice, pytest.raises(NotAllowed, match="not begun"):
        K.end_turn(state, "a", dice, HOUSE)


def test_begin_names_the_highest_initiative_at_its_segment():
    out = begun()
    state = out.state
    turn = K.turn(state)
    assert turn.actors == ("a",)
    assert turn.label == "Minute 1, segment 17"
    view = K.tracker(state)
    assert view.begun and (view.minute, view.segment) == (1, 17)
    assert view.current == ("a",)
    assert [(c.id, c.initiative, c.next_segment) for c in view.order] == [
        ("a", 17, "1:17"),
        ("n", 11, "1:11"),
        ("b", 5, "1:05"),
    ]
    assert [c.is_pc for c in view.order] == [True, False, True]
    assert kinds(out.events) == ["InitiativeRolled"] * 3 + ["ClockAdvanced"]
    assert [d.value for d in out.dice] == [12, 2]  # the NPC draws no die (house npc_initiative fixed)


def test_is_pc_decides_the_npc_initiative_rule():
    state = K.new_state()
    for cid, sheet, is_pc in (
        ("t", K.creature_sheet("Bandit", "Tamed"), True),
        ("h", fighter("Hired"), False),
    ):
        state = K.add_combatant(state, cid, sheet, side="x", distance=0, is_pc=is_pc, house=HOUSE).state
    with ScriptedDice([7]) as dice:  # only the PC rolls: 7 + Instinct 5; the NPC takes 6 + 5
        state = K.begin(state, dice, HOUSE, attackers=None, surprise=0).state
    assert [(c.id, c.is_pc, c.initiative) for c in K.tracker(state).order] == [
        ("t", True, 12),
        ("h", False, 11),
    ]


def test_begin_twice_and_an_empty_begin_are_refused():
    state = begun().state
    with ScriptedDice([]) as dice:
        with pytest.raises(NotAllowed, match="already begun"):
            K.begin(state, dice, HOUSE, attackers=None, surprise=0)
        with pytest.raises(NotAllowed, match="add combatants"):
            K.begin(K.new_state(), dice, HOUSE, attackers=None, surprise=0)


def test_surprise_adds_to_the_attacking_side_only():
    out = begun(attackers="Party", surprise=3)
    state = out.state
    assert [(c.id, c.initiative) for c in K.tracker(state).order] == [("a", 20), ("n", 11), ("b", 8)]
    assert K.turn(state).label == "Minute 1, segment 20"
    assert "Surprise: the party side adds +3 to initiative." in [getattr(e, "text", "") for e in out.events]
    with ScriptedDice([]) as dice, pytest.raises(InvalidInput, match="side `ghosts`"):
        K.begin(setup(), dice, HOUSE, attackers="ghosts", surprise=2)  # refused before any die


def test_ending_the_turn_waits_one_segment_and_changes_the_key():
    state = begun().state
    before = K.turn(state)
    with ScriptedDice([]) as dice:
        out = K.end_turn(state, "a", dice, HOUSE)
    after = K.turn(out.state)
    assert kinds(out.events) == ["Waited", "ClockAdvanced"]
    assert after.actors == ("a",) and after.label == "Minute 1, segment 16"
    assert after.key != before.key
    assert row(out.state, "a").next_segment == "1:16"


def test_ending_a_turn_out_of_turn_is_refused():
    state = begun().state
    with ScriptedDice([]) as dice:
        with pytest.raises(NotAllowed, match="Not Bo's turn"):
            K.end_turn(state, "b", dice, HOUSE)
        with pytest.raises(NotFound):
            K.end_turn(state, "ghost", dice, HOUSE)


def test_a_declared_attack_shows_as_pending_and_lands_on_gm_next():
    state = begun().state
    with ScriptedDice([]) as dice:
        state = timeline.declare_attack(state, "a", "n", dice, HOUSE).state  # Sword, Short: speed 5
    ada = row(state, "a")
    assert ada.pending == "attack on Bandit 1, lands 1:12"
    assert ada.next_segment == "1:12"
    assert K.turn(state).actors == ()
    assert K.tracker(state).notes == ("Nothing is due now; next, actions land at 1:12 (`/gm next`).",)
    with ScriptedDice([12, 12]) as dice:  # 24 misses; no damage die after a miss
        out = K.gm_next(state, dice, HOUSE)
    assert kinds(out.events) == ["ClockAdvanced", "AttackResolved"]
    assert out.events[1].hit is False
    assert row(out.state, "a").pending is None
    assert K.turn(out.state).actors == ("a",) and K.turn(out.state).label == "Minute 1, segment 12"


def test_gm_next_ends_the_turn_of_whoever_holds_it():
    state = begun().state
    with ScriptedDice([]) as dice:
        out = K.gm_next(state, dice, HOUSE)
    assert kinds(out.events) == ["Waited", "ClockAdvanced"]
    assert K.turn(out.state).actors == ("a",) and out.state.segment == 16


def test_gm_damage_moves_through_wounds_unconscious_and_dying():
    state = begun().state
    with ScriptedDice([]) as dice:
        assert K.damage_locations(state, "a") == ()
        hurt = K.gm_damage(state, "a", 3, None, dice, HOUSE).state
        assert (row(hurt, "a").health, row(hurt, "a").wounds) == ("wounded", 0)
        hurt = K.gm_damage(hurt, "a", 8, "arm", dice, HOUSE).state  # 8 > 1.5 × 5: a wound
        assert (row(hurt, "a").damage, row(hurt, "a").wounds) == (11, 1)
        assert hurt.get("a").wounds[0].location == "arm"
        assert "Ada: wound to arm" in K.tracker(hurt).notes
        down = K.gm_damage(hurt, "a", 10, None, dice, HOUSE).state  # 21 > 4 × 5
        view = row(down, "a")
        assert (view.health, view.active, view.next_segment) == ("unconscious", False, None)
        assert K.turn(down).actors == ()
        dying = K.gm_damage(down, "a", 5, None, dice, HOUSE).state  # 26 > 5 × 5
        assert row(dying, "a").health == "dying"


def test_waking_up_rolls_initiative_again():
    state = begun().state
    with ScriptedDice([]) as dice:
        down = K.gm_damage(state, "a", 21, None, dice, HOUSE).state
    assert down.get("a").initiative is None
    with ScriptedDice([1]) as dice:  # d12 1 + Instinct 5 = 6
        out = K.gm_heal(down, "a", 21, dice, HOUSE)
    assert kinds(out.events) == ["DamageHealed", "InitiativeRolled"]
    assert (row(out.state, "a").health, row(out.state, "a").initiative) == ("unhurt", 6)


def test_gm_set_fields_change_the_timeline_and_the_sheet():
    state = begun().state
    assert K.gm_fields()[:5] == ("initiative", "segment", "posture", "damage", "luck")
    moved = K.gm_set(state, "b", "segment", "17", HOUSE).state  # Bo declares now, after Ada
    assert row(moved, "b").next_segment == "1:17" and row(moved, "b").initiative == 5
    assert K.turn(moved).key != K.turn(state).key  # a set on the timeline is a turn pass
    assert "Also declaring this segment, in order: Bo." in K.tracker(moved).notes
    later = K.gm_set(state, "n", "segment", "2:30", HOUSE).state
    assert row(later, "n").next_segment == "2:30"
    with pytest.raises(InvalidInput, match="pick that segment or a later one"):
        K.gm_set(state, "n", "segment", "1:20", HOUSE)
    assert row(K.gm_set(state, "n", "initiative", "25", HOUSE).state, "n").next_segment == "2:25"
    assert row(K.gm_set(state, "n", "posture", "aggressive", HOUSE).state, "n").conditions == ("aggressive",)
    assert K.gm_set(state, "a", "damage", "21", HOUSE).state.get("a").condition == "unconscious"
    assert K.gm_set(state, "a", "luck", "4", HOUSE).state.get("a").sheet.luck == 4
    assert row(K.gm_set(state, "a", "side", "rebels", HOUSE).state, "a").side == "rebels"
    with pytest.raises(InvalidInput, match="Fields: initiative"):
        K.gm_set(state, "a", "hp", "3", HOUSE)
    with pytest.raises(InvalidInput):
        K.gm_set(state, "a", "luck", "lots", HOUSE)


def test_segment_set_moves_an_action_under_way():
    state = begun().state
    with ScriptedDice([]) as dice:
        state = timeline.declare_attack(state, "a", "n", dice, HOUSE).state
    moved = K.gm_set(state, "a", "segment", "14", HOUSE).state
    assert row(moved, "a").pending == "attack on Bandit 1, lands 1:14"
    assert moved.get("a").pending.speed == 3
    with pytest.raises(InvalidInput, match="must land at a later segment"):
        K.gm_set(state, "a", "segment", "17", HOUSE)


def test_conditions_and_postures_show_in_the_tracker_and_round_trip():
    state = begun().state
    assert {"aggressive", "active", "unaware", "prone", "blinded"} <= set(K.conditions())
    state = K.gm_condition(state, "n", "prone", False, HOUSE).state
    state = K.gm_condition(state, "n", "unaware", False, HOUSE).state
    assert row(state, "n").conditions == ("unaware", "prone")
    assert state.get("n").posture == "none"
    assert K.state_from_dict(json.loads(json.dumps(K.state_to_dict(state)))) == state
    with pytest.raises(NotAllowed, match="already prone"):
        K.gm_condition(state, "n", "prone", False, HOUSE)
    with pytest.raises(InvalidInput, match="health follows"):
        K.gm_condition(state, "n", "unconscious", False, HOUSE)
    state = K.gm_condition(state, "n", "unaware", True, HOUSE).state
    state = K.gm_condition(state, "n", "prone", True, HOUSE).state
    assert row(state, "n").conditions == () and state.get("n").posture == "passive"
    with pytest.raises(NotAllowed, match="is not blinded"):
        K.gm_condition(state, "n", "blinded", True, HOUSE)


def test_a_berserker_template_enters_aggressive():
    sheet = K.creature_sheet("Berserker", "Grim")
    state = K.add_combatant(
        K.new_state(), "g", sheet, side="foes", distance=0, is_pc=False, house=HOUSE
    ).state
    assert state.get("g").posture == "aggressive" and row(state, "g").conditions == ("aggressive",)


def test_new_instance_is_refused():
    with pytest.raises(NotAllowed, match="D6"):
        K.new_instance(begun().state, HOUSE)


def test_check_adds_a_skill_and_a_numeric_difficulty():
    sheet = fighter("Ada", grace=7, skills={"Climb": 3})
    assert {"Grace", "Climb"} <= set(K.check_stats(sheet))
    with ScriptedDice([4, 4]) as dice:
        event = K.check(sheet, "Grace + Climb", "-2", 1, dice, HOUSE).events[0]
    assert (event.target, event.total, event.success) == (9, 8, True)  # 7 + 3 + (1 − 2)
    with ScriptedDice([]) as dice, pytest.raises(InvalidInput, match="no difficulty ladder"):
        K.check(sheet, "Grace", "hard", 0, dice, HOUSE)


def test_house_rules_are_described_and_checked():
    infos = {i.name: i for i in K.describe_house(K.default_house())}
    assert infos["npc_initiative"].allowed == ("fixed", "roll")
    assert (infos["luck_on_initiative"].value, infos["called_shot_penalty"].allowed) == ("on", ())
    changed = K.set_house_rule(K.default_house(), "called_shot_penalty", "5")
    assert {i.name: i.value for i in K.describe_house(changed)}["called_shot_penalty"] == "5"
    with pytest.raises(InvalidInput, match=r"Allowed: 0\.\.12"):
        K.set_house_rule(K.default_house(), "called_shot_penalty", "40")


def test_sheet_view_and_armour():
    sheet = K.set_armour(fighter("Ada", skills={"Swords": 4}), "chain shirt")
    view = K.sheet_view(sheet)
    assert [title for title, _ in view.sections] == ["Attributes", "Skills", "Weapons", "Armour"]
    sections = dict(view.sections)
    assert ("Swords", "4") in sections["Skills"]
    assert sections["Weapons"][0][0] == "Sword, Short" and "1h speed 5" in sections["Weapons"][0][1]
    assert ("Worn", "Chain Shirt") in sections["Armour"]
    assert K.set_armour(sheet, "Chain Shirt", remove=True).armour is None
    with pytest.raises(InvalidInput, match="whole body"):
        K.set_armour(sheet, "Chain Shirt", location="arm")


def test_turn_keys_never_repeat_even_when_the_gm_puts_a_turn_back():
    state = begun().state
    first = K.turn(state).key
    with ScriptedDice([]) as dice:
        waited = K.end_turn(state, "a", dice, HOUSE).state  # minute 1 segment 16
    back = K.gm_set(waited, "a", "segment", str(clock.segment_of(waited.tick)), HOUSE).state
    keys = [first, K.turn(waited).key, K.turn(back).key]
    assert len(set(keys)) == 3 and K.turn(back).actors == ("a",)
