"""The D6 campaign through the system-agnostic adapter (rules.encounter.System), with exact scripted dice."""

import json

import pytest

from rules.dice import ScriptedDice
from rules.encounter import GrappleView, HealPoolView, System
from rules.errors import InvalidInput, NotAllowed, NotFound
from rules.events import Note
from rules.systems.d6 import turn as turns
from rules.systems.d6.adapter import SYSTEM
from rules.systems.d6.events import (
    DamageApplied,
    FieldSet,
    GrappleEnded,
    HealPoolChanged,
    InitiativeRolled,
    LastGaspEntered,
    OutOfFight,
    Rolled,
    TurnEnded,
    TurnStarted,
)
from rules.systems.d6.state import D6State, Defense, Grapple, PlannedAction
from rules.systems.registry import get_system

from .helpers import SHORT_SWORD, only, sheet

HOUSE = SYSTEM.default_house()

# Entry order P T O A E B1 B2 B3. Party Perception 4D, bandits 2D (+10 ambush); each pool's Wild Die last:
# P 17, T 15, O 16, A 15, E 9, B1 B2 B3 15 each.
SEED_DICE = [5, 4, 4, 4,  4, 4, 4, 3,  4, 4, 4, 4,  3, 4, 4, 4,  2, 2, 2, 3,  2, 3,  2, 3,  2, 3]  # fmt: skip
# Positions `B1 B2 B3 (centre) P T O A E`: distance from the centre.
DISTANCE = {"B1": 3, "B2": 2, "B3": 1, "P": 1, "T": 2, "O": 3, "A": 4, "E": 5}
SEED_ORDER = ("P", "O", "A", "T", "B1", "B2", "B3", "E")


def setup_state() -> D6State:
    """The seed's party (T a level-2 healer, O restoration 1: heal pool 1 + 3/3 = 2) and three bandits."""
    state = SYSTEM.new_state()
    levels = {"T": {"healing_level": 2}, "O": {"restoration_level": 1}}
    for cid in "PTOAE":
        s = sheet(cid, perception="4D", hp_max=20, weapons=(SHORT_SWORD,), **levels.get(cid, {}))
        state = SYSTEM.add_combatant(
            state, cid, s, side="party", distance=DISTANCE[cid], is_pc=True, house=HOUSE
        ).state
    for cid in ("B1", "B2", "B3"):
        s = sheet(cid, perception="2D", hp_max=14, weapons=(SHORT_SWORD,))
        state = SYSTEM.add_combatant(
            state, cid, s, side="bandits", distance=DISTANCE[cid], is_pc=False, house=HOUSE
        ).state
    return state


def seed_fight():
    with ScriptedDice(SEED_DICE) as dice:
        return SYSTEM.begin(setup_state(), dice, HOUSE, attackers="bandits", surprise=10)


def call(method, *args, script=(), **kw):
    """An adapter call with exactly ``script`` dice (a leftover or a missing die fails the test)."""
    with ScriptedDice(script) as dice:
        return method(*args, dice, HOUSE, **kw)


def row(state, cid):
    return next(c for c in SYSTEM.tracker(state).order if c.id == cid)


def end_turns(state, count):
    for _ in range(count):
        state = call(SYSTEM.end_turn, state, SYSTEM.turn(state).actors[0]).state
    return state


# --- registry, initiative and turns -------------------------------------------------------------------
def test_the_registry_serves_this_adapter():
    assert get_system("d6") is SYSTEM
    assert isinstance(SYSTEM, System) and (SYSTEM.name, SYSTEM.title) == ("d6", "the D6 campaign")


def test_setup_tracker_is_in_entry_order_and_nobody_acts():
    state = setup_state()
    view = SYSTEM.tracker(state)
    assert not view.begun and view.round is None
    assert [c.id for c in view.order] == ["P", "T", "O", "A", "E", "B1", "B2", "B3"]
    assert SYSTEM.turn(state).actors == () and SYSTEM.turn(state).key == "setup"
    assert view.heal_pool == HealPoolView(size=2, used=0, instance=1)


