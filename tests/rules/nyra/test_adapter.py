"""Nyra through the system-agnostic adapter (rules.encounter.System), with exact scripted dice."""

import json

import pytest

from rules.dice import ScriptedDice
from rules.encounter import LocationView, System
from rules.errors import InvalidInput, NotAllowed, NotFound, ValidationError
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.adapter import SYSTEM
from rules.systems.nyra.state import NyraCombatant
from rules.systems.registry import get_system

from .helpers import duelist_1, duelist_2, sheet

HOUSE = SYSTEM.default_house()


def vale(sequence: int = 4):
    """CON 6 / STR 6: limbs slight 12, serious 24, critical 26 (RULES.md §1)."""
    return sheet("Vale", STR=6, CON=6, skills={"Swords": 6, "Dodge": 4}, sequence=sequence)


def encounter(*entries, script=(), begin=True, **begin_kw):
    """Add ``(id, sheet)`` pairs in order through the adapter and (by default) begin, with exact dice."""
    state = SYSTEM.new_state()
    for cid, s in entries:
        state = SYSTEM.add_combatant(state, cid, s, side="party", distance=0, is_pc=True, house=HOUSE).state
    if not begin:
        return state
    with ScriptedDice(script) as dice:
        kw = {"attackers": None, "surprise": 0} | begin_kw
        return SYSTEM.begin(state, dice, HOUSE, **kw)


def duel():
    """The seed's duel: Duelist 2 entered first; Duelist 1 (Sequence 5 against 4) acts first."""
    return encounter(("d2", duelist_2()), ("d1", duelist_1())).state


def call(method, *args, script=()):
    """An adapter call with exactly ``script`` dice (a leftover or a missing die fails the test)."""
    with ScriptedDice(script) as dice:
        return method(*args, dice, HOUSE)


def row(state, cid):
    return next(c for c in SYSTEM.tracker(state).order if c.id == cid)


def kinds(out):
    return [e.kind for e in out.events]


# --- registry and order ---------------------------------------------------------------------------------
def test_the_registry_serves_this_adapter():
    assert get_system("nyra") is SYSTEM
    assert isinstance(SYSTEM, System) and (SYSTEM.name, SYSTEM.title) == ("nyra", "Nyra")


def test_before_begin_nobody_owes_a_turn_and_the_tracker_keeps_entry_order():
    state = encounter(("d2", duelist_2()), ("d1", duelist_1()), begin=False)
    turn = SYSTEM.turn(state)
    assert (turn.key, turn.actors, turn.label) == ("setup", (), "Setup")
    view = SYSTEM.tracker(state)
    assert not view.begun and view.round is None and view.current == ()
    assert [c.id for c in view.order] == ["d2", "d1"]
    with pytest.raises(NotAllowed, match="not begun"):
        call(SYSTEM.end_turn, state, "d1")
    with pytest.raises(NotAllowed, match="not begun"):
        call(SYSTEM.gm_next, state)


def test_seed_duel_duelist_1_acts_first_and_its_turn_has_started():
    out = encounter(("d2", duelist_2()), ("d1", duelist_1()))
    state = out.state
    turn = SYSTEM.turn(state)
    assert turn.actors == ("d1",) and turn.label == "Phase 1"
    view = SYSTEM.tracker(state)
    assert view.begun and view.round == 1 and view.current == ("d1",)
    assert [(c.id, c.initiative) for c in view.order] == [("d1", 5), ("d2", 4)]
    assert "Duelist 1: delay 6 of 6" in view.notes  # the first turn started: the pool is AGI
    assert kinds(out)[-1] == "TurnStarted"
    assert not any(e.kind == "Note" for e in out.events)


def test_attackers_and_surprise_change_nothing_but_are_noted():
    plain = encounter(("d2", duelist_2()), ("d1", duelist_1()))
    noted = encounter(("d2", duelist_2()), ("d1", duelist_1()), attackers="party", surprise=3)
    assert noted.state == plain.state
    assert noted.events[0].kind == "Note" and "Sequence" in noted.events[0].text
    assert noted.events[1:] == plain.events


def test_missing_sequences_are_rolled_at_begin_in_entry_order():
    a = sheet("A", AGI=5)
    b = sheet("B", AGI=5)
    state = encounter(("a", a), ("b", b), script=[(10, 3), (10, 8)]).state
    assert [(c.id, c.initiative) for c in SYSTEM.tracker(state).order] == [("b", 8), ("a", 3)]
    assert SYSTEM.turn(state).actors == ("b",)


