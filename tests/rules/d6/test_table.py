"""The D6 campaign at the table (RULES.md §4): one-command turns, owed Death Saves, plannable checks and
free actions, the flank flag, moving while hidden, plans checked as they unfold, the Wild Die on throw and
take-down damage. Through ``SYSTEM`` with the default house rules and exact scripted dice."""

import pytest

from rules.dice import ScriptedDice
from rules.encounter import Action
from rules.errors import NotAllowed
from rules.events import Note
from rules.systems.d6.adapter import SYSTEM
from rules.systems.d6.events import (
    ActionDeclared,
    AttackRolled,
    DeathSave,
    DeathSaveOwed,
    DeathSaveSkipped,
    DefenseOverwhelmed,
    FreeActionTaken,
    GrappleEnded,
    GrappleRolled,
    GrappleThrown,
    Rolled,
    StealthCheckDue,
    StealthChecked,
    TakenDown,
    TurnEnded,
    TurnLocked,
)
from rules.systems.d6.pool import DieCode
from rules.systems.d6.state import D6State, Defense, Grapple

from .helpers import only
from .test_adapter_actions import npc, pc

HOUSE = SYSTEM.default_house()


def call(method, *args, script=(), house=HOUSE, **kw):
    with ScriptedDice(script) as dice:
        return method(*args, dice, house, **kw)


def fight(*entries, init, house=HOUSE):
    state = SYSTEM.new_state()
    for cid, s, side, is_pc in entries:
        state = SYSTEM.add_combatant(state, cid, s, side=side, distance=0, is_pc=is_pc, house=house).state
    return call(SYSTEM.begin, state, script=init, attackers=None, surprise=0).state


def act(state, kind, actor, script=(), house=HOUSE, **kw):
    return call(SYSTEM.act, state, Action(kind, actor, **kw), script=script, house=house)


def notes(events):
    return [e.text for e in events if isinstance(e, Note)]


def holder(state):
    return SYSTEM.turn(state).actors


# --- one command for a one-action turn ----------------------------------------------------------------
def test_an_action_with_lock_declares_resolves_and_ends_the_turn():
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    out = act(state, "attack", "Eva", [1, 1, 2], target="T", lock=True)  # 4 vs save 10: a miss
    kinds = [e.kind for e in out.events]
    assert kinds.index("ActionDeclared") < kinds.index("TurnLocked") < kinds.index("AttackRolled")
    assert kinds.index("AttackRolled") < kinds.index("TurnEnded") < kinds.index("TurnStarted")
    assert only(out.events, TurnEnded).who == "Eva"
    assert holder(out.state) == ("T",)
    assert "Eva's turn is done." in notes(out.events)


def test_lockin_ends_the_turn_and_the_house_rule_keeps_it_open():
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    declared = act(state, "attack", "Eva", target="T")
    assert holder(declared.state) == ("Eva",)
    out = act(declared.state, "lockin", "Eva", [1, 1, 2])
    assert holder(out.state) == ("T",)
    house = SYSTEM.set_house_rule(HOUSE, "lock_ends_turn", "off")
    kept = act(declared.state, "lockin", "Eva", [1, 1, 2], house=house)
    assert holder(kept.state) == ("Eva",) and kept.state.plan.locked
    assert "end it with `/turn end`" in notes(kept.events)[-1]
    assert holder(call(SYSTEM.end_turn, kept.state, "Eva", house=house).state) == ("T",)


