import pytest

from rules.dice import ScriptedDice
from rules.errors import InvalidInput, NotAllowed
from rules.systems.d6 import grapple
from rules.systems.d6.events import (
    DamageApplied,
    GrappleEnded,
    GrapplePinned,
    GrappleRolled,
    GrappleThrown,
    TakenDown,
)
from rules.systems.d6.house import HouseRules
from rules.systems.d6.save import save_against
from rules.systems.d6.state import Grapple
from rules.systems.d6.turn import end_turn

from .helpers import HOUSE, fighter, in_turn, only, state_of


def pair(counter: int | None = None, **kw):
    s = state_of(
        fighter("Eva", physique="2D", hp_max=40, **kw),
        fighter("cat", physique="2D", hp_max=40),
        fighter("wall", hp_max=40),
    )
    return s if counter is None else s.put_grapple(Grapple("Eva", "cat", counter))


def test_start_needs_a_higher_roll_and_sets_the_counter_to_1_catboy_save_8():
    with ScriptedDice([4, 4, 3, 4]) as dice:
        out = grapple.start(pair(), "Eva", "cat", dice, HOUSE)
    rolled = only(out.events, GrappleRolled)
    assert (rolled.actor_total, rolled.other_total, rolled.counter) == (8, 7, 1)
    assert out.state.grapple("Eva", "cat").toward("Eva") == 1
    assert save_against(out.state, "cat").value == 8
    with ScriptedDice([4, 4, 4, 4]) as dice:
        tie = grapple.start(pair(), "Eva", "cat", dice, HOUSE)
    assert tie.state.grapples == () and only(tie.events, GrappleRolled).shift == 0
    with pytest.raises(NotAllowed, match="already grappling"):
        grapple.start(pair(1), "Eva", "cat", ScriptedDice([]), HOUSE)


@pytest.mark.parametrize(
    ("mine", "theirs", "shift", "result"),
    [
        ([5, 4], [3, 4], 1, "won"),
        ([5, 5], [5, 5], 0, "no change"),
        ([6, 6, 6, 6, 2], [1, 2], 2, "won by 10 or more"),  # 6 + 6 + ⌊(6+6+2)/2⌋ = 19 vs 3
        ([1, 2], [5, 3], -1, "reversal"),
        ([1, 3], [3, 4], 0, "no change"),
    ],
)
def test_contest_outcomes(mine, theirs, shift, result):
    with ScriptedDice(mine + theirs) as dice:
        out = grapple.contest(pair(1), "Eva", "cat", dice, HOUSE)
    rolled = only(out.events, GrappleRolled)
    assert (rolled.shift, rolled.result) == (shift, result)
    assert out.state.grapple("Eva", "cat").toward("Eva") == 1 + shift


def test_counter_is_clamped_at_3_and_2_gives_save_6():
    with ScriptedDice([6, 6, 6, 6, 2, 1, 1]) as dice:
        out = grapple.contest(pair(2), "Eva", "cat", dice, HOUSE)
    assert out.state.grapple("Eva", "cat").counter == 3
    assert save_against(pair(2), "cat").value == 6


def test_pinned_cannot_contest_and_contest_penalties_apply_and_clear():
    pinned = pair().put_grapple(Grapple("Eva", "cat", 3, pinned=True))
    with pytest.raises(NotAllowed, match="pinned"):
        grapple.contest(pinned, "cat", "Eva", ScriptedDice([]), HOUSE)
    owed = pair().put_grapple(Grapple("Eva", "cat", 2, a_penalty=-5)).update("Eva", staggered=1)
    with ScriptedDice([6, 5, 1, 2]) as dice:  # Eva: 6 + 5 − 5 − 2 = 4; cat 1 + 2 = 3
        out = grapple.contest(owed, "Eva", "cat", dice, HOUSE, penalty_dice=0)
    rolled = only(out.events, GrappleRolled)
    labels = [(m.label, m.value) for m in rolled.actor_mods]
    assert ("attacked while ahead", -5) in labels and ("staggered ×1 (other source)", -2) in labels
    assert rolled.actor_total == 11 - 7
    assert out.state.grapple("Eva", "cat").a_penalty == 0


