"""The inputs a real table needs (RULES.md §4, Nyra): Delay ≥ 1, Sequence kept on the sheet, sheet edits
reaching the combatant, the GM's move cost, Defense with a shield, skill branches, healing a chosen location,
leftover delay after the last affordable strike, reserved names. Through ``SYSTEM`` as the shell calls it,
with exact scripted dice."""

import dataclasses

import pytest

from rules.dice import ScriptedDice
from rules.encounter import Action
from rules.errors import InvalidInput, NotAllowed, ValidationError
from rules.systems.nyra.adapter import SYSTEM

HOUSE = SYSTEM.default_house()


def sheet(name, skills, sequence=None, weapons=("Short Sword",), **extra):
    raw = {
        "name": name,
        "stats": {"STR": 7, "AGI": extra.pop("AGI", 6), "CON": 6},
        "skills": skills,
        "sequence": sequence,
        "weapons": list(weapons),
        **extra,
    }
    return SYSTEM.sheet_from_dict(raw)


def call(method, *args, script=(), house=HOUSE, **kw):
    with ScriptedDice(script) as dice:
        return method(*args, dice, house, **kw)


def act(state, script=(), house=HOUSE, **fields):
    return call(SYSTEM.act, state, Action(**fields), script=script, house=house)


def fight(*entries, script=(), house=HOUSE, npcs=()):
    state = SYSTEM.new_state()
    for cid, s in entries:
        pc = cid not in npcs
        state = SYSTEM.add_combatant(state, cid, s, side=cid, distance=0, is_pc=pc, house=house).state
    return call(SYSTEM.begin, state, script=script, house=house, attackers=None, surprise=0)


def duel(house=HOUSE, d1=None, d2=None):
    """The seed's duellists: Duelist 1 (Sequence 5, Dodge) acts first against Duelist 2 (Defense)."""
    return fight(
        ("d2", d2 or sheet("Duelist 2", {"Swords": 7, "Defense": 5}, 4)),
        ("d1", d1 or sheet("Duelist 1", {"Swords": 7, "Dodge": 5}, 5)),
        house=house,
    ).state


def kinds(out):
    return [e.kind for e in out.events]


def first(out, kind):
    return next(e for e in out.events if e.kind == kind)


# --- Delay ≥ 1 ----------------------------------------------------------------------------------------------
def test_a_weapon_with_delay_0_is_refused():
    weapon = {"name": "Feather", "skill": "Swords", "modifier": "STR", "delay": 0, "damage": {"P": "1d6"}}
    with pytest.raises(ValidationError) as err:
        sheet("A", {"Swords": 7}, weapons=[weapon])
    assert any(p.path == "weapons[0].delay" and "at least 1" in p.problem for p in err.value.problems)
    weapon["delay"] = 1
    assert sheet("A", {"Swords": 7}, weapons=[weapon]).weapons[0].delay == 1


# --- Sequence rolled once and kept ----------------------------------------------------------------------------
def test_a_missing_sequence_is_rolled_once_and_offered_to_the_sheet():
    out = fight(("a", sheet("A", {"Swords": 7}, None)), ("b", sheet("B", {"Swords": 7}, 3)), script=[(10, 8)])
    kept = [e for e in out.events if e.kind == "SheetFieldKept"]
    assert [(e.combatant, e.field, e.value) for e in kept] == [("a", "sequence", "8")]
    assert out.state.get("a").sheet.sequence == 8
    # The shell writes it to the character with the system's own setter.
    stored = SYSTEM.set_sheet_field(sheet("A", {"Swords": 7}), kept[0].field, kept[0].value)
    assert stored.sequence == 8
    # Next fight: nothing to roll.
    again = fight(("a", stored), ("b", sheet("B", {"Swords": 7}, 3)))
    assert "SequenceRolled" not in kinds(again) and "SheetFieldKept" not in kinds(again)


def test_an_npcs_rolled_sequence_is_for_this_fight_only():
    """An NPC has no character to keep its Sequence: it is rolled and used, but not offered to a sheet."""
    out = fight(
        ("a", sheet("A", {"Swords": 7}, None)),
        ("n", sheet("N", {"Swords": 7}, None)),
        script=[(10, 8), (10, 4)],
        npcs=("n",),
    )
    assert [e.combatant for e in out.events if e.kind == "SequenceRolled"] == ["a", "n"]
    assert [(e.combatant, e.value) for e in out.events if e.kind == "SheetFieldKept"] == [("a", "8")]
    assert out.state.get("n").sheet.sequence == 4


def test_a_late_joiner_without_sequence_keeps_the_roll_too():
    state = duel()
    out = SYSTEM.add_combatant(
        state,
        "c",
        sheet("C", {"Swords": 4}),
        side="c",
        distance=0,
        is_pc=True,
        house=HOUSE,
        dice=ScriptedDice([(10, 2)]),
    )
    assert [(e.field, e.value) for e in out.events if e.kind == "SheetFieldKept"] == [("sequence", "2")]


