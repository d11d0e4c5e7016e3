"""Leaving melee without disengaging (RULES.md §3 "Turn"; seed "Moving"): `/move leave:True` through ``SYSTEM``.
At lock-in the mover leaves, every engaged enemy's free attack is resolved there and then (initiative order,
each attack's to-hit then damage), and the engagement ends. Exact scripted dice: every script is used up
(ScriptedDice fails on a missing or a leftover die)."""

from __future__ import annotations

from rules.errors import NotAllowed
from rules.systems.d6.events import (
    AttackRolled,
    DamageApplied,
    DamageRolled,
    DefenseOverwhelmed,
    Disengaged,
    FreeAttackOwed,
    LastGaspEntered,
    Moved,
    TurnLocked,
)

from .helpers import only
from .test_adapter_actions import SYSTEM, act, bandit, fight, notes, pc, refused, row


def engaged(state, who, *enemies):
    """``who`` engaged in melee with each of ``enemies`` (both sides), in that order."""
    state = state.update(who, engaged_with=tuple(enemies))
    for e in enemies:
        state = state.update(e, engaged_with=(*state.get(e).engaged_with, who))
    return state


def eva_between_two_bandits(**eva):
    """Eva (Perception 2D: 5 + 5 = 10) first, then B2 (2D+1: 3 + 3 + 1 = 7), then B1 (2 + 2 + 1 = 5); Eva is
    engaged with B1 and then B2, so the engagement order is not the initiative order."""
    eva.setdefault("perception", "2D")
    state = fight(pc("Eva", **eva), bandit("B1"), bandit("B2"), init=[5, 5, 2, 2, 3, 3])
    assert state.order == ("Eva", "B2", "B1")
    return engaged(state, "Eva", "B1", "B2")


def engagement(state, *ids):
    return {cid: state.get(cid).engaged_with for cid in ids}


def test_leaving_melee_gives_each_engaged_enemy_a_free_attack_in_initiative_order():
    state = eva_between_two_bandits()
    # Lock-in: Eva moves 3 (free: half of 6), then B2 first (initiative 7): Coordination 3D 4 + 4 + 5 = 13 > save
    # 10, a hit (critical at 20); short sword 1D+2: 3 + 2 = 5, scaling Physique 3D → 2D: 4 + 2, no armour → 11.
    # Then B1: 2 + 3 + 4 = 9, not above 10: a miss, no damage dice.
    out = act(state, "move", "Eva", [4, 4, 5, 3, 4, 2, 2, 3, 4], distance=3, leave=True, lock=True)
    kinds = [e.kind for e in out.events]
    assert kinds.index("TurnLocked") < kinds.index("Moved") < kinds.index("FreeAttackOwed")
    assert only(out.events, TurnLocked).penalty_dice == 0
    assert only(out.events, Moved).distance == 3 and only(out.events, Moved).free
    owed = [e for e in out.events if isinstance(e, FreeAttackOwed)]
    assert [(e.attacker, e.target) for e in owed] == [("B2", "Eva"), ("B1", "Eva")]
    attacks = [e for e in out.events if isinstance(e, AttackRolled)]
    assert [(a.attacker, a.weapon, a.total, a.save, a.hit) for a in attacks] == [
        ("B2", "short sword", 13, 10, True),
        ("B1", "short sword", 9, 10, False),
    ]
    assert [d.value for d in attacks[0].dice] == [4, 4, 5]
    assert [d.value for d in attacks[1].dice] == [2, 3, 4]
    # Each attack comes right after its FreeAttackOwed; the damage belongs to the first.
    assert kinds.index("AttackRolled") == kinds.index("FreeAttackOwed") + 1
    assert kinds.index("DamageRolled") < len(kinds) - kinds[::-1].index("FreeAttackOwed") - 1
    damage = only(out.events, DamageRolled)
    assert (damage.attacker, damage.natural, damage.scaling, damage.amount) == ("B2", 5, 6, 11)
    applied = only(out.events, DamageApplied)
    assert (applied.target, applied.amount, applied.hp_before, applied.hp_after) == ("Eva", 11, 20, 9)
    assert row(out.state, "Eva").hp == 9
    assert row(out.state, "B1").hp == row(out.state, "B2").hp == 14
    # The engagement is over on both sides; the turn stays with Eva, locked.
    assert engagement(out.state, "Eva", "B1", "B2") == {"Eva": (), "B1": (), "B2": ()}
    assert SYSTEM.turn(out.state).actors == ("Eva",)
    assert "end it with `/turn end`" in notes(out.events)[-1]


def test_a_declared_leave_says_who_will_attack_and_resolves_at_lockin():
    state = eva_between_two_bandits()
    declared = act(state, "move", "Eva", distance=4, leave=True)  # nothing rolled yet
    assert any("B1, B2 each get an attack on Eva" in t for t in notes(declared.events))
    assert "move 4, leaving melee without disengaging" in notes(declared.events)[-1]
    # Stealth is now possible in the same plan (the leaving move ends every engagement first).
    assert "stealth" in SYSTEM.allowed_actions(declared.state, "Eva")
    # 4 of 6 is more than half: an action, but the only counted one: no penalty. Both miss.
    out = act(declared.state, "lockin", "Eva", [2, 2, 3, 3, 3, 2])
    assert not only(out.events, Moved).free
    assert [(a.attacker, a.total, a.hit) for a in out.events if isinstance(a, AttackRolled)] == [
        ("B2", 7, False),
        ("B1", 8, False),
    ]
    assert row(out.state, "Eva").hp == 20
    assert engagement(out.state, "Eva", "B1", "B2") == {"Eva": (), "B1": (), "B2": ()}