def test_throw_on_the_floor_off_three_storeys_and_the_cap():
    with ScriptedDice([3, 4]) as dice:
        out = grapple.throw(pair(3), "Eva", "cat", dice, HOUSE)
    thrown = only(out.events, GrappleThrown)
    assert (thrown.dice_count, thrown.amount) == (2, 7)
    assert out.state.grapples == () and only(out.events, GrappleEnded).reason == "thrown"
    with ScriptedDice([1] * 8) as dice:
        out = grapple.throw(pair(3), "Eva", "cat", dice, HOUSE, storeys=3)
    assert only(out.events, GrappleThrown).dice_count == 8  # seed: three storeys → 8D6
    with ScriptedDice([1] * 20) as dice:
        out = grapple.throw(pair(3), "Eva", "cat", dice, HOUSE, storeys=5)
    assert only(out.events, GrappleThrown).capped and only(out.events, GrappleThrown).dice_count == 20
    with ScriptedDice([1] * 12) as dice:
        grapple.throw(pair(3), "Eva", "cat", dice, HouseRules(throw_cap_dice=12), storeys=40)
    with pytest.raises(InvalidInput):
        grapple.throw(pair(3), "Eva", "cat", ScriptedDice([]), HOUSE, storeys=-1)


def test_throw_into_a_person_hits_both_for_one_and_a_half_rounded_down():
    with ScriptedDice([3, 4]) as dice:
        out = grapple.throw(pair(3), "Eva", "cat", dice, HOUSE, into="wall")
    assert only(out.events, GrappleThrown).amount == 10  # ⌊7 × 1.5⌋
    hits = {e.target: e.amount for e in out.events if isinstance(e, DamageApplied)}
    assert hits == {"cat": 10, "wall": 10}


def test_moves_at_3_need_the_counter_at_3():
    with pytest.raises(NotAllowed, match="counter at 3"):
        grapple.pin(pair(2), "Eva", "cat")
    with pytest.raises(NotAllowed, match="not grappling"):
        grapple.throw(pair(), "Eva", "cat", ScriptedDice([]), HOUSE)


def test_pin_sets_save_0_and_the_break_point():
    out = grapple.pin(pair(3), "Eva", "cat")
    assert only(out.events, GrapplePinned).break_at == 10  # a quarter of 40
    assert save_against(out.state, "cat").value == 0


def test_takedown_physique_d6_counter_minus_3_and_the_leader_staggered_for_its_next_round():
    s = in_turn(pair(3), "Eva")
    with ScriptedDice([4, 5]) as dice:
        out = grapple.takedown(s, "Eva", "cat", dice, HOUSE, modifier=3)
    down = only(out.events, TakenDown)
    assert (down.rolled, down.amount, down.counter, down.mode) == (9, 12, 0, "d6")
    assert out.state.get("cat").hp == 28
    assert save_against(out.state, "Eva").value == 8
    after_own = end_turn(out.state, "Eva", ScriptedDice([]))
    assert save_against(after_own.state, "Eva").value == 8  # through the others' turns and its next one
    st = after_own.state
    for who in ("cat", "wall"):
        st = end_turn(st, who, ScriptedDice([])).state
    st = end_turn(st, "Eva", ScriptedDice([])).state
    assert save_against(st, "Eva").value == 10


def test_takedown_d66_reads_two_d6_as_tens_and_units():
    with ScriptedDice([3, 4, 6, 1]) as dice:
        out = grapple.takedown(pair(3), "Eva", "cat", dice, HouseRules(takedown_dice="d66"))
    assert only(out.events, TakenDown).rolled == 34 + 61


def test_release_by_the_leader_not_by_the_one_behind():
    with pytest.raises(NotAllowed, match="behind"):
        grapple.release(pair(2), "cat", "Eva")
    out = grapple.release(pair(2), "Eva", "cat")
    assert out.state.grapples == ()
    assert grapple.release(pair(2), "cat", "Eva", by_gm=True).state.grapples == ()


@pytest.mark.parametrize(
    ("mine", "theirs", "shift"),
    [
        ([6, 6, 5], [3, 4], 2),  # 17 vs 7: higher by exactly 10
        ([6, 6, 4], [3, 4], 1),  # 16 vs 7: by 9
        ([1, 2, 2], [3, 2], 0),  # 5 vs 5: a tie changes nothing
        ([1, 1, 2], [4, 4], 0),  # 4 vs 8: the other higher by 4
        ([1, 1, 1], [4, 4], -1),  # 3 vs 8: the other higher by exactly 5 → reversal
    ],
)
def test_contest_edges(mine, theirs, shift):
    s = state_of(fighter("Eva", physique="3D"), fighter("cat", physique="2D")).put_grapple(
        Grapple("Eva", "cat", 0)
    )
    with ScriptedDice(mine + theirs) as dice:
        out = grapple.contest(s, "Eva", "cat", dice, HOUSE)
    assert only(out.events, GrappleRolled).shift == shift
    assert out.state.grapple("Eva", "cat").counter == shift
