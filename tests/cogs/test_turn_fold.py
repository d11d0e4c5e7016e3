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
