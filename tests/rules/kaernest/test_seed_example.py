"""The seed's combat example (Izuki the Warri against the Verdanni Andretti and Mico), as far as it is
consistent with the rules text.

Two places where the example contradicts its own rules, and the rules text wins (RULES.md §2):
- it adds Reflex to initiative; the rules say Instinct (so we give Izuki Instinct 7 and a d12 of 10: 17);
- "Andretti … Grace 7 … Clubs/Maces 7 … Izuki's Reflexes is a 9. This makes the target number a 13. He rolls
  a 10 and hits": the formula gives 7 + 7 + 3 − 9 = 8, and a 10 misses.
"""

from rules.dice import ScriptedDice
from rules.systems.kaernest import encounter as roster
from rules.systems.kaernest import initiative, timeline
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import KaernestState

from .helpers import fighter

HOUSE = HouseRules()


def test_izuki_andretti_mico():
    izuki = fighter("Izuki", grace=8, reflex=9, instinct=7, skills={"Swords": 6}, weapons=("Sword, Bastard",))
    andretti = fighter(
        "Andretti",
        grace=7,
        reflex=6,
        instinct=5,
        health=8,
        skills={"Clubs/Maces": 7},
        weapons=("Club (Common)",),
    )
    mico = fighter("Mico", grace=6, reflex=6, instinct=4, skills={"Swords": 5}, weapons=("Sword, Short",))
    state = KaernestState()
    for cid, sheet in (("izuki", izuki), ("andretti", andretti), ("mico", mico)):
        state = roster.add_combatant(state, cid, sheet).state
    with ScriptedDice([10, 9, 8]) as dice:  # drawn in the order they entered
        state = initiative.roll_initiative(state, dice, HOUSE).state
    # "Izuki will go first, followed by Andretti and then finally Mico."
    assert [state.get(c).initiative for c in ("izuki", "andretti", "mico")] == [17, 14, 12]

    state = timeline.advance(state, ScriptedDice([]), HOUSE).state
    assert (state.segment, timeline.next_due(state).combatants) == (17, ("izuki",))
    # "The speed of his weapon is 9, so his action will actually occur in segment 8."
    out = timeline.declare_attack(
        state, "izuki", "andretti", ScriptedDice([]), HOUSE, weapon="Sword, Bastard", grip="1h"
    )
    assert (out.events[-1].speed, out.events[-1].lands_segment) == (9, 8)
    state = timeline.advance(out.state, ScriptedDice([]), HOUSE).state
    # "Andretti goes next. He attacks Izuki with his club." (speed 6: lands at 8 as well)
    assert state.segment == 14
    out = timeline.declare_attack(state, "andretti", "izuki", ScriptedDice([]), HOUSE)
    assert out.events[-1].lands_segment == 8
    state = timeline.advance(out.state, ScriptedDice([]), HOUSE).state
    assert state.segment == 12
    state = timeline.declare_attack(state, "mico", "izuki", ScriptedDice([]), HOUSE).state

    # At 8 both land; Izuki (17) resolves before Andretti (14). Izuki rolls 7; Andretti rolls the seed's 10.
    with ScriptedDice([3, 4, 4, 6]) as dice:
        out = timeline.advance(state, dice, HOUSE)
    attacks = [e for e in out.events if e.kind == "AttackResolved"]
    assert [a.attacker for a in attacks] == ["izuki", "andretti"]
    andretti_attack = attacks[1]
    assert [(m.label, m.value) for m in andretti_attack.modifiers] == [
        ("Clubs/Maces", 7),
        ("Grace", 7),
        ("simple action", 3),
        ("Izuki's defense (passive)", -9),
    ]
    assert andretti_attack.target == 8  # not the seed's 13
    assert (andretti_attack.total, andretti_attack.hit) == (10, False)
    # Both declare again at 8, Izuki first; Mico's blow (speed 5 from 12) lands at 7.
    due = timeline.next_due(out.state)
    assert (due.kind, due.segment, due.combatants) == ("declare", 8, ("izuki", "andretti"))
    assert out.state.get("mico").pending.lands_tick == 23