def test_moving_while_engaged_without_leave_is_refused_naming_both_ways_out():
    state = eva_between_two_bandits()
    refused(
        state, NotAllowed, "engaged in melee with B1, B2: declare `/disengage`", "move", "Eva", distance=3
    )
    refused(state, NotAllowed, r"`/move leave:True`", "move", "Eva", distance=3, lock=True)
    assert "move" not in SYSTEM.allowed_actions(state, "Eva")


def test_leave_when_not_engaged_is_a_plain_move_without_attacks():
    state = fight(pc("Eva", perception="2D"), bandit("B1"), init=[5, 5, 2, 2])
    out = act(state, "move", "Eva", [], distance=3, leave=True, lock=True)  # no die at all
    assert only(out.events, Moved).distance == 3
    assert not any(isinstance(e, FreeAttackOwed | AttackRolled) for e in out.events)
    assert any("not engaged in melee now: `leave` changes nothing" in t for t in notes(out.events))
    assert row(out.state, "Eva").hp == 20


def test_a_successful_disengage_first_spares_that_enemy_its_free_attack():
    state = eva_between_two_bandits()
    planned = act(state, "disengage", "Eva", target="B1").state
    said = notes(act(planned, "move", "Eva", distance=3, leave=True).events)
    assert any("B2 gets an attack on Eva; B1 too if the disengage fails" in t for t in said)
    # Disengage (one action, no penalty): Agility 3D 5 + 5 + 5 = 15 vs B1's 2 + 2 + 2 = 6: free of B1.
    # Then only B2 attacks: 2 + 2 + 2 = 6, a miss.
    out = act(planned, "move", "Eva", [5, 5, 5, 2, 2, 2, 2, 2, 2], distance=3, leave=True, lock=True)
    assert only(out.events, Disengaged).success
    assert [e.attacker for e in out.events if isinstance(e, FreeAttackOwed)] == ["B2"]
    assert [a.attacker for a in out.events if isinstance(a, AttackRolled)] == ["B2"]
    assert engagement(out.state, "Eva", "B1", "B2") == {"Eva": (), "B1": (), "B2": ()}


def test_a_free_attack_that_drops_the_mover_ends_the_series_and_the_rest_of_the_plan():
    state = eva_between_two_bandits(hp_max=8)
    planned = act(state, "move", "Eva", distance=3, leave=True).state
    planned = act(planned, "attack", "Eva", target="B1").state
    # B2 hits (4 + 4 + 5 = 13) for 5 + 6 = 11: Eva 8 → −3, Last Gasp. B1's free attack lapses (no dice), and
    # Eva's own attack is skipped: she can no longer act.
    out = act(planned, "lockin", "Eva", [4, 4, 5, 3, 4, 2])
    assert [e.attacker for e in out.events if isinstance(e, FreeAttackOwed)] == ["B2"]
    assert [a.attacker for a in out.events if isinstance(a, AttackRolled)] == ["B2"]
    assert only(out.events, LastGaspEntered).who == "Eva"
    said = notes(out.events)
    assert any("the remaining free attacks (B1) lapse" in t for t in said)
    assert any(t.startswith("Eva's attack is skipped:") for t in said)
    assert row(out.state, "Eva").hp == -3 and row(out.state, "Eva").health == "Last Gasp"
    assert engagement(out.state, "Eva", "B1", "B2") == {"Eva": (), "B1": (), "B2": ()}


def test_free_attacks_meet_the_parry_of_the_turn_and_the_third_attacker_overwhelms_it():
    state = fight(
        pc("Eva", perception="2D"),
        bandit("B1"),
        bandit("B2"),
        bandit("B3"),
        init=[5, 5, 2, 2, 3, 3, 4, 4],
    )
    assert state.order == ("Eva", "B3", "B2", "B1")
    state = engaged(state, "Eva", "B1", "B2", "B3")
    planned = act(state, "defend", "Eva", stance="parry").state
    # Parry (one action): Coordination 3D 4 + 4 + 4 = 12, limit 2. B3: 5 + 4 + 2 = 11 ≤ 12, parried; B2:
    # 3 + 3 + 3 = 9, parried; B1 is a third attacker: the parry is overwhelmed, save 8 (staggered: crit stage
    # +2, threshold 8): 3 + 3 + 3 = 9 > 8, a critical hit: natural dice doubled, 2D+2: 2 + 2 + 2 = 6, scaling
    # 1 + 1 → 8.
    script = [4, 4, 4, 5, 4, 2, 3, 3, 3, 3, 3, 3, 2, 2, 1, 1]
    out = act(planned, "move", "Eva", script, distance=3, leave=True, lock=True)
    attacks = [(a.attacker, a.total, a.save, a.hit) for a in out.events if isinstance(a, AttackRolled)]
    assert attacks == [("B3", 11, 12, False), ("B2", 9, 12, False), ("B1", 9, 8, True)]
    overwhelmed = only(out.events, DefenseOverwhelmed)
    assert (overwhelmed.who, overwhelmed.by, overwhelmed.reason) == ("Eva", "B1", "overwhelmed")
    assert only(out.events, DamageRolled).critical and only(out.events, DamageRolled).amount == 8
    assert row(out.state, "Eva").hp == 12