# --- turns ----------------------------------------------------------------------------------------------
def test_ending_duelist_1s_turn_passes_to_duelist_2_and_changes_the_key():
    state = duel()
    before = SYSTEM.turn(state)
    out = call(SYSTEM.end_turn, state, "d1")
    after = SYSTEM.turn(out.state)
    assert after.actors == ("d2",) and after.key != before.key and after.label == "Phase 1"
    assert kinds(out) == ["TurnEnded", "TurnStarted"]
    # Duelist 2 ends: a new phase, Duelist 1 again, yet another key.
    again = call(SYSTEM.end_turn, out.state, "d2").state
    assert SYSTEM.turn(again).actors == ("d1",) and SYSTEM.turn(again).label == "Phase 2"
    assert len({before.key, after.key, SYSTEM.turn(again).key}) == 3


def test_ending_a_turn_out_of_turn_is_refused_and_changes_nothing():
    state = duel()
    snapshot = SYSTEM.state_to_dict(state)
    with pytest.raises(NotAllowed, match="Duelist 1's turn"):
        call(SYSTEM.end_turn, state, "d2")
    with pytest.raises(NotFound):
        call(SYSTEM.end_turn, state, "nobody")
    assert SYSTEM.state_to_dict(state) == snapshot


def test_gm_next_ends_the_turn_whoever_holds_it():
    out = call(SYSTEM.gm_next, duel())
    assert SYSTEM.turn(out.state).actors == ("d2",)
    assert out.events[0].kind == "TurnEnded" and out.events[0].reason == "gm"


# --- GM damage, bleeding, heal ----------------------------------------------------------------------------
def test_gm_damage_20_on_the_left_arm_is_serious_and_bleeds_1_at_the_start_of_its_next_turn():
    state = encounter(("d1", duelist_1()), ("v", vale())).state
    assert SYSTEM.damage_locations(state, "v") == (
        "Head",
        "Chest",
        "Left Arm",
        "Right Arm",
        "Left Leg",
        "Right Leg",
    )
    out = call(SYSTEM.gm_damage, state, "v", 20, "left arm")
    hurt = row(out.state, "v")
    arm = next(loc for loc in hurt.locations if loc.location == "Left Arm")
    assert arm == LocationView("Left Arm", 20, "serious", (12, 24, 26))
    assert hurt.health == "serious" and "bleeding 1" in hurt.conditions
    # Vale's next turn starts with the bleeding.
    turn = call(SYSTEM.end_turn, out.state, "d1")
    assert SYSTEM.turn(turn.state).actors == ("v",)
    bled = [e for e in turn.events if e.kind == "LocationDamaged"]
    assert [(e.location, e.source, e.amount) for e in bled] == [("Left Arm", "bleeding", 1)]
    arm = next(loc for loc in row(turn.state, "v").locations if loc.location == "Left Arm")
    assert arm.damage == 21


def test_gm_damage_without_a_location_rolls_it_on_the_targets_die():
    state = duel()
    out = call(SYSTEM.gm_damage, state, "d2", 5, None, script=[(6, 1)])
    assert kinds(out)[0] == "LocationRolled"
    head = next(loc for loc in row(out.state, "d2").locations if loc.location == "Head")
    assert (head.damage, head.state) == (5, "slight")


def test_gm_heal_treats_the_worst_wound_not_the_largest_number():
    state = encounter(("d1", duelist_1()), ("v", vale())).state
    state = call(SYSTEM.gm_damage, state, "v", 10, "Right Leg").state  # slight (limb slight 12)
    state = call(SYSTEM.gm_damage, state, "v", 7, "Head").state  # serious (head slight 6)
    out = call(SYSTEM.gm_heal, state, "v", 5)
    damage = {loc.location: loc.damage for loc in row(out.state, "v").locations}
    assert damage["Head"] == 2 and damage["Right Leg"] == 10
    assert out.events[0].kind == "LocationHealed" and out.events[0].location == "Head"
    with pytest.raises(NotAllowed, match="no damage"):
        call(SYSTEM.gm_heal, state, "d1", 5)


