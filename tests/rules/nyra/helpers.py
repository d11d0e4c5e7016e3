"""Shared builders for the Nyra tests: the seed's duellists and a begun duel."""

from __future__ import annotations

from rules.dice import ScriptedDice
from rules.systems.nyra import sequence
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.sheet import NyraSheet, validate_sheet
from rules.systems.nyra.state import NyraCombat, NyraCombatant

HOUSE = HouseRules()


def sheet(
    name: str = "X", *, STR=7, AGI=6, CON=6, skills=None, weapons=("Short Sword",), **extra
) -> NyraSheet:
    raw = {
        "name": name,
        "stats": {"STR": STR, "AGI": AGI, "CON": CON},
        "skills": dict(skills if skills is not None else {"Swords": 7}),
        "weapons": list(weapons),
        **extra,
    }
    return validate_sheet(raw)


def duelist_1() -> NyraSheet:
    return sheet("Duelist 1", skills={"Swords": 7, "Dodge": 5}, sequence=5)


def duelist_2() -> NyraSheet:
    return sheet("Duelist 2", skills={"Swords": 7, "Defense": 5}, sequence=4)


def combat(*sheets: NyraSheet, script=(), house: HouseRules = HOUSE, ids=None) -> NyraCombat:
    """Add the sheets in order (ids c0, c1, … unless given) and begin, with the scripted begin dice."""
    state = NyraCombat()
    ids = ids or [f"c{i}" for i in range(len(sheets))]
    with ScriptedDice(script) as dice:
        for cid, s in zip(ids, sheets, strict=True):
            state = sequence.add_combatant(state, NyraCombatant.from_sheet(cid, s), dice, house).state
        return sequence.begin(state, dice, house).state


def duel(house: HouseRules = HOUSE) -> NyraCombat:
    """The seed's duel: Duelist 2 entered first, Duelist 1 (Sequence 5) still acts first."""
    return combat(duelist_2(), duelist_1(), ids=["d2", "d1"], house=house)


def run(op, state, args, script, house: HouseRules = HOUSE):
    """Run ``op(state, args, dice, house)`` with exactly ``script`` dice (leftovers fail); a tuple ``args``
    is spread (``set_stance(state, actor, stance, dice, house)``)."""
    with ScriptedDice(script) as dice:
        if isinstance(args, tuple):
            return op(state, *args, dice, house)
        return op(state, args, dice, house)


def kinds(outcome) -> list[str]:
    return [e.kind for e in outcome.events]


def first(outcome, kind: str):
    return next(e for e in outcome.events if e.kind == kind)
