"""A declared action's stored form is made once per action (the whole plan is saved with every change of
its turn), and the plan shows the names its actions mention as they are now."""

from __future__ import annotations

import dataclasses

from rules.systems.d6.adapter import D6System
from rules.systems.d6.adapter_actions import plan_text
from rules.systems.d6.state import Plan, PlannedAction

from .helpers import fighter, in_turn, state_of


def _planned(*actions: PlannedAction):
    state = in_turn(state_of(fighter("a"), fighter("b", side="foes"), fighter("c", side="foes")), "a")
    return dataclasses.replace(state, plan=Plan("a", actions))


def _renamed(state, cid: str, name: str):
    return state.update(cid, sheet=dataclasses.replace(state.get(cid).sheet, name=name))


def _plan_of_tracker(state) -> str:
    return next(note for note in D6System().tracker(state).notes if note.startswith("plan"))


def test_the_words_of_a_planned_action_follow_its_targets_names() -> None:
    strike = PlannedAction(kind="attack", target="b")
    throw = PlannedAction(kind="grapple", move="throw", target="b", into="c")
    state = _planned(strike, throw)
    assert "attack b" in _plan_of_tracker(state) and "grapple throw b" in _plan_of_tracker(state)
    assert "attack b with" in plan_text(state, "a", locked=False) and "into c" in plan_text(
        state, "a", locked=False
    )
    later = _renamed(_renamed(state, "b", "Birch"), "c", "Cedar")  # the same action objects
    assert later.plan is not None and later.plan.actions[0] is strike
    assert "attack Birch" in _plan_of_tracker(later) and "grapple throw Birch" in _plan_of_tracker(later)
    told = plan_text(later, "a", locked=False)
    assert "attack Birch with" in told and "throw Birch" in told and "into Cedar" in told, told
    assert "attack b" in _plan_of_tracker(state)  # each state still shows its own names


def test_a_planned_actions_stored_form_is_made_once_and_changes_no_comparison() -> None:
    strike = PlannedAction(kind="attack", target="b", bonus=2)
    stored = strike.stored()
    assert stored == strike.to_dict() and strike.stored() is stored
    assert "_stored" not in stored
    assert PlannedAction.from_dict(stored) == strike == PlannedAction(kind="attack", target="b", bonus=2)
    state = _planned(strike)
    assert state.to_dict()["plan"]["actions"] == [strike.to_dict()]
    assert strike == PlannedAction(kind="attack", target="b", bonus=2)  # stored or not, equal