def test_seed_initiative_example_through_begin():
    out = seed_fight()
    totals = {e.who: e.total for e in out.events if isinstance(e, InitiativeRolled)}
    assert totals == {"P": 17, "T": 15, "O": 16, "A": 15, "E": 9, "B1": 15, "B2": 15, "B3": 15}
    view = SYSTEM.tracker(out.state)
    assert view.begun and view.round == 1
    assert tuple(c.id for c in view.order) == SEED_ORDER
    assert [c.initiative for c in view.order] == [17, 16, 15, 15, 15, 15, 15, 9]
    turn = SYSTEM.turn(out.state)
    assert turn.actors == ("P",) and turn.label == "Round 1" and view.current == ("P",)
    assert only(out.events, TurnStarted).who == "P"


def test_ending_a_turn_passes_it_on_and_changes_the_key():
    state = seed_fight().state
    before = SYSTEM.turn(state)
    out = call(SYSTEM.end_turn, state, "P")
    after = SYSTEM.turn(out.state)
    assert after.actors == ("O",) and after.key != before.key
    assert [e.kind for e in out.events] == ["TurnEnded", "TurnStarted"]


def test_a_turn_out_of_turn_is_refused_and_changes_nothing():
    state = seed_fight().state
    with pytest.raises(NotAllowed, match="It is P's turn, not O's"):
        call(SYSTEM.end_turn, state, "O")
    with pytest.raises(NotFound):
        call(SYSTEM.end_turn, state, "nobody")
    with pytest.raises(NotAllowed, match="not begun"):
        call(SYSTEM.end_turn, setup_state(), "P")


def test_a_full_round_comes_back_to_the_top_as_round_2():
    state = end_turns(seed_fight().state, 8)
    turn = SYSTEM.turn(state)
    assert turn.actors == ("P",) and turn.label == "Round 2" and turn.key == "2.0"


def test_gm_next_ends_whoever_holds_the_turn():
    state = seed_fight().state
    out = call(SYSTEM.gm_next, state)
    assert only(out.events, TurnEnded).who == "P" and SYSTEM.turn(out.state).actors == ("O",)
    with pytest.raises(NotAllowed):
        call(SYSTEM.gm_next, setup_state())


def test_an_unlocked_plan_is_dropped_at_the_end_of_the_turn():
    state = seed_fight().state
    state = turns.declare(state, "P", PlannedAction("attack", target="B1")).state
    state = turns.declare(state, "P", PlannedAction("defend", stance="parry")).state
    assert "plan (−1D each): attack B1, parry" in SYSTEM.tracker(state).notes
    out = call(SYSTEM.end_turn, state, "P")
    assert any(isinstance(e, Note) and "never locked in" in e.text for e in out.events)
    assert not any(n.startswith("plan") for n in SYSTEM.tracker(out.state).notes)


def test_begin_refuses_an_unknown_attacking_side_and_a_second_begin():
    with pytest.raises(InvalidInput, match="Sides: party, bandits"):
        call(SYSTEM.begin, setup_state(), attackers="goblins", surprise=10)
    with pytest.raises(InvalidInput, match="attackers"):
        call(SYSTEM.begin, setup_state(), attackers=None, surprise=10)
    with pytest.raises(NotAllowed):
        call(SYSTEM.begin, seed_fight().state, attackers=None, surprise=0)


def test_begin_passes_over_a_combatant_already_out():
    state = setup_state()
    state = call(SYSTEM.gm_damage, state, "B1", 14, None).state  # NPC at 0: out before the fight
    # Still rolls (it is not dead): 6+5 +10 = 21 puts it first, but it is passed over.
    script = [*SEED_DICE[:20], 6, 5, *SEED_DICE[22:]]
    with ScriptedDice(script) as dice:
        out = SYSTEM.begin(state, dice, HOUSE, attackers="bandits", surprise=10)
    assert out.state.order[0] == "B1"
    assert SYSTEM.turn(out.state).actors == ("P",)


