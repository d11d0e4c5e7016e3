"""A D6 turn of one action reads as its resolution and one line for the turn passing; a plan of several
actions keeps its lock-in (the multi-action penalty changes every roll). Through the real D6 rules."""

from __future__ import annotations

import cogs.text.events  # noqa: F401  (registers every renderer)
from cogs.text.events import lines_of
from cogs.text.messages import story
from tests.rules.d6.test_adapter_actions import npc, pc
from tests.rules.d6.test_table import act, fight

NAMES = {"Eva": "Eva", "T": "T"}


def test_a_one_action_turn_is_its_resolution_and_the_turn_passing() -> None:
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    out = act(state, "attack", "Eva", [1, 1, 2], target="T", lock=True)  # 4 vs save 10: a miss
    lines = story(out.events, NAMES, bullets=False)
    assert len(lines_of(out.events, NAMES)) >= 6  # what the events say one by one
    assert len(lines) == 2, lines
    assert lines[0].startswith("⚔️ **Eva** **misses** **T**") and "🎲 to-hit [1 1 2ᵂ]" in lines[0]
    assert lines[1] == "⏹️ **Eva**'s turn ends → Round 1: **T**'s turn"


def test_a_one_action_lockin_drops_the_plan_and_a_hit_keeps_its_damage() -> None:
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    declared = act(state, "attack", "Eva", target="T").state
    out = act(declared, "lockin", "Eva", [6, 5, 6, 3, 3, 2, 2])
    lines = story(out.events, NAMES, bullets=False)
    assert not any("locks in" in x or "turn is done" in x or "plans action" in x for x in lines), lines
    assert lines[0].startswith("⚔️ **Eva** **hits** **T**")
    assert any(x.startswith("💥") for x in lines) and any(x.startswith("🩸") for x in lines)
    assert lines[-1] == "⏹️ **Eva**'s turn ends → Round 1: **T**'s turn"


def test_a_plan_of_several_actions_keeps_its_lock_in_and_penalty() -> None:
    state = fight(pc("Eva"), npc("T"), init=[5, 2])
    state = act(state, "attack", "Eva", target="T").state
    state = act(state, "defend", "Eva", stance="parry").state
    out = act(state, "lockin", "Eva", [3] * 4)
    lines = story(out.events, NAMES, bullets=False)
    assert any(x.startswith("📎 Eva locks in: 1. attack T") for x in lines), lines
    assert any("the multi-action penalty" in x for x in lines), lines


# --- Nyra and Kaernest, by the passings their text modules declare --------------------------------------


def test_a_nyra_turn_passing_is_one_line_and_a_new_phase_is_named_in_it() -> None:
    from tests.rules.nyra.test_adapter import SYSTEM as NYRA
    from tests.rules.nyra.test_adapter import call, duel

    names = {"d1": "Duelist 1", "d2": "Duelist 2"}
    out = call(NYRA.end_turn, duel(), "d1")
    assert story(out.events, names, bullets=False) == [
        "⏹️ **Duelist 1**'s turn ends → Phase 1: **Duelist 2**'s turn, with 6 delay to spend"
    ]
    again = call(NYRA.gm_next, out.state)
    (line,) = story(again.events, names, bullets=False)
    assert line.startswith("⏹️ **Duelist 2**'s turn is ended by the GM → Phase 2 begins: **Duelist 1**'s turn")
    assert "Phase 2 begins." not in line and len(lines_of(again.events, names)) == 3


def test_a_kaernest_wait_and_the_clock_running_on_are_one_heading() -> None:
    from cogs.text.events.registry import Heading
    from rules.dice import ScriptedDice
    from tests.rules.kaernest.test_adapter import HOUSE as KHOUSE
    from tests.rules.kaernest.test_adapter import K, begun

    with ScriptedDice([]) as dice:
        out = K.end_turn(begun().state, "a", dice, KHOUSE)
    (line,) = story(out.events, {"a": "Ada"})
    assert line == "⏹️ **Ada**'s turn ends: waits a segment → the clock runs on to **1:16**"
    assert isinstance(line, Heading)


def test_a_passing_is_not_folded_when_one_of_its_events_carries_dice() -> None:
    from rules.dice import Die
    from rules.systems.nyra.events import PhaseStarted, TurnEnded, TurnStarted

    names = {"a": "A", "b": "B"}
    rolled = (
        TurnEnded("a", "A", "player", 0),
        PhaseStarted(2, dice=(Die(6, 3, label="tie"),)),
        TurnStarted("b", "B", 2, 3, 5, 0),
    )
    lines = story(rolled, names, bullets=False)
    assert len(lines) == 3, lines  # the die stays where it was rolled
