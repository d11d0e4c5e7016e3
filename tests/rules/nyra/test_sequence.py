"""Order by Sequence, AGI, then a kept d10 roll-off (RULES.md §1 "Order")."""

from rules.dice import ScriptedDice
from rules.systems.nyra import sequence, turns
from rules.systems.nyra import sheet as sheets
from rules.systems.nyra.state import NyraCombat, NyraCombatant

from .helpers import HOUSE, combat, first, run, sheet


def test_highest_sequence_first_then_agi():
    state = combat(
        sheet("Slow", AGI=3, sequence=7), sheet("Quick", AGI=8, sequence=7), sheet("Top", sequence=9)
    )
    assert state.order == ("c2", "c1", "c0")


def test_full_tie_rolls_off_once_and_keeps_the_rolls():
    a, b = sheet("A", sequence=5), sheet("B", sequence=5)
    state = combat(a, b, script=[(10, 4), (10, 4), (10, 2), (10, 9)])
    assert state.order == ("c1", "c0")
    assert (state.get("c0").rolloff, state.get("c1").rolloff) == ((4, 2), (4, 9))
    # Kept for the whole combat: a new phase draws nothing.
    state = run(turns.end_turn, state, "c1", [])
    state = run(turns.end_turn, state.state, "c0", [])
    assert state.state.phase == 2 and state.state.current_id == "c1"


def test_missing_sequences_are_rolled_in_entry_order_before_rolloffs():
    state = NyraCombat()
    with ScriptedDice([(10, 6), (10, 6), (10, 3), (10, 8)]) as dice:
        for cid, s in (("x", sheet("X")), ("y", sheet("Y"))):
            state = sequence.add_combatant(state, NyraCombatant.from_sheet(cid, s), dice, HOUSE).state
        out = sequence.begin(state, dice, HOUSE)
    assert [e.kind for e in out.events][:3] == ["SequenceRolled", "SequenceRolled", "OrderSet"]
    assert out.state.order == ("y", "x")
    assert [d.value for d in first(out, "OrderSet").dice] == [3, 8]


def test_roll_sequence_on_a_sheet_is_explicit():
    s = sheet("S")
    out = run(lambda st, args, dice, house: sheets.roll_sequence(st, dice), s, None, [(10, 7)])
    assert out.state.sequence == 7 and s.sequence is None
    assert run(lambda st, a, d, h: sheets.roll_sequence(st, d), out.state, None, []).state.sequence == 7


def test_joining_a_running_fight_rolls_only_against_its_tie():
    state = combat(sheet("A", sequence=5), sheet("B", sequence=3))
    out = run(
        sequence.add_combatant,
        state,
        NyraCombatant.from_sheet("n", sheet("N", sequence=5)),
        [(10, 2), (10, 7)],
    )
    assert out.state.order == ("n", "c0", "c1")
    assert out.state.current_id == "c0"  # the turn holder keeps the turn
    assert out.state.get("c0").rolloff == (2,) and out.state.get("n").rolloff == (7,)
    again = run(
        sequence.add_combatant, out.state, NyraCombatant.from_sheet("m", sheet("M", sequence=5)), [(10, 5)]
    )
    assert again.state.order == ("n", "m", "c0", "c1")
    assert again.state.get("n").rolloff == (7,)  # kept
