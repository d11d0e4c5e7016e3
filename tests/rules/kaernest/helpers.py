"""Builders for Kaernest tests: sheets, encounters with fixed initiatives, and a scripted run."""

from __future__ import annotations

import dataclasses

from rules.dice import ScriptedDice
from rules.systems.kaernest import encounter, initiative, timeline
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import KaernestState

HOUSE = HouseRules()


def fighter(name: str, **fields) -> Sheet:
    skills = tuple(fields.pop("skills", {}).items())
    weapons = tuple(fields.pop("weapons", ("Sword, Short",)))
    return Sheet(name=name, skills=skills, weapons=weapons, **fields)


def arena(*entries: tuple[str, Sheet, int], posture: dict[str, str] | None = None) -> KaernestState:
    """An encounter at minute 1 segment 30 whose combatants have the given initiatives (no dice)."""
    state = KaernestState()
    for cid, sheet, _ in entries:
        state = encounter.add_combatant(state, cid, sheet).state
    for cid, _, value in entries:
        state = initiative.set_initiative(state, cid, value).state
    for cid, value in (posture or {}).items():
        state = state.replace(dataclasses.replace(state.get(cid), posture=value))
    return state


def run_to_turn(state: KaernestState, script=(), house: HouseRules = HOUSE):
    """Advance with exactly ``script`` dice; returns (state, events)."""
    with ScriptedDice(script) as dice:
        out = timeline.advance(state, dice, house)
    return out.state, out.events


def kinds(events) -> list[str]:
    return [e.kind for e in events]