# --- Death Saves are owed -----------------------------------------------------------------------------
def test_a_last_gasp_turn_owes_its_save_and_the_malus_counts_turns_with_one_skipped_by_the_gm():
    # Thug (5) acts before Orn (2). Orn drops to −2 on the Thug's turn.
    state = fight(pc("Orn", physique="3D", charisma="2D", hp_max=10), npc("Thug"), init=[2, 5])
    state = call(SYSTEM.gm_damage, state, "Orn", 12, None).state
    started = call(SYSTEM.end_turn, state, "Thug")
    owed = only(started.events, DeathSaveOwed)
    assert (owed.who, owed.turn, owed.malus) == ("Orn", 1, 0)
    state = started.state
    with pytest.raises(NotAllowed, match="owes this turn's Death Save"):
        call(SYSTEM.end_turn, state, "Orn")
    # Last Gasp turn 1: 5D, no malus: 15 → no effect; the save made, the turn ends by itself.
    out = act(state, "deathsave", "Orn", [3, 3, 3, 3, 3], stat="charisma")
    assert (only(out.events, DeathSave).turn, only(out.events, DeathSave).code) == (1, DieCode(5))
    assert holder(out.state) == ("Thug",)
    # Last Gasp turn 2: the GM skips the save; it still counts.
    state = call(SYSTEM.end_turn, out.state, "Thug").state
    assert only(call(SYSTEM.end_turn, out.state, "Thug").events, DeathSaveOwed).malus == 1
    skipped = call(SYSTEM.gm_next, state)
    assert only(skipped.events, DeathSaveSkipped).turn == 2
    # Last Gasp turn 3: −2D.
    state = call(SYSTEM.end_turn, skipped.state, "Thug").state
    out = act(state, "deathsave", "Orn", [5, 5, 5], stat="charisma")
    ds = only(out.events, DeathSave)
    assert (ds.turn, ds.code, ds.total) == (3, DieCode(3), 15)
    assert [(m.label, m.value) for m in ds.mods] == [("bleeding out (Last Gasp turn 3)", -2)]
    tracked = next(c for c in SYSTEM.tracker(out.state).order if c.id == "Orn")
    assert tracked.last_gasp_round == 3


def test_gm_next_skips_an_owed_save():
    state = fight(pc("Orn", hp_max=10), npc("Thug"), init=[2, 5])
    state = call(SYSTEM.gm_damage, state, "Orn", 12, None).state
    state = call(SYSTEM.end_turn, state, "Thug").state
    out = call(SYSTEM.gm_next, state)
    assert only(out.events, DeathSaveSkipped).who == "Orn" and holder(out.state) == ("Thug",)


# --- any action can be planned ------------------------------------------------------------------------
def eva_fight():
    return fight(pc("Eva", charisma="3D", coordination="4D"), npc("Tassadar"), init=[5, 2])


def test_seed_eva_charms_the_wolf_and_stabs_tassadar_at_minus_1d_each():
    state = act(eva_fight(), "check", "Eva", stat="charisma", note="charm the wolf").state
    state = act(state, "attack", "Eva", target="Tassadar", flank=True).state
    # Charisma 3D − 1D: 4 + 5 = 9; Coordination 4D − 1D: 3 + 3 + 3 = 9 vs save 10: a miss.
    out = act(state, "lockin", "Eva", [4, 5, 3, 3, 3])
    locked = only(out.events, TurnLocked)
    assert (locked.counted, locked.penalty_dice) == (2, 1)
    charm = only(out.events, Rolled)
    assert (charm.what, charm.code, charm.total) == ("charisma (charm the wolf)", DieCode(2), 9)
    stab = only(out.events, AttackRolled)
    assert (stab.code, stab.total, stab.hit, stab.flank) == (DieCode(3), 9, False, True)
    assert holder(out.state) == ("Tassadar",)


def test_seed_eva_also_commands_her_cat_and_every_action_is_at_minus_2d():
    state = eva_fight()
    for kind, kw in (
        ("check", {"stat": "charisma", "note": "charm the wolf"}),
        ("check", {"stat": "charisma", "note": "command the cat"}),
        ("attack", {"target": "Tassadar", "flank": True}),
    ):
        state = act(state, kind, "Eva", **kw).state
    out = act(state, "lockin", "Eva", [4, 5, 3, 3])
    assert only(out.events, TurnLocked).penalty_dice == 2
    assert [e.code for e in out.events if isinstance(e, Rolled)] == [DieCode(1), DieCode(1)]
    assert only(out.events, AttackRolled).code == DieCode(2)


def test_a_free_action_is_within_the_allowance_and_a_second_one_counts():
    state = act(eva_fight(), "free", "Eva", note="shout a warning").state
    state = act(state, "attack", "Eva", target="Tassadar").state
    shown = notes(act(eva_fight(), "free", "Eva", note="shout a warning").events)[-1]
    assert "shout a warning (free)" in shown and "no multi-action penalty" in shown
    out = act(state, "lockin", "Eva", [1, 1, 1, 2])
    assert only(out.events, TurnLocked).penalty_dice == 0
    assert only(out.events, FreeActionTaken).what == "shout a warning"
    state = act(eva_fight(), "free", "Eva", note="shout").state
    state = act(state, "free", "Eva", note="point at the door").state
    state = act(state, "attack", "Eva", target="Tassadar").state
    out = act(state, "lockin", "Eva", [1, 1, 2])
    locked = only(out.events, TurnLocked)
    assert (locked.free_declared, locked.free_allowed, locked.penalty_dice) == (2, 1, 1)