# --- sheet edits reach the combatant ---------------------------------------------------------------------------
WILD_CLEAVE = [(10, 3), (10, 4), (6, 3), (6, 3), (6, 4), (6, 2)]  # the seed's first strike (Left Arm, 12)


def test_armour_put_on_after_joining_counts_from_the_refresh_and_the_log_says_so():
    state = duel()
    worn = SYSTEM.set_armour(state.get("d2").sheet, "Chain Hauberk")
    out = SYSTEM.refresh_sheet(state, "d2", worn, HOUSE)
    refreshed = first(out, "SheetRefreshed")
    assert refreshed.combatant == "d2"
    assert any("Chain Hauberk" in c for c in refreshed.changes)
    hit = act(out.state, WILD_CLEAVE, kind="attack", actor="d1", target="d2", damage_type="C")
    damage = first(hit, "DamageRolled")
    assert (damage.location, damage.gross, damage.armour_total, damage.dealt) == ("Left Arm", 12, 3, 9)


def test_a_weapon_added_after_joining_can_strike_after_the_refresh():
    state = duel()
    armed = SYSTEM.set_weapon(state.get("d1").sheet, "Nodachi")
    with pytest.raises(Exception, match="carries no `Nodachi`"):
        act(state, kind="attack", actor="d1", target="d2", weapon="Nodachi", damage_type="S")
    state = SYSTEM.refresh_sheet(state, "d1", armed, HOUSE).state
    out = act(state, [(10, 9)], kind="attack", actor="d1", target="d2", weapon="Nodachi", damage_type="S")
    assert first(out, "StrikeDeclared").weapon == "Nodachi"


def test_damage_delay_and_energy_stay_encounter_state_and_a_fresh_turn_gets_the_new_agi():
    state = duel()
    state = act(state, WILD_CLEAVE, kind="attack", actor="d1", target="d2", damage_type="C").state
    d2 = state.get("d2")
    faster = SYSTEM.set_sheet_field(SYSTEM.set_sheet_field(d2.sheet, "AGI", "8"), "Swords", "8")
    # Not d2's turn: the damage stays, the pool is not touched.
    out = SYSTEM.refresh_sheet(state, "d2", faster, HOUSE)
    assert set(first(out, "SheetRefreshed").changes) == {"AGI 6 → 8", "skill Swords 7 → 8"}
    assert out.state.get("d2").location_damage == d2.location_damage
    assert out.state.get("d2").sequence == 4
    # At the start of its own turn, with nothing spent, the pool follows the new AGI.
    state = act(state, [(10, 9)], kind="attack", actor="d1", target="d2", damage_type="S").state
    assert state.current_id == "d2" and state.get("d2").delay_pool == 6
    state = SYSTEM.refresh_sheet(state, "d2", faster, HOUSE).state
    assert state.get("d2").delay_pool == 8
    assert state.get("d2").location_damage == d2.location_damage


def test_an_unchanged_sheet_says_nothing_and_a_new_location_table_is_not_taken():
    state = duel()
    assert SYSTEM.refresh_sheet(state, "d1", state.get("d1").sheet, HOUSE).events == ()
    beast = dataclasses.replace(state.get("d1").sheet, location_table="quadruped")
    out = SYSTEM.refresh_sheet(state, "d1", beast, HOUSE)
    assert "not applied" in first(out, "SheetRefreshed").changes[0]
    assert out.state == state


# --- move cost -------------------------------------------------------------------------------------------------
def test_a_move_costs_the_channel_default_unless_the_gm_gives_a_cost():
    house = SYSTEM.set_house_rule(HOUSE, "move_cost", "2")
    state = duel(house)
    out = act(state, house=house, kind="move", actor="d1")
    assert (first(out, "DelaySpent").cost, out.state.get("d1").delay_pool) == (2, 4)
    out = act(out.state, house=house, kind="move", actor="d1", cost=1)
    assert first(out, "DelaySpent").cost == 1
    free = act(duel(), kind="move", actor="d1")
    assert first(free, "DelaySpent").cost == 0