# --- health through the GM tools ------------------------------------------------------------------------
def test_gm_damage_to_zero_puts_a_pc_into_last_gasp_and_recomputes_the_pool():
    state = seed_fight().state
    out = call(SYSTEM.gm_damage, state, "T", 20, None)
    assert only(out.events, LastGaspEntered).who == "T"
    change = only(out.events, HealPoolChanged)
    assert (change.before, change.after) == (2, 1)
    t = row(out.state, "T")
    assert (t.hp, t.health, t.last_gasp_round, t.stored_healing) == (0, "Last Gasp", 0, 0)
    assert "prone" in t.conditions and t.active
    assert SYSTEM.tracker(out.state).heal_pool == HealPoolView(size=1, used=0, instance=1)
    assert SYSTEM.damage_locations(state, "T") == ()
    with pytest.raises(InvalidInput, match="no hit locations"):
        call(SYSTEM.gm_damage, state, "T", 3, "head")


def test_last_gasp_still_takes_its_turn_and_an_out_npc_is_skipped():
    state = seed_fight().state
    state = call(SYSTEM.gm_damage, state, "T", 20, None).state
    state = call(SYSTEM.gm_damage, state, "B1", 14, None).state
    assert only(call(SYSTEM.gm_damage, state, "B2", 14, None).events, OutOfFight).who == "B2"
    assert row(state, "B1").health == "out" and not row(state, "B1").active
    state = end_turns(state, 3)  # P, O, A
    assert SYSTEM.turn(state).actors == ("T",)
    state = call(SYSTEM.gm_next, state).state  # T owes its Death Save: only the GM moves past it
    assert SYSTEM.turn(state).actors == ("B2",)


def test_npc_last_gasp_follows_the_house_rule():
    house = SYSTEM.set_house_rule(HOUSE, "npc_last_gasp", "on")
    with ScriptedDice([]) as dice:
        out = SYSTEM.gm_damage(seed_fight().state, "B1", 14, None, dice, house)
    assert row(out.state, "B1").health == "Last Gasp"


def test_gm_heal_to_positive_hp_leaves_last_gasp_and_refills_the_pool_size():
    state = call(SYSTEM.gm_damage, seed_fight().state, "T", 22, None).state
    out = call(SYSTEM.gm_heal, state, "T", 5)
    t = row(out.state, "T")
    assert (t.hp, t.health, t.last_gasp_round, "prone" in t.conditions) == (3, "wounded", None, False)
    assert SYSTEM.tracker(out.state).heal_pool.size == 2


def test_health_words():
    state = seed_fight().state
    assert row(state, "P").health == "unhurt"
    assert row(call(SYSTEM.gm_damage, state, "P", 1, None).state, "P").health == "wounded"
    assert row(call(SYSTEM.gm_damage, state, "P", 41, None).state, "P").health == "dead"


# --- gm_set ----------------------------------------------------------------------------------------------
def grappling(counter: int = 1, pinned: bool = False) -> D6State:
    return seed_fight().state.put_grapple(Grapple("B1", "O", counter, pinned))


def test_gm_set_grapple_counter_shows_in_the_tracker():
    state = grappling(counter=1)
    out = SYSTEM.gm_set(state, "O", "grapple_counter", "B1 3", HOUSE)
    view = SYSTEM.tracker(out.state)
    assert view.grapples == (GrappleView("B1", "O", -3, None),)
    assert "staggered ×3" in row(out.state, "B1").conditions
    assert only(out.events, FieldSet).after == "+3"
    # The single grapple needs no name; by name works too.
    again = SYSTEM.gm_set(out.state, "B1", "grapple counter", "-1", HOUSE).state
    assert SYSTEM.tracker(again).grapples == (GrappleView("B1", "O", -1, None),)


def test_a_kept_tracker_row_follows_what_the_rest_of_the_state_says_of_its_combatant():
    state = seed_fight().state
    shown = row(state, "O")  # made, and kept on the combatant
    pinned = state.put_grapple(Grapple("B1", "O", 3, True))
    assert pinned.get("O") is state.get("O")  # the grapple changed the state around O, not O
    assert "pinned" not in shown.conditions
    assert "pinned" in row(pinned, "O").conditions
    assert row(state, "O").conditions == shown.conditions  # the state before still reads as it was
    assert row(pinned, "P") is row(state, "P")  # a row nothing touched is the one made before
    hurt = call(SYSTEM.gm_damage, pinned, "P", 2, None).state
    assert row(hurt, "P").hp == row(pinned, "P").hp - 2  # a changed combatant gets a new row