def test_a_fight_where_everyone_died_waits_until_the_gm_heals_someone():
    state = duel()
    state = call(SYSTEM.gm_damage, state, "d1", 15, "Head").state  # past critical 14: dead, turn passes
    assert SYSTEM.turn(state).actors == ("d2",)
    dead = call(SYSTEM.gm_damage, state, "d2", 15, "Head").state
    assert SYSTEM.turn(dead).actors == () and SYSTEM.tracker(dead).current == ()
    assert row(dead, "d2").health == "dead" and not row(dead, "d2").active
    with pytest.raises(NotAllowed, match="dead"):
        call(SYSTEM.gm_next, dead)
    healed = call(SYSTEM.gm_heal, dead, "d2", 5).state  # Head 10: serious again, alive
    out = call(SYSTEM.gm_next, healed)
    assert SYSTEM.turn(out.state).actors == ("d2",)
    assert SYSTEM.turn(out.state).key != SYSTEM.turn(dead).key
    head = next(loc for loc in row(out.state, "d2").locations if loc.location == "Head")
    assert head.damage == 11  # the serious head bled 1 as the turn started
    # Healing someone else: the dead holder's turn is passed to the living one, in a new phase.
    other = call(SYSTEM.gm_next, call(SYSTEM.gm_heal, dead, "d1", 5).state)
    assert SYSTEM.turn(other.state).actors == ("d1",) and SYSTEM.turn(other.state).label == "Phase 2"


# --- gm set, conditions, instances --------------------------------------------------------------------------
def test_gm_set_fields_show_in_the_tracker():
    state = duel()
    assert "delay" in SYSTEM.gm_fields()
    state = SYSTEM.gm_set(state, "d1", "delay", "2", HOUSE).state
    assert "Duelist 1: delay 2 of 6" in SYSTEM.tracker(state).notes
    out = SYSTEM.gm_set(state, "d2", "side", "foes", HOUSE)
    assert out.events[0].kind == "FieldSet"
    assert row(out.state, "d2").side == "foes"
    with pytest.raises(InvalidInput):
        SYSTEM.gm_set(state, "d2", "mood", "grim", HOUSE)


def test_a_sequence_that_needs_a_roll_off_is_refused_without_dice_and_rolled_with_them():
    state = duel()
    with pytest.raises(NotAllowed, match="d10"):
        SYSTEM.gm_set(state, "d2", "sequence", "5", HOUSE)  # ties Duelist 1 (Sequence 5, AGI 6)
    with ScriptedDice([(10, 8), (10, 3)]) as dice:  # roll-offs in entry order: d2, then d1
        out = SYSTEM.gm_set(state, "d2", "sequence", "5", HOUSE, dice=dice)
    assert [c.id for c in SYSTEM.tracker(out.state).order] == ["d2", "d1"]
    assert SYSTEM.turn(out.state).actors == ("d1",)  # the turn stays with its holder


def test_gm_condition_shows_in_the_tracker_and_round_trips():
    state = duel()
    assert {"prone", "stunned", "unaware"} <= set(SYSTEM.conditions())
    out = SYSTEM.gm_condition(state, "d2", "  Prone ", False, HOUSE)
    state = SYSTEM.gm_condition(out.state, "d2", "stunned", False, HOUSE).state
    assert row(state, "d2").conditions == ("prone", "stunned")
    assert (out.events[0].field, out.events[0].before, out.events[0].after) == ("conditions", "none", "prone")
    raw = json.loads(json.dumps(SYSTEM.state_to_dict(state)))
    assert SYSTEM.state_from_dict(raw) == state and SYSTEM.state_to_dict(SYSTEM.state_from_dict(raw)) == raw
    with pytest.raises(NotAllowed, match="already prone"):
        SYSTEM.gm_condition(state, "d2", "prone", False, HOUSE)
    state = SYSTEM.gm_condition(state, "d2", "PRONE", True, HOUSE).state
    assert row(state, "d2").conditions == ("stunned",)
    with pytest.raises(NotAllowed, match="not prone"):
        SYSTEM.gm_condition(state, "d2", "prone", True, HOUSE)
    with pytest.raises(InvalidInput, match="follows from the fight"):
        SYSTEM.gm_condition(state, "d2", "bleeding 2", False, HOUSE)
    with pytest.raises(InvalidInput):
        SYSTEM.gm_condition(state, "d2", "x" * 41, False, HOUSE)


