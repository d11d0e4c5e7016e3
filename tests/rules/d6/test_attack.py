import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.systems.d6.attack import attack
from rules.systems.d6.events import (
    AttackRolled,
    DamageApplied,
    DamageRolled,
    GrapplePenaltyOwed,
    PinBroken,
    Revealed,
)
from rules.systems.d6.house import HouseRules
from rules.systems.d6.state import Grapple

from .helpers import HOUSE, fighter, only, state_of


def duel(**target):
    target.setdefault("armour_ar", 0)
    return state_of(fighter("a", coordination="2D", physique="2D"), fighter("t", **target))


def test_a_roll_equal_to_the_save_misses_and_draws_no_damage():
    with ScriptedDice([5, 5]) as dice:  # 10 vs save 10
        out = attack(duel(), "a", "t", dice, HOUSE)
    rolled = only(out.events, AttackRolled)
    assert (rolled.total, rolled.save, rolled.hit) == (10, 10, False)
    assert [e.kind for e in out.events] == ["AttackRolled"]
    assert out.state.get("t").hp == 20


def test_a_roll_above_the_save_hits_and_damage_is_applied():
    with ScriptedDice([5, 6, 2, 3, 4]) as dice:  # 5 + 6 (explodes 2 → +1) = 12; damage 3+2, scaling 1D: 4
        out = attack(duel(), "a", "t", dice, HOUSE)
    assert only(out.events, AttackRolled).total == 12 and only(out.events, AttackRolled).hit
    assert only(out.events, DamageRolled).amount == 9
    applied = only(out.events, DamageApplied)
    assert (applied.hp_before, applied.hp_after) == (20, 11) and out.state.get("t").hp == 11
    assert out.state.get("a").engaged_with == ("t",) and out.state.get("t").engaged_with == ("a",)


def test_called_shot_adds_the_house_bonus_to_the_save():
    with ScriptedDice([6, 5]) as dice:
        out = attack(duel(), "a", "t", dice, HOUSE, called=True)
    rolled = only(out.events, AttackRolled)
    assert (rolled.total, rolled.save, rolled.hit, rolled.called) == (11, 15, False, True)
    with ScriptedDice([6, 5, 1, 1]) as dice:  # bonus 0: 11 > 10 hits; damage 1D+2 (1) + scaling 1D (1)
        out = attack(duel(), "a", "t", dice, HouseRules(called_shot_bonus=0), called=True)
    assert only(out.events, AttackRolled).hit


def test_a_hit_reaching_the_threshold_is_a_critical_with_natural_dice_doubled():
    s = state_of(fighter("a", coordination="4D", physique="1D"), fighter("t"))
    with ScriptedDice([5, 5, 5, 5, 1, 1, 1]) as dice:  # 20 ≥ 10 × 200 %; 2D+2 damage: 1+1+2, scaling 1D: 1
        out = attack(s, "a", "t", dice, HOUSE)
    rolled = only(out.events, AttackRolled)
    assert (rolled.critical, rolled.crit_threshold, rolled.crit_percent) == (True, 20, 200.0)
    assert only(out.events, DamageRolled).amount == 5
    with ScriptedDice([5, 5, 5, 4, 1, 1]) as dice:  # 19: a hit, not a critical
        out = attack(s, "a", "t", dice, HOUSE)
    assert not only(out.events, AttackRolled).critical and only(out.events, AttackRolled).hit


def test_an_attack_from_hiding_gets_plus_2_stage_and_reveals():
    s = duel().update("a", hidden_from=("t",))
    with ScriptedDice([2, 2]) as dice:
        out = attack(s, "a", "t", dice, HOUSE)
    assert only(out.events, AttackRolled).crit_stage == 2  # +2 from stealth (Agility 3D adds 0)
    assert only(out.events, Revealed).who == "a" and out.state.get("a").hidden_from == ()


def test_attacking_while_ahead_owes_a_grapple_penalty():
    s = duel().put_grapple(Grapple("a", "t", 2))
    with ScriptedDice([1, 2]) as dice:
        out = attack(s, "a", "t", dice, HOUSE)
    assert only(out.events, GrapplePenaltyOwed).penalty == -5
    assert out.state.grapple("a", "t").a_penalty == -5
    behind = duel().put_grapple(Grapple("a", "t", -1))
    with ScriptedDice([1, 2]) as dice:
        out = attack(behind, "a", "t", dice, HOUSE)
    assert not any(isinstance(e, GrapplePenaltyOwed) for e in out.events)


def test_the_pinned_attacks_only_its_pinner_and_breaks_free_at_a_quarter_of_its_max_hp():
    s = state_of(fighter("p", hp_max=20), fighter("x", coordination="3D", physique="2D"), fighter("o"))
    s = s.put_grapple(Grapple("p", "x", 3, pinned=True))
    with pytest.raises(NotAllowed, match="pinned"):
        attack(s, "x", "o", ScriptedDice([]), HOUSE)
    # Hit (6+5+... vs save 10): damage 1D+2 (2) → 4 + scaling 1D (1) = 5 ≥ 20/4.
    with ScriptedDice([5, 5, 3, 2, 1]) as dice:
        out = attack(s, "x", "p", dice, HOUSE)
    broken = only(out.events, PinBroken)
    assert (broken.damage, broken.needed, broken.counter) == (5, 5, 0)
    assert out.state.grapple("p", "x").counter == 0 and not out.state.grapple("p", "x").pinned
    # Less than a quarter accumulates.
    with ScriptedDice([5, 5, 3, 1, 1]) as dice:
        out = attack(s, "x", "p", dice, HOUSE)
    assert out.state.grapple("p", "x").pin_damage == 4 and out.state.grapple("p", "x").pinned