def test_gm_set_grapple_counter_keeps_the_range_and_ends_a_pin_it_moves():
    pinned = grappling(counter=3, pinned=True)
    assert SYSTEM.tracker(pinned).grapples[0].pinned == "O"
    assert "pinned" in row(pinned, "O").conditions
    moved = SYSTEM.gm_set(pinned, "B1", "grapple_counter", "2", HOUSE).state
    assert SYSTEM.tracker(moved).grapples == (GrappleView("B1", "O", 2, None),)
    with pytest.raises(InvalidInput, match="from -3 to 3"):
        SYSTEM.gm_set(pinned, "O", "grapple_counter", "B1 4", HOUSE)
    with pytest.raises(NotAllowed, match="not grappling"):
        SYSTEM.gm_set(pinned, "O", "grapple_counter", "B2 1", HOUSE)
    with pytest.raises(NotAllowed, match="not grappling anyone"):
        SYSTEM.gm_set(pinned, "P", "grapple_counter", "1", HOUSE)


def test_gm_set_stored_healing_and_last_gasp_round_show_in_the_tracker():
    state = call(SYSTEM.gm_damage, seed_fight().state, "T", 20, None).state
    state = SYSTEM.gm_set(state, "T", "stored_healing", "6", HOUSE).state
    state = SYSTEM.gm_set(state, "T", "last_gasp_round", "2", HOUSE).state
    t = row(state, "T")
    assert (t.stored_healing, t.last_gasp_round) == (6, 2)
    with pytest.raises(InvalidInput, match="from 0 to"):
        SYSTEM.gm_set(state, "T", "stored_healing", "-1", HOUSE)
    with pytest.raises(NotAllowed, match="not in Last Gasp"):
        SYSTEM.gm_set(state, "P", "stored_healing", "3", HOUSE)


def test_gm_set_hp_goes_through_the_health_path():
    state = seed_fight().state
    out = SYSTEM.gm_set(state, "T", "hp", "0", HOUSE)
    assert row(out.state, "T").health == "Last Gasp"
    assert only(out.events, DamageApplied).hp_after == 0
    assert SYSTEM.tracker(out.state).heal_pool.size == 1  # T's healing levels left the pool
    with pytest.raises(InvalidInput, match="from -20 to 20"):
        SYSTEM.gm_set(state, "O", "hp", "21", HOUSE)
    capped = SYSTEM.gm_set(state, "O", "hp_max", "12", HOUSE).state
    assert (row(capped, "O").hp, row(capped, "O").hp_max) == (12, 12)


def test_gm_set_plain_fields_and_the_heal_pool():
    state = seed_fight().state
    state = SYSTEM.gm_set(state, "E", "side", "traitors", HOUSE).state
    state = SYSTEM.gm_set(state, "E", "distance", "9", HOUSE).state
    state = SYSTEM.gm_set(state, "E", "heal_pool_uses", "2", HOUSE).state
    assert row(state, "E").side == "traitors" and state.get("E").distance == 9
    assert SYSTEM.tracker(state).heal_pool == HealPoolView(size=2, used=2, instance=1)
    with pytest.raises(InvalidInput, match="from 0 to 2"):
        SYSTEM.gm_set(state, "E", "heal_pool_uses", "3", HOUSE)
    items = SYSTEM.gm_set(state, "E", "heal_pool_items", "2", HOUSE).state
    assert SYSTEM.tracker(items).heal_pool.size == 4
    with pytest.raises(InvalidInput, match="Fields: hp, hp_max"):
        SYSTEM.gm_set(state, "E", "segment", "3", HOUSE)
    with pytest.raises(InvalidInput, match="whole number"):
        SYSTEM.gm_set(state, "E", "distance", "far", HOUSE)


def test_gm_set_initiative_takes_effect_from_the_next_round():
    state = seed_fight().state
    state = SYSTEM.gm_set(state, "E", "initiative", "30", HOUSE).state
    assert "E: initiative 30 from round 2" in SYSTEM.tracker(state).notes
    assert row(state, "E").initiative == 9
    state = end_turns(state, 8)
    assert SYSTEM.tracker(state).order[0].id == "E" and SYSTEM.turn(state).actors == ("E",)
    with pytest.raises(NotAllowed, match="rolled when the fight begins"):
        SYSTEM.gm_set(setup_state(), "E", "initiative", "3", HOUSE)