def test_saved_conditions_and_is_pc_are_validated():
    raw = NyraCombatant.from_sheet("d1", duelist_1()).to_dict()
    assert raw["is_pc"] is True and raw["conditions"] == []
    raw |= {"is_pc": "yes", "conditions": ["prone", "prone", ""]}
    with pytest.raises(ValidationError) as err:
        NyraCombatant.from_dict(raw)
    assert {p.path for p in err.value.problems} == {"is_pc", "conditions[1]", "conditions[2]"}


def test_new_instance_is_refused():
    with pytest.raises(NotAllowed, match="D6"):
        SYSTEM.new_instance(duel(), HOUSE)


# --- joining and leaving ------------------------------------------------------------------------------------
def test_joining_a_running_fight_needs_dice_only_when_a_die_is_due():
    state = duel()
    newcomer = sheet("Nell")  # no Sequence
    with pytest.raises(NotAllowed, match="d10"):
        SYSTEM.add_combatant(state, "n", newcomer, side="foes", distance=3, is_pc=False, house=HOUSE)
    with ScriptedDice([(10, 9)]) as dice:
        out = SYSTEM.add_combatant(
            state, "n", newcomer, side="foes", distance=3, is_pc=False, house=HOUSE, dice=dice
        )
    view = SYSTEM.tracker(out.state)
    assert [c.id for c in view.order] == ["n", "d1", "d2"] and view.current == ("d1",)
    nell = row(out.state, "n")
    assert (nell.initiative, nell.side, nell.is_pc) == (9, "foes", False)
    # A newcomer with its own untied Sequence needs no die at all.
    calm = SYSTEM.add_combatant(
        state, "m", sheet("Mo", sequence=2), side="foes", distance=0, is_pc=False, house=HOUSE
    )
    assert [c.id for c in SYSTEM.tracker(calm.state).order] == ["d1", "d2", "m"]


def test_removing_the_current_combatant_starts_the_next_turn():
    state = encounter(("d1", duelist_1()), ("d2", duelist_2()), ("v", vale(sequence=2))).state
    out = SYSTEM.remove_combatant(state, "d1", HOUSE)
    assert [c.id for c in SYSTEM.tracker(out.state).order] == ["d2", "v"]
    assert SYSTEM.turn(out.state).actors == ("d2",) and SYSTEM.turn(out.state).key != SYSTEM.turn(state).key
    assert kinds(out) == ["TurnEnded", "TurnStarted", "Note"]
    # Removing someone else keeps the turn where it is.
    later = SYSTEM.remove_combatant(out.state, "v", HOUSE).state
    assert SYSTEM.turn(later).actors == ("d2",) and SYSTEM.turn(later).key == SYSTEM.turn(out.state).key
    with pytest.raises(NotAllowed, match="last combatant"):
        SYSTEM.remove_combatant(later, "d2", HOUSE)
    assert SYSTEM.state_from_dict(SYSTEM.state_to_dict(later)) == later


def test_removing_someone_earlier_in_the_order_keeps_the_current_turn():
    state = call(SYSTEM.end_turn, duel(), "d1").state  # Duelist 2's turn
    out = SYSTEM.remove_combatant(state, "d1", HOUSE)
    assert SYSTEM.turn(out.state).actors == ("d2",) and kinds(out) == ["Note"]


# --- house rules, sheets, checks ----------------------------------------------------------------------------
def test_house_rules_are_described_and_refuse_bad_values():
    house = SYSTEM.default_house()
    infos = {i.name: i for i in SYSTEM.describe_house(house)}
    assert infos["tie_rule"].value == "reroll" and infos["tie_rule"].allowed == (
        "reroll",
        "defender",
        "attacker",
    )
    assert infos["track_durability"].value == "off" and infos["track_durability"].allowed == ("on", "off")
    assert infos["tie_reroll_limit"].allowed == () and "1..20" in infos["tie_reroll_limit"].help
    changed = SYSTEM.set_house_rule(house, "tie_rule", "Defender")
    assert {i.name: i.value for i in SYSTEM.describe_house(changed)}["tie_rule"] == "defender"
    assert SYSTEM.house_from_dict(SYSTEM.house_to_dict(changed)) == changed
    with pytest.raises(InvalidInput):
        SYSTEM.set_house_rule(house, "tie_reroll_limit", "21")
    with pytest.raises(InvalidInput):
        SYSTEM.set_house_rule(house, "initiative", "1")