# --- Defense with a shield --------------------------------------------------------------------------------------
def test_defense_needs_a_shield_only_with_the_house_rule():
    # Off (default): the seed duel's Duelist 2 defends without any shield.
    out = act(duel(), WILD_CLEAVE, kind="attack", actor="d1", target="d2", damage_type="C")
    assert first(out, "ContestRolled").reaction_skill == "Defense"
    house = SYSTEM.set_house_rule(HOUSE, "defense_needs_shield", "on")
    # On, no shield: Duelist 2 has no Dodge, so it cannot react; the strike lands on the attack roll alone.
    out = act(
        duel(house),
        [(10, 3), (6, 3), (6, 3), (6, 4), (6, 2)],
        house=house,
        kind="attack",
        actor="d1",
        target="d2",
        damage_type="C",
    )
    contest = first(out, "ContestRolled")
    assert contest.reaction_skill is None and "no shield" in contest.stance_rule
    assert first(out, "StrikeResolved").result == "hit"
    # On, with a shield on the sheet: Defense again.
    shielded = SYSTEM.set_sheet_field(sheet("Duelist 2", {"Swords": 7, "Defense": 5}, 4), "shield", "Buckler")
    assert shielded.shield == "Buckler" and SYSTEM.sheet_from_dict(shielded.to_dict()) == shielded
    out = act(
        duel(house, d2=shielded),
        WILD_CLEAVE,
        house=house,
        kind="attack",
        actor="d1",
        target="d2",
        damage_type="C",
    )
    assert first(out, "ContestRolled").reaction_skill == "Defense"


def test_without_a_shield_a_defender_with_dodge_dodges():
    house = SYSTEM.set_house_rule(HOUSE, "defense_needs_shield", "on")
    both = sheet("Duelist 2", {"Swords": 7, "Defense": 5, "Dodge": 3}, 4)
    out = act(
        duel(house, d2=both),
        [(10, 7), (10, 1)],
        house=house,
        kind="attack",
        actor="d1",
        target="d2",
        damage_type="C",
    )
    assert first(out, "ContestRolled").reaction_skill == "Dodge"


# --- skill branches ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("branch", ["Swords/Claymore", "Claymore"])
def test_a_branch_skill_is_rolled_instead_of_its_parent(branch):
    d1 = sheet("Duelist 1", {"Swords": 7, branch: 9, "Dodge": 5}, 5, weapons=("Claymore", "Short Sword"))
    state = duel(d1=d1)
    # Claymore: the branch, 9. A 9 would miss Swords 7.
    out = act(
        state, [(10, 9), (10, 1)], kind="attack", actor="d1", target="d2", weapon="Claymore", damage_type="C"
    )
    attack = first(out, "ContestRolled").attack
    assert (attack.skill_name, attack.skill, attack.success) == (branch, 9, True)
    # The Short Sword is no Claymore: its parent skill.
    state = duel(d1=d1)
    out = act(state, [(10, 9)], kind="attack", actor="d1", target="d2", weapon="Short Sword", damage_type="C")
    assert first(out, "ContestRolled").attack.skill_name == "Swords"


# --- /gm heal location ----------------------------------------------------------------------------------------
def test_gm_heal_heals_the_location_named_or_the_worst_wound():
    state = duel()
    state = call(SYSTEM.gm_damage, state, "d2", 5, "Head").state
    state = call(SYSTEM.gm_damage, state, "d2", 20, "Chest").state
    out = call(SYSTEM.gm_heal, state, "d2", 3, location="head")
    assert out.state.get("d2").damage_at("Head") == 2
    assert out.state.get("d2").damage_at("Chest") == 20
    out = call(SYSTEM.gm_heal, state, "d2", 3)
    assert out.state.get("d2").damage_at("Chest") == 17
    with pytest.raises(NotAllowed, match="Left Leg has no damage"):
        call(SYSTEM.gm_heal, state, "d2", 3, location="Left Leg")


# --- leftover delay ---------------------------------------------------------------------------------------------
def test_leftover_delay_after_the_last_affordable_strike_can_go_to_a_move():
    d1 = sheet(
        "Duelist 1", {"Swords": 7, "Dodge": 5}, 5, AGI=7
    )  # 7 delay, Short Sword 3: two strikes, 1 left
    state = duel(d1=d1)
    state = act(state, [(10, 9)], kind="attack", actor="d1", target="d2", damage_type="C").state
    out = act(state, [(10, 9)], kind="attack", actor="d1", target="d2", damage_type="C")
    assert "TurnEnded" not in kinds(out)
    assert (out.state.current_id, out.state.get("d1").delay_pool) == ("d1", 1)
    moved = act(out.state, kind="move", actor="d1", cost=1)
    assert first(moved, "TurnEnded").reason == "delay spent"
    # When a move costs more than what is left, nothing is affordable: the turn ends by itself.
    house = SYSTEM.set_house_rule(HOUSE, "move_cost", "2")
    state = act(
        duel(house, d1=d1), [(10, 9)], house=house, kind="attack", actor="d1", target="d2", damage_type="C"
    ).state
    out = act(state, [(10, 9)], house=house, kind="attack", actor="d1", target="d2", damage_type="C")
    assert first(out, "TurnEnded").reason == "nothing affordable"


# --- reserved names ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hp", "HP", "hp_max", "max hp"])
def test_reserved_names_are_not_skills(name):
    with pytest.raises(InvalidInput, match="no HP"):
        SYSTEM.set_sheet_field(sheet("A", {"Swords": 7}), name, "20")
    with pytest.raises(ValidationError, match="reserved"):
        sheet("A", {"Swords": 7, name: 3})