def test_new_instance_refills_the_pool():
    state = SYSTEM.gm_set(seed_fight().state, "P", "heal_pool_uses", "2", HOUSE).state
    out = SYSTEM.new_instance(state, HOUSE)
    assert SYSTEM.tracker(out.state).heal_pool == HealPoolView(size=2, used=0, instance=2)
    assert only(out.events, HealPoolChanged).remaining == 2
    assert SYSTEM.state_from_dict(SYSTEM.state_to_dict(out.state)) == out.state


def test_a_state_saved_before_instances_were_numbered_still_loads():
    raw = SYSTEM.state_to_dict(seed_fight().state)
    del raw["instance"]
    assert SYSTEM.state_from_dict(raw).instance == 1


# --- conditions and the tracker's rows ----------------------------------------------------------------------
def test_staggered_stacks_one_per_call_and_other_conditions_show():
    state = seed_fight().state
    for _ in range(2):
        state = SYSTEM.gm_condition(state, "A", "staggered", False, HOUSE).state
    assert "staggered ×2" in row(state, "A").conditions
    state = SYSTEM.gm_condition(state, "A", "staggered", True, HOUSE).state
    state = SYSTEM.gm_condition(state, "A", "prone", False, HOUSE).state
    state = SYSTEM.gm_condition(state, "A", "hidden", False, HOUSE).state
    assert row(state, "A").conditions == ("staggered", "prone", "hidden")
    with pytest.raises(InvalidInput, match="staggered, prone, hidden, overwhelmed"):
        SYSTEM.gm_condition(state, "A", "on fire", False, HOUSE)
    with pytest.raises(NotAllowed, match="grapple pin"):
        SYSTEM.gm_condition(state, "A", "pinned", False, HOUSE)
    assert SYSTEM.conditions() == ("staggered", "prone", "hidden", "overwhelmed")


def test_defenses_show_with_their_use():
    state = seed_fight().state
    state = state.update("P", defense=Defense("parry", False, 14, 2, ("B1",)))
    state = state.update("O", defense=Defense("dodge", True, 12, 2))
    assert "parry 14 (1/2)" in row(state, "P").conditions
    assert row(state, "O").conditions == ("dodge 12 (0/2)", "total defense")


# --- joining, leaving ---------------------------------------------------------------------------------------
def test_a_late_joiner_rolls_when_the_round_ends_and_joins_the_next():
    state = seed_fight().state
    out = SYSTEM.add_combatant(
        state,
        "W",
        sheet("W", perception="1D", hp_max=8),
        side="bandits",
        distance=0,
        is_pc=False,
        house=HOUSE,
    )
    state = out.state
    assert [c.id for c in SYSTEM.tracker(state).order][-1] == "W"
    assert "W joins the turn order from round 2" in SYSTEM.tracker(state).notes
    state = end_turns(state, 7)  # up to E, the last of round 1
    with ScriptedDice([6, 6, 2]) as dice:  # W's Perception 1D: 6, explodes 6, 2 → 6 + 8/2 = 10
        out = SYSTEM.end_turn(state, "E", dice, HOUSE)
    assert only(out.events, InitiativeRolled).total == 10
    assert out.state.order == (*SEED_ORDER[:-1], "W", "E")


def test_remove_combatant_keeps_the_turn_and_refuses_the_turn_holder():
    state = end_turns(seed_fight().state, 2)  # A holds the turn
    state = state.put_grapple(Grapple("B1", "O", 1))
    with pytest.raises(NotAllowed, match="end it first"):
        SYSTEM.remove_combatant(state, "A", HOUSE)
    out = SYSTEM.remove_combatant(state, "O", HOUSE)
    assert SYSTEM.turn(out.state).actors == ("A",)
    assert only(out.events, GrappleEnded).reason == "O left the encounter"
    assert [c.id for c in SYSTEM.tracker(out.state).order] == ["P", "A", "T", "B1", "B2", "B3", "E"]
    assert SYSTEM.tracker(out.state).heal_pool.size == 2  # levels 2: 1 + 1
    gone = SYSTEM.remove_combatant(out.state, "T", HOUSE).state
    assert SYSTEM.tracker(gone).heal_pool.size == 1  # the healer left: no levels


