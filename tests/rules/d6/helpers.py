"""Shared builders for the D6 tests: sheets, states, scripted dice."""

from __future__ import annotations

import dataclasses
from typing import Any

from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Sheet, Skill, Weapon
from rules.systems.d6.state import Combatant, D6State, new_combatant

HOUSE = HouseRules()
SHORT_SWORD = Weapon("short sword", DieCode(1, 2), "coordination", "cutting", 1)


def sheet(name: str = "x", **kw: Any) -> Sheet:
    """A sheet with every attribute 3D unless given; ``skills={"dodge": ("agility", "1D")}``."""
    skills = kw.pop("skills", {})
    codes = {
        a: DieCode.parse(kw.pop(a)) if isinstance(kw.get(a), str) else kw.pop(a, DieCode(3))
        for a in ("physique", "agility", "coordination", "perception", "intellect", "acumen", "charisma")
    }
    built = Sheet(
        name=name,
        **codes,
        skills=tuple(Skill(n, attr, DieCode.parse(code)) for n, (attr, code) in skills.items()),
        **kw,
    )
    return built


def fighter(cid: str, side: str = "party", distance: int = 0, is_pc: bool = True, **kw: Any) -> Combatant:
    kw.setdefault("weapons", (SHORT_SWORD,))
    kw.setdefault("hp_max", 20)
    return new_combatant(cid, sheet(cid, **kw), side=side, distance=distance, is_pc=is_pc)


def state_of(*combatants: Combatant, **kw: Any) -> D6State:
    return dataclasses.replace(D6State(), combatants=tuple(combatants), **kw)


def in_turn(state: D6State, who: str) -> D6State:
    """A state in round 1 where ``who`` holds the turn with an empty plan."""
    from rules.systems.d6.state import Plan

    order = (who, *[c.id for c in state.combatants if c.id != who])
    return dataclasses.replace(state, round=1, order=order, turn=0, plan=Plan(who))


def values(events, kind: str | None = None) -> list[int]:
    return [d.value for e in events if kind is None or e.kind == kind for d in e.all_dice]


def only(events, cls):
    found = [e for e in events if isinstance(e, cls)]
    assert len(found) == 1, f"expected one {cls.__name__}, got {[e.kind for e in events]}"
    return found[0]