def test_a_planned_check_with_a_difficulty_and_refusals():
    state = act(eva_fight(), "check", "Eva", stat="charisma", difficulty="8", note="calm the horse").state
    out = act(state, "lockin", "Eva", [4, 4, 4])
    assert "12 against difficulty 8 (to beat): success" in notes(out.events)
    with pytest.raises(Exception, match="not an attribute or skill"):
        act(eva_fight(), "check", "Eva", stat="juggling")
    with pytest.raises(Exception, match="Name Eva's free action"):
        act(eva_fight(), "free", "Eva")


# --- flank / backstab ---------------------------------------------------------------------------------
def test_flank_overwhelms_a_parry_and_adds_two_critical_stages_with_the_terms_in_the_event():
    state = eva_fight()
    state = state.update("Tassadar", defense=Defense("parry", value=15, limit=2))
    # Coordination 4D: 4 + 4 + 4 + 4 = 16 vs the overwhelmed save 8: a hit. Stage +2 (flank) +2 (the
    # overwhelmed target is staggered) = 4 → 66 %: threshold ⌈8 × 0.66⌉ = 6.
    # Damage: 1D+2 doubled to 2D+2 (critical): 2 + 2 + 2 = 6, scaling 2D: 1 + 1 → 8.
    out = act(state, "attack", "Eva", [4, 4, 4, 4, 2, 2, 1, 1], target="Tassadar", flank=True, lock=True)
    attack = only(out.events, AttackRolled)
    assert (attack.save, attack.hit, attack.critical, attack.flank) == (8, True, True, True)
    terms = (attack.crit_stage, attack.crit_percent, attack.crit_column, attack.crit_threshold)
    assert terms == (4, 66.0, 200, 6)
    assert [(p.label, p.value) for p in attack.crit_parts] == [
        ("flank/backstab", 2),
        ("target staggered", 2),
    ]
    assert only(out.events, DefenseOverwhelmed).reason == "backstab"


# --- moving while hidden ------------------------------------------------------------------------------
def hidden_eva():
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    return SYSTEM.gm_condition(state, "Eva", "hidden", False, HOUSE).state


def test_a_move_while_hidden_declares_its_stealth_check_and_failing_it_reveals():
    declared = act(hidden_eva(), "move", "Eva", distance=2)
    added = [e.action for e in declared.events if isinstance(e, ActionDeclared)]
    assert [(a.kind, a.of_move) for a in added] == [("move", False), ("stealth", True)]
    assert "new stealth check" in notes(declared.events)[-1]
    # Agility 3D: 1 + 1 + 1 + 3 (already hidden) = 6 vs T's Acumen 3D: 12: seen.
    out = act(declared.state, "lockin", "Eva", [1, 1, 1, 4, 4, 4])
    checked = only(out.events, StealthChecked)
    assert checked.total == 6 and checked.against == (("T", 12, False),)
    assert not any(isinstance(e, StealthCheckDue) for e in out.events)
    assert out.state.get("Eva").hidden_from == ()
    assert only(out.events, TurnLocked).penalty_dice == 0  # the check is part of the free move


def test_a_move_while_hidden_that_passes_its_check_stays_hidden():
    declared = act(hidden_eva(), "move", "Eva", distance=2, light="dim")
    out = act(declared.state, "lockin", "Eva", [5, 5, 5, 1, 1, 1])
    assert only(out.events, StealthChecked).total == 15 + 3 + 2
    assert out.state.get("Eva").hidden_from == ("T",)


def test_an_attack_before_the_move_reveals_so_no_check_is_planned():
    state = act(hidden_eva(), "attack", "Eva", target="T").state
    state = act(state, "move", "Eva", distance=2).state
    assert [a.kind for a in state.plan.actions] == ["attack", "move"]


