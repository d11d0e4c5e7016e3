import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput, NotAllowed
from rules.systems.d6.attack import attack
from rules.systems.d6.events import Disengaged, FreeAttackOwed, Moved, StealthCheckDue, StealthChecked
from rules.systems.d6.movement import disengage, move
from rules.systems.d6.state import Grapple
from rules.systems.d6.stealth import stealth

from .helpers import HOUSE, fighter, only, state_of


def melee():
    s = state_of(
        fighter("a", agility="2D"), fighter("x", "foes", agility="1D"), fighter("y", "foes", agility="1D")
    )
    return (
        s.update("a", engaged_with=("x", "y"))
        .update("x", engaged_with=("a",))
        .update("y", engaged_with=("a",))
    )


def test_half_movement_is_free_more_is_an_action():
    s = state_of(fighter("a", movement=7))
    assert only(move(s, "a", 3).events, Moved).free
    assert not only(move(s, "a", 4).events, Moved).free
    with pytest.raises(NotAllowed, match="at most 7"):
        move(s, "a", 8)
    with pytest.raises(InvalidInput):
        move(s, "a", -1)


def test_leaving_melee_without_disengaging_gives_every_engaged_enemy_a_free_attack():
    s = melee()
    with pytest.raises(NotAllowed, match="disengage first"):
        move(s, "a", 2)
    out = move(s, "a", 2, leave_melee=True)
    owed = [(e.attacker, e.target) for e in out.events if isinstance(e, FreeAttackOwed)]
    assert owed == [("x", "a"), ("y", "a")]
    assert out.state.get("a").engaged_with == () and out.state.get("x").engaged_with == ()
    # The shell resolves each free attack; it owes no grapple penalty and is an ordinary attack roll.
    with ScriptedDice([1, 1, 2]) as dice:
        free = attack(out.state, "x", "a", dice, HOUSE, free_attack=True)
    assert free.events[0].kind == "AttackRolled"


def test_disengage_is_agility_against_agility_tie_to_the_enemy():
    with ScriptedDice([3, 4, 5]) as dice:  # 7 vs 5
        out = disengage(melee(), "a", "x", dice, HOUSE)
    assert only(out.events, Disengaged).success
    assert out.state.get("a").engaged_with == ("y",) and out.state.get("x").engaged_with == ()
    with ScriptedDice([2, 3, 5]) as dice:  # 5 vs 5: stays
        tie = disengage(melee(), "a", "x", dice, HOUSE)
    assert not only(tie.events, Disengaged).success and tie.state.get("a").engaged_with == ("x", "y")
    with ScriptedDice([2, 5]) as dice:
        pen = disengage(melee(), "a", "x", dice, HOUSE, penalty_dice=1)
    assert only(pen.events, Disengaged).own_total == 2  # 2D − 1D


def test_stealth_modifiers_and_each_opponent_separately():
    s = state_of(
        fighter("a", agility="2D", armour_class="medium", skills={"stealth": ("agility", "1D")}),
        fighter("x", "foes", acumen="1D"),
        fighter("y", "foes", acumen="1D"),
        fighter("f", "party"),
    )
    with ScriptedDice([4, 4, 4, 5, 6, 3]) as dice:  # 12 − 2 medium + 2 dim = 12; x: 5, y: 6+⌊3/2⌋ = 7
        out = stealth(s, "a", dice, HOUSE, light="dim")
    checked = only(out.events, StealthChecked)
    assert checked.total == 12 and checked.against == (("x", 5, True), ("y", 7, True))
    assert [(m.label, m.value) for m in checked.mods if m.unit == "flat"] == [
        ("medium armour", -2),
        ("dim light", 2),
    ]
    assert out.state.get("a").hidden_from == ("x", "y")
    with ScriptedDice([1, 1, 1, 6, 6, 6, 2, 1]) as dice:  # already hidden +3, daylight −6: 3 − 2 − 6 + 3 = −2
        again = stealth(out.state, "a", dice, HOUSE, light="daylight")
    assert only(again.events, StealthChecked).total == -2 and again.state.get("a").hidden_from == ()
    assert only(move(out.state, "a", 1).events, StealthCheckDue).who == "a"


def test_stealth_is_impossible_in_melee_or_a_grapple():
    with pytest.raises(NotAllowed, match="engaged in melee"):
        stealth(melee(), "a", ScriptedDice([]), HOUSE)
    s = state_of(fighter("a"), fighter("b", "foes")).put_grapple(Grapple("a", "b", 1))
    with pytest.raises(NotAllowed, match="engaged in melee"):
        stealth(s, "a", ScriptedDice([]), HOUSE)
    with pytest.raises(InvalidInput, match="Light"):
        stealth(state_of(fighter("a")), "a", ScriptedDice([]), HOUSE, light="moon")


def test_gm_conditions():
    from rules.systems.d6.gm import gm_condition
    from rules.systems.d6.save import save_against

    s = state_of(fighter("a"), fighter("x", "foes"), fighter("y", "foes"))
    s = gm_condition(s, "a", "staggered").state
    assert save_against(s, "a").value == 8
    assert gm_condition(s, "a", "staggered", remove=True).state.get("a").staggered == 0
    assert gm_condition(s, "a", "hidden").state.get("a").hidden_from == ("x", "y")
    with pytest.raises(NotAllowed, match="grapple pin"):
        gm_condition(s, "a", "pinned")
    with pytest.raises(InvalidInput, match="Conditions"):
        gm_condition(s, "a", "sleepy")