# --- sheets, checks, house rules ----------------------------------------------------------------------------
def test_sheet_view_sections():
    sheet_ = SYSTEM.creature_sheet("bandit", "Bandit chief")
    view = SYSTEM.sheet_view(sheet_)
    assert view.title == "Bandit chief"
    sections = dict(view.sections)
    assert list(sections) == ["Attributes", "Skills", "Combat", "Weapons"]
    assert dict(sections["Attributes"])["Perception"] == "2D+1"
    assert dict(sections["Skills"])["dodge"] == "1D on Agility"
    combat = dict(sections["Combat"])
    assert (combat["HP"], combat["Save"], combat["Armour"]) == (
        "14/14",
        "10 (natural)",
        "padded leather: AR 4, light",
    )
    assert dict(sections["Weapons"])["short sword"].startswith("1D+2 cutting")


def test_weapons_and_armour_from_the_tables():
    s = SYSTEM.new_sheet("Vale")
    s = SYSTEM.set_weapon(s, "short sword")
    assert SYSTEM.sheet_weapons(s) == ("short sword",)
    with pytest.raises(NotAllowed):
        SYSTEM.set_weapon(s, "Short Sword")
    assert SYSTEM.sheet_weapons(SYSTEM.set_weapon(s, "short sword", remove=True)) == ()
    s = SYSTEM.set_armour(s, "padded leather")
    assert (s.armour_ar, s.armour_name) == (4, "padded leather")
    assert SYSTEM.set_armour(s, "padded leather", remove=True).armour_ar == 0
    with pytest.raises(InvalidInput, match="whole body"):
        SYSTEM.set_armour(s, "padded leather", location="head")
    with pytest.raises(NotFound):
        SYSTEM.set_armour(s, "mithril")


def test_check_is_a_pool_roll_against_a_difficulty_to_beat():
    s = SYSTEM.set_sheet_field(SYSTEM.new_sheet("Vale"), "athletics", "1D")  # on Physique 2D → 3D
    assert "athletics" in SYSTEM.check_stats(s)
    with ScriptedDice([4, 4, 3]) as dice:
        out = SYSTEM.check(s, "athletics", "12", 1, dice, HOUSE)  # 11 + 1 = 12: a tie fails
    assert only(out.events, Rolled).total == 12 and out.state == s
    assert only(out.events, Note).text.endswith("failure")
    with ScriptedDice([4, 4, 4]) as dice:
        out = SYSTEM.check(s, "Athletics", "11", 0, dice, HOUSE)
    assert only(out.events, Note).text.endswith("success")
    with ScriptedDice([2, 2]) as dice:
        assert len(SYSTEM.check(s, "charisma", None, 0, dice, HOUSE).events) == 1
    with pytest.raises(InvalidInput, match="Choose one of: physique"):
        call(SYSTEM.check, s, "swords", None, 0)
    with pytest.raises(InvalidInput, match="target number"):
        call(SYSTEM.check, s, "physique", "hard", 0)


def test_house_rules_are_described_and_checked():
    infos = {i.name: i for i in SYSTEM.describe_house(HOUSE)}
    assert infos["explode"].value == "halved" and infos["explode"].allowed == ("halved", "full")
    assert infos["npc_last_gasp"].value == "off" and infos["npc_last_gasp"].allowed == ("on", "off")
    assert infos["called_shot_bonus"].allowed == () and "0..30" in infos["called_shot_bonus"].help
    house = SYSTEM.set_house_rule(HOUSE, "explode", "full")
    assert SYSTEM.house_from_dict(SYSTEM.house_to_dict(house)) == house
    with pytest.raises(InvalidInput, match=r"0\.\.30"):
        SYSTEM.set_house_rule(HOUSE, "called_shot_bonus", "99")


def test_state_and_events_serialise():
    out = call(SYSTEM.gm_damage, seed_fight().state, "T", 20, None)
    assert SYSTEM.state_from_dict(json.loads(json.dumps(SYSTEM.state_to_dict(out.state)))) == out.state
    assert json.loads(json.dumps([e.to_dict() for e in out.events]))[0]["kind"] == "DamageApplied"