# --- plans are checked as they will unfold ------------------------------------------------------------
def grappling():
    state = fight(pc("G"), npc("T"), init=[5, 2])
    state = state.put_grapple(Grapple("G", "T", 1))
    return state.update("G", engaged_with=("T",)).update("T", engaged_with=("G",))


def test_a_contest_then_a_throw_is_accepted_and_resolves_when_the_contest_reaches_3():
    with pytest.raises(NotAllowed, match=r"counter at 3 in G's favour \(it is 1\)"):
        act(grappling(), "grapple", "G", target="T", grapple="throw")
    state = act(grappling(), "grapple", "G", target="T", grapple="contest").state
    state = act(state, "grapple", "G", target="T", grapple="throw").state
    # Contest at −1D: 2D: 5, Wild 6 explodes 4 (halved: +2) = 13 vs 3D 1 + 1 + 1 = 3: by 10 → +2 → 3.
    # Throw: 2D6 with its Wild Die: 3 + 4 = 7.
    out = act(state, "lockin", "G", [5, 6, 4, 1, 1, 1, 3, 4])
    contest = only(out.events, GrappleRolled)
    assert (contest.actor_total, contest.counter) == (13, 3)
    thrown = only(out.events, GrappleThrown)
    assert thrown.amount == 7 and thrown.roll is not None and thrown.roll.wild.value == 4
    assert only(out.events, GrappleEnded).reason == "thrown"


def test_the_throw_is_refused_at_resolution_when_the_contest_falls_short():
    state = act(grappling(), "grapple", "G", target="T", grapple="contest").state
    state = act(state, "grapple", "G", target="T", grapple="throw").state
    out = act(state, "lockin", "G", [5, 5, 1, 1, 1])  # 10 vs 3: +1 → 2
    assert only(out.events, GrappleRolled).counter == 2
    assert not any(isinstance(e, GrappleThrown) for e in out.events)
    assert any(
        "G's grapple (throw) is skipped: a throw needs" in t and "in G's favour (it is 2)" in t
        for t in notes(out.events)
    )
    assert out.state.grapple("G", "T").toward("G") == 2


# --- the Wild Die on throw and take-down damage -------------------------------------------------------
def at_three():
    state = grappling()
    return state.put_grapple(Grapple("G", "T", 3))


def test_throw_damage_has_a_wild_die_that_explodes():
    out = act(at_three(), "grapple", "G", [3, 6, 2], target="T", grapple="throw", lock=True)
    thrown = only(out.events, GrappleThrown)
    assert thrown.rolled == 3 + 6 + 1 and [d.value for d in thrown.dice] == [3, 6, 2]


def test_take_down_damage_has_a_wild_die_that_explodes():
    out = act(at_three(), "grapple", "G", [2, 2, 6, 4], target="T", grapple="takedown", lock=True)
    down = only(out.events, TakenDown)
    assert down.rolled == 2 + 2 + 6 + 2 and down.roll.explosions[0].value == 4


def test_d66_take_down_reads_pairs_and_the_last_units_die_is_wild():
    house = SYSTEM.set_house_rule(HOUSE, "takedown_dice", "d66")
    # Physique 3D: 2 4 | 1 3 | 5 then a Wild units 6 exploding 5 (+2): 24 + 13 + 58.
    out = act(
        at_three(),
        "grapple",
        "G",
        [2, 4, 1, 3, 5, 6, 5],
        target="T",
        grapple="takedown",
        lock=True,
        house=house,
    )
    assert only(out.events, TakenDown).rolled == 24 + 13 + 58


# --- undo is whole ------------------------------------------------------------------------------------
def test_the_plan_is_in_the_stored_state_and_the_tracker_names_it():
    state = act(hidden_eva(), "check", "Eva", stat="acumen", note="spot the trap", difficulty="9").state
    state = act(state, "move", "Eva", distance=2).state
    raw = SYSTEM.state_to_dict(state)
    assert D6State.from_dict(raw) == state
    assert [a["kind"] for a in raw["plan"]["actions"]] == ["check", "move", "stealth"]
    note = next(n for n in SYSTEM.tracker(state).notes if n.startswith("plan"))
    assert note == "plan: check acumen (spot the trap), move 2 (free), the move's stealth check"