def test_sheet_view_lists_stats_skills_weapons_armour_and_location_health():
    s = SYSTEM.set_armour(vale(), "Iron Helm")
    view = SYSTEM.sheet_view(s)
    assert view.title == "Vale"
    sections = dict(view.sections)
    assert list(sections) == ["Stats", "Skills", "Weapons", "Armour", "Health"]
    assert dict(sections["Stats"])["STR"] == "6 (mod +2)" and dict(sections["Stats"])["Sequence"] == "4"
    assert dict(sections["Skills"]) == {"Swords": "6", "Dodge": "4"}
    assert "delay 3" in dict(sections["Weapons"])["Short Sword"]
    assert dict(sections["Armour"])["Iron Helm"].startswith("Head")
    assert dict(sections["Health"])["Left Arm"] == "slight 12 · serious 24 · critical 26"


def test_armour_comes_off_by_name_or_by_location():
    s = SYSTEM.set_armour(vale(), "Iron Helm")
    assert SYSTEM.set_armour(s, "iron helm", remove=True).armour == ()
    assert SYSTEM.set_armour(s, "Iron Helm", location="head", remove=True).armour == ()
    with pytest.raises(NotFound):
        SYSTEM.set_armour(s, "Iron Helm", location="Chest", remove=True)


def test_a_check_is_d10_against_the_skill_at_its_difficulty():
    d1 = duelist_1()  # Swords 7
    assert SYSTEM.check_stats(d1) == ("Swords", "Dodge", "STR", "AGI", "CON")
    with ScriptedDice([(10, 4)]) as dice:
        out = SYSTEM.check(d1, "swords", "difficult", 0, dice, HOUSE)  # effective ⌊7/2⌋ = 3
    result = out.events[0].check
    assert (result.effective, result.success, result.margin) == (3, False, -1)
    assert out.state == d1
    with ScriptedDice([(10, 7)]) as dice:
        result = SYSTEM.check(d1, "Swords", None, 0, dice, HOUSE).events[0].check  # normal by default
    assert result.difficulty.value == "normal" and result.success
    with ScriptedDice([]) as dice, pytest.raises(InvalidInput, match="difficulty"):
        SYSTEM.check(d1, "Swords", "heroic", 0, dice, HOUSE)


def test_creature_sheets_are_fresh_renamed_templates():
    wolf = SYSTEM.creature_sheet("wolf", "Wolf 2")
    assert SYSTEM.sheet_name(wolf) == "Wolf 2" and wolf.location_table == "quadruped"
    state = encounter(("w", wolf), begin=False)
    assert "Tail" in SYSTEM.damage_locations(state, "w")
    with pytest.raises(NotFound):
        SYSTEM.creature_sheet("dragon", "Smaug")


# --- notes ---------------------------------------------------------------------------------------------------
def test_a_defense_that_ends_the_volley_is_noted_while_the_turn_goes_on():
    house = SYSTEM.set_house_rule(HOUSE, "auto_end_turn", "never")
    state = duel()
    assert "volley ended by a Defense" not in SYSTEM.tracker(state).notes
    with ScriptedDice([(10, 5), (10, 1)]) as dice:  # attack margin 2; Duelist 2's Defense a critical 1
        out = strikes.strike(state, strikes.StrikeArgs("d1", "d2", "C"), dice, house)
    assert "VolleyEnded" in kinds(out) and SYSTEM.turn(out.state).actors == ("d1",)
    assert "volley ended by a Defense" in SYSTEM.tracker(out.state).notes


def test_energy_left_is_noted():
    state = encounter(("s", SYSTEM.creature_sheet("Sellsword", "Sellsword 1")), script=[(10, 4)]).state
    assert "Sellsword 1: energy 38 of 38" in SYSTEM.tracker(state).notes


def test_removing_the_last_living_combatants_turn_leaves_the_next_one_waiting():
    state = encounter(("d1", duelist_1()), ("d2", duelist_2()), ("v", vale(sequence=2))).state
    state = call(SYSTEM.gm_damage, state, "d2", 15, "Head").state
    state = call(SYSTEM.gm_damage, state, "v", 15, "Head").state  # only Duelist 1 lives, in its turn
    out = SYSTEM.remove_combatant(state, "d1", HOUSE)
    assert kinds(out) == ["Note"]  # no turn is started for anyone
    assert SYSTEM.turn(out.state).actors == () and SYSTEM.tracker(out.state).current == ()
    assert SYSTEM.state_from_dict(SYSTEM.state_to_dict(out.state)) == out.state
