import pytest

from rules.dice import ScriptedDice
from rules.errors import NotAllowed
from rules.events import Note
from rules.systems.d6.events import ActionDeclared, AttackRolled, Rolled, TurnLocked
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Weapon
from rules.systems.d6.state import LastGasp, PlannedAction
from rules.systems.d6.turn import declare, lock_in, multi_action_penalty
from rules.systems.d6.turn import declare_and_lock as act

from .helpers import HOUSE, fighter, in_turn, only, state_of

CHARM = PlannedAction("check", stat="charisma", note="charm the wolf")
COMMAND = PlannedAction("check", stat="charisma", note="command the cat")
BACKSTAB = PlannedAction("attack", target="T")


def eva_state():
    return in_turn(state_of(fighter("Eva", charisma="3D", coordination="4D"), fighter("T")), "Eva")


def plan(state, *actions, who="Eva"):
    for a in actions:
        state = declare(state, who, a).state
    return state


def test_seed_eva_three_actions_each_at_minus_2d():
    s = plan(eva_state(), CHARM, COMMAND, BACKSTAB)
    # 3D−2 = 1D, 1D, then 4D−2 = 2D rolling 3+4 = 7 against T's save 10: a miss, so no damage dice.
    with ScriptedDice([4, 5, 3, 4]) as dice:
        out = lock_in(s, "Eva", dice, HOUSE)
    locked = only(out.events, TurnLocked)
    assert (locked.counted, locked.penalty_dice) == (3, 2)
    checks = [e for e in out.events if isinstance(e, Rolled)]
    assert [c.code for c in checks] == [DieCode(1), DieCode(1)]
    attack = only(out.events, AttackRolled)
    assert attack.code == DieCode(2) and attack.total == 7 and not attack.hit
    assert [(m.label, m.value, m.unit) for m in attack.mods] == [("multi-action", -2, "D")]
    assert out.state.plan.locked


def test_seed_eva_two_actions_each_at_minus_1d():
    s = plan(eva_state(), CHARM, BACKSTAB)
    with ScriptedDice([2, 3, 3, 3, 2]) as dice:
        out = lock_in(s, "Eva", dice, HOUSE)
    assert only(out.events, TurnLocked).penalty_dice == 1
    assert only(out.events, Rolled).code == DieCode(2)
    assert only(out.events, AttackRolled).code == DieCode(3)


def test_nothing_resolves_before_lock_in_and_nothing_is_added_after():
    s = eva_state()
    declared = declare(s, "Eva", BACKSTAB)
    assert declared.state.combatants == s.combatants
    assert only(declared.events, ActionDeclared).dice == ()
    with ScriptedDice([1, 1, 1, 2]) as dice:
        locked = lock_in(declared.state, "Eva", dice, HOUSE)
    with pytest.raises(NotAllowed, match="locked in"):
        declare(locked.state, "Eva", CHARM)
    with pytest.raises(NotAllowed, match="already locked"):
        lock_in(locked.state, "Eva", ScriptedDice([]), HOUSE)


@pytest.mark.parametrize(
    ("kinds", "free_actions", "penalty"),
    [
        (["free", "attack"], 1, 0),
        (["free", "free", "attack"], 1, 1),
        (["free", "free", "attack"], 2, 0),
        (["free", "free", "free"], 1, 1),
        (["attack", "defend"], 1, 1),
        (["attack"], 1, 0),
    ],
)
def test_free_actions_beyond_the_allowance_count(kinds, free_actions, penalty):
    s = fighter("a", free_actions=free_actions).sheet
    actions = tuple(PlannedAction(k, free=k == "free") for k in kinds)
    assert multi_action_penalty(actions, s).dice == penalty


def test_short_moves_are_free_long_ones_count():
    s = in_turn(state_of(fighter("a", movement=6)), "a")
    s = declare(s, "a", PlannedAction("move", distance=3)).state
    s = declare(s, "a", PlannedAction("move", distance=4)).state
    assert [a.free for a in s.plan.actions] == [True, False]
    assert multi_action_penalty(s.plan.actions, s.get("a").sheet).dice == 0


def test_declaring_out_of_turn_or_a_whole_turn_action_with_others_is_refused():
    s = eva_state()
    with pytest.raises(NotAllowed, match="Eva's turn"):
        declare(s, "T", CHARM)
    with pytest.raises(NotAllowed, match="whole turn"):
        declare(plan(s, CHARM), "Eva", PlannedAction("reroll_initiative"))
    with pytest.raises(NotAllowed, match="Total defense"):
        declare(plan(s, CHARM), "Eva", PlannedAction("defend", stance="dodge", total=True))
    total = plan(s, PlannedAction("defend", stance="dodge", total=True))
    with pytest.raises(NotAllowed, match="wholly taken"):
        declare(total, "Eva", PlannedAction("free"))
    with pytest.raises(NotAllowed, match="Declare at least one"):
        lock_in(s, "Eva", ScriptedDice([]), HOUSE)


def test_last_gasp_allows_only_the_death_save():
    s = eva_state()
    s = s.update("Eva", hp=-2, last_gasp=LastGasp(), prone=True)
    with pytest.raises(NotAllowed, match="only action is the Death Save"):
        declare(s, "Eva", BACKSTAB)
    with pytest.raises(NotAllowed, match="not in Last Gasp"):
        declare(eva_state(), "Eva", PlannedAction("death_save", stat="charisma"))


def test_dual_wielding_two_weapons_costs_2d_unless_trained():
    dagger = Weapon("dagger", DieCode(1), "coordination", "piercing")
    sword = Weapon("sword", DieCode(2), "coordination", "cutting")
    for trained, codes in ((False, [DieCode(1), DieCode(1)]), (True, [DieCode(3), DieCode(3)])):
        s = in_turn(
            state_of(
                fighter("a", coordination="4D", weapons=(dagger, sword), dual_wield_trained=trained),
                fighter("b", agility="4D"),
            ),
            "a",
        )
        s = plan(
            s,
            PlannedAction("attack", target="b", weapon="dagger"),
            PlannedAction("attack", target="b", weapon="sword"),
            who="a",
        )
        script = [1] * sum(c.dice for c in codes)
        with ScriptedDice(script) as dice:
            out = lock_in(s, "a", dice, HOUSE)
        assert [e.code for e in out.events if isinstance(e, AttackRolled)] == codes


def test_an_action_made_impossible_mid_turn_is_skipped_with_a_note():
    s = in_turn(state_of(fighter("a", coordination="2D"), fighter("b", hp_max=1, armour_ar=0)), "a")
    s = plan(
        s, PlannedAction("attack", target="b"), PlannedAction("grapple", move="start", target="b"), who="a"
    )
    # Attack 2D−1 = 1D: 6, 6, 6, 6, 5 → 6 + ⌊23/2⌋ = 17 hits; damage 1D+2 (5) + 2D scaling (5, 5).
    with ScriptedDice([6, 6, 6, 6, 5, 5, 5, 5]) as dice:
        out = lock_in(s, "a", dice, HOUSE)
    assert out.state.get("b").status == "dead"  # 1 − 17 = −16, below −(max HP 1)
    assert any(isinstance(e, Note) and "grapple (start) is skipped: " in e.text for e in out.events)


def test_act_is_declare_plus_lock_in():
    s = eva_state()
    with ScriptedDice([2, 2, 2, 2]) as dice:
        out = act(s, "Eva", BACKSTAB, dice, HOUSE)
    assert [e.kind for e in out.events][:3] == ["ActionDeclared", "TurnLocked", "AttackRolled"]
