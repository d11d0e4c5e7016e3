import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.systems.d6.attack import attack
from rules.systems.d6.defense import defend, parse_stance
from rules.systems.d6.events import AttackRolled, DefenseOverwhelmed, DefenseTaken, ShieldHit
from rules.systems.d6.pool import DieCode
from rules.systems.d6.save import natural_save, save_against
from rules.systems.d6.sheet import Weapon
from rules.systems.d6.state import Grapple, LastGasp
from rules.systems.d6.turn import start_turn

from .helpers import HOUSE, fighter, in_turn, only, sheet, state_of

BOW = Weapon("bow", DieCode(2), "agility", "ranged", 2)


@pytest.mark.parametrize(("agility", "save"), [("2D", 10), ("3D+2", 10), ("4D", 11), ("5D", 12)])
def test_natural_save_orn_agility_4_is_11(agility, save):
    assert natural_save(sheet(agility=agility)) == save


def test_grapple_stacks_catboy_8_then_6():
    s = state_of(fighter("Eva"), fighter("catboy", agility="3D+1"))
    one = s.put_grapple(Grapple("Eva", "catboy", 1))
    two = s.put_grapple(Grapple("Eva", "catboy", 2))
    assert save_against(one, "catboy").value == 8
    assert save_against(two, "catboy").value == 6
    assert save_against(two, "Eva").value == 10  # the leader is not staggered
    assert save_against(two, "catboy").staggered


def test_fixed_saves_pinned_last_gasp_and_gm_stacks():
    s = state_of(fighter("a"), fighter("b", agility="5D"))
    assert save_against(s.put_grapple(Grapple("a", "b", 3, pinned=True)), "b").value == 0
    assert save_against(s.update("b", last_gasp=LastGasp(), hp=-1), "b").value == 10
    assert save_against(s.update("b", staggered=2), "b").value == 12 - 4
    assert save_against(s.update("b", stagger_turns=1), "b").value == 10
    assert save_against(s, "b", called_bonus=5).value == 17


def test_block_adds_av_and_a_shield_band():
    s = in_turn(state_of(fighter("d", shield_av=3), fighter("x", coordination="1D")), "d")
    with ScriptedDice([]) as dice:
        out = defend(s, "d", "block", dice, HOUSE)
    assert only(out.events, DefenseTaken).save == 13
    assert save_against(out.state, "d").band == (5, 13)
    # 1D: a 6 exploding into a 1 → 6: misses the defender (13) but hits the shield.
    with ScriptedDice([6, 1]) as dice:
        hit = attack(out.state, "x", "d", dice, HOUSE)
    assert only(hit.events, ShieldHit).roll_total == 6
    total = defend(s, "d", "block", ScriptedDice([]), HOUSE, total=True).state
    assert save_against(total, "d").value == 18 and save_against(total, "d").band == (10, 18)
    with ScriptedDice([4]) as dice:
        low = attack(total, "x", "d", dice, HOUSE)
    assert not only(low.events, AttackRolled).hit and not any(isinstance(e, ShieldHit) for e in low.events)
    with pytest.raises(NotAllowed, match="shield"):
        defend(s, "x", "block", ScriptedDice([]), HOUSE)


def test_parry_roll_is_the_save_even_below_10_for_two_attackers_then_overwhelmed():
    s = state_of(
        fighter("d", coordination="2D", skills={"parry": ("coordination", "1D")}),
        *[fighter(n, coordination="1D") for n in ("x", "y", "z")],
    )
    with ScriptedDice([2, 2, 3]) as dice:  # 3D: 7
        s = defend(s, "d", "parry", dice, HOUSE).state
    assert save_against(s, "d", "x").value == 7
    with ScriptedDice([5]) as dice:
        s = attack(s, "x", "d", dice, HOUSE).state  # 5 vs 7: parried
    with ScriptedDice([4]) as dice:
        s = attack(s, "y", "d", dice, HOUSE).state
    assert s.get("d").defense.met == ("x", "y")
    assert save_against(s, "d", "x").value == 7  # a covered attacker again: still parried
    with ScriptedDice([5]) as dice:
        out = attack(s, "z", "d", dice, HOUSE)  # the third attacker overwhelms: save 8
    assert only(out.events, DefenseOverwhelmed).reason == "overwhelmed"
    assert only(out.events, AttackRolled).save == 8
    assert out.state.get("d").overwhelmed and out.state.get("d").defense is None
    assert save_against(out.state, "d", "x").value == 8
    # Until its next turn.
    back = start_turn(in_turn(out.state, "d")).state
    assert save_against(back, "d").value == 10


def test_total_parry_covers_three_backstab_overwhelms_ranged_ignores_parry():
    s = state_of(fighter("d", coordination="1D", parry_limit=2), fighter("x"))
    with ScriptedDice([3]) as dice:
        total = defend(s, "d", "parry", dice, HOUSE, total=True).state
    assert total.get("d").defense.limit == 3
    assert save_against(total, "d", "x").value == 3 + 5
    assert save_against(total, "d", "x", backstab=True).value == 8
    assert save_against(total, "d", "x", ranged=True).value == 10 + 5
    assert save_against(total, "d", "x", ranged=True).source.startswith("natural save (parry does not stop")


def test_dodge_covers_one_attack_two_in_total_defense_then_natural():
    s = state_of(
        fighter("d", agility="2D", skills={"dodge": ("agility", "1D")}), fighter("x", coordination="1D")
    )
    with ScriptedDice([1, 1, 2]) as dice:  # 4: a bad dodge is still the save
        s1 = defend(s, "d", "dodge", dice, HOUSE).state
    assert save_against(s1, "d").value == 4
    with ScriptedDice([3]) as dice:
        first = attack(s1, "x", "d", dice, HOUSE)
    assert only(first.events, AttackRolled).save == 4 and not only(first.events, AttackRolled).hit
    with ScriptedDice([6, 5]) as dice:
        second = attack(first.state, "x", "d", dice, HOUSE)
    assert only(second.events, AttackRolled).save == 10  # 6 + ⌊5/2⌋ = 8: a miss against natural
    assert only(second.events, AttackRolled).save_source == "natural save (dodges used up)"
    with ScriptedDice([5, 5, 5]) as dice:
        s2 = defend(s, "d", "dodge", dice, HOUSE, total=True).state
    assert save_against(s2, "d").value == 20 and s2.get("d").defense.limit == 2


def test_parry_needs_a_melee_weapon_and_stances_parse():
    s = state_of(fighter("d", weapons=(BOW,)))
    with pytest.raises(NotAllowed, match="melee weapon"):
        defend(s, "d", "parry", ScriptedDice([]), HOUSE)
    assert parse_stance("Total-Parry") == ("parry", True)
    assert parse_stance("dodge") == ("dodge", False)
