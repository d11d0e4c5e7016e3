import dataclasses

from rules.dice import ScriptedDice
from rules.systems.d6.events import InitiativeOrder, InitiativeRolled, InitiativeTie
from rules.systems.d6.gm import begin
from rules.systems.d6.initiative import roll_initiative
from rules.systems.d6.turn import end_turn, reroll_initiative

from .helpers import HOUSE, fighter, only, state_of


def seed_encounter():
    # B1 B2 B3 (centre) P T O A E
    bandits = [fighter(f"B{i}", "bandits", 4 - i, is_pc=False, perception="2D") for i in (1, 2, 3)]
    party = [fighter(n, "party", d, perception="4D") for d, n in enumerate("PTOAE", start=1)]
    return state_of(*party, *bandits)


# Entry order P T O A E B1 B2 B3; each pool's last die is its Wild Die.
SEED_DICE = [5, 4, 4, 4,  4, 4, 4, 3,  4, 4, 4, 4,  3, 4, 4, 4,  2, 2, 2, 3,  2, 3,  2, 3,  2, 3]  # fmt: skip


def test_seed_initiative_example_order():
    with ScriptedDice(SEED_DICE) as dice:
        out = roll_initiative(seed_encounter(), dice, HOUSE, attackers="bandits", surprise=10)
    totals = {e.who: e.total for e in out.events if isinstance(e, InitiativeRolled)}
    assert totals == {"P": 17, "T": 15, "O": 16, "A": 15, "E": 9, "B1": 15, "B2": 15, "B3": 15}
    assert out.state.order == ("P", "O", "A", "T", "B1", "B2", "B3", "E")
    tie = only(out.events, InitiativeTie)
    assert tie.total == 15 and tie.result == ("A", "T", "B1", "B2", "B3")
    assert tie.rule == "defending side first; farthest from the centre first"
    assert tie.dice == ()
    ambush = next(e for e in out.events if isinstance(e, InitiativeRolled) and e.who == "B1")
    assert [(m.label, m.value) for m in ambush.mods] == [("ambush", 10)]
    assert out.state.round == 1 and out.state.current == "P"
    assert only(out.events, InitiativeOrder).totals == (17, 16, 15, 15, 15, 15, 15, 9)


def test_dice_are_drawn_in_entry_order():
    with ScriptedDice(SEED_DICE) as dice:
        roll_initiative(seed_encounter(), dice, HOUSE, attackers="bandits", surprise=10)
    labels = [d.label.split()[0] for d in dice.drawn]
    assert (
        labels
        == ["P"] * 4 + ["T"] * 4 + ["O"] * 4 + ["A"] * 4 + ["E"] * 4 + ["B1"] * 2 + ["B2"] * 2 + ["B3"] * 2
    )


def test_perception_then_roll_off_break_remaining_ties_and_are_recorded():
    s = state_of(
        fighter("X", perception="2D"),
        fighter("Y", perception="2D+1"),
        fighter("Z", perception="2D"),
        fighter("W", perception="2D"),
    )
    # All total 7; Y wins on Perception; X, Z, W roll off: 3, 3, 5 → W, then X and Z again: 2, 4 → Z, X.
    with ScriptedDice([3, 4, 3, 3, 3, 4, 3, 4, 3, 3, 5, 2, 4]) as dice:
        out = roll_initiative(s, dice, HOUSE)
    tie = only(out.events, InitiativeTie)
    assert out.state.order == ("Y", "W", "Z", "X")
    assert tie.rule == "higher Perception first; roll-off"
    assert [d.value for d in tie.dice] == [3, 3, 5, 2, 4]


def test_without_attackers_the_side_rule_is_skipped():
    s = state_of(fighter("A", "party", 1, perception="1D"), fighter("B", "foes", 2, perception="1D"))
    with ScriptedDice([4, 4]) as dice:
        out = roll_initiative(s, dice, HOUSE)
    assert out.state.order == ("B", "A")
    assert only(out.events, InitiativeTie).rule == "farthest from the centre first"


def test_reroll_replaces_the_total_from_the_next_round_even_if_lower():
    s = state_of(fighter("A", perception="1D"), fighter("B", perception="1D"))
    with ScriptedDice([5, 3]) as dice:
        out = begin(s, dice, HOUSE)
    assert out.state.order == ("A", "B")
    with ScriptedDice([2]) as dice:
        rr = reroll_initiative(out.state, "A", dice, HOUSE)
    assert rr.state.get("A").initiative == 5 and rr.state.get("A").next_initiative == 2
    assert rr.events[0].from_round == 2
    with ScriptedDice([]) as dice:
        nxt = end_turn(rr.state, "A", dice)
    assert nxt.state.current == "B" and nxt.state.round == 1
    with ScriptedDice([]) as dice:
        second = end_turn(nxt.state, "B", dice)
    assert second.state.round == 2 and second.state.order == ("B", "A")
    assert second.state.get("A").initiative == 2 and second.state.get("A").next_initiative is None


def test_dead_combatants_roll_no_initiative():
    s = state_of(fighter("A", perception="1D"), fighter("B", perception="1D"))
    s = s.put(dataclasses.replace(s.get("B"), status="dead"))
    with ScriptedDice([4]) as dice:
        out = roll_initiative(s, dice, HOUSE)
    assert out.state.order == ("A",)
