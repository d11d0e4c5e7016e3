"""Criticals (seed "Criticals"; RULES.md §3 "Criticals").

Threshold = the save the attack met × the stage's percentage. One-handed weapons use the 200 % column,
two-handed and ranged (bows, slings, crossbows) the 300 % column, whose figures are the 200 % ones × 1.5.
Rounding (our reading): the threshold is rounded **up** (ceil of save × percent / 100, computed exactly), so
"reaches the threshold" means roll ≥ threshold and a fractional threshold is never reached by a lower
whole roll. Stage modifiers, melee (ranged): Agility die above 3 +1 / below 3 −1 each; Perception die
above 5 (4) +1 each; from stealth or a backstab +2; target staggered +2 (+1); target Physique die above 4
−1 (−2) each; every two weapon-training levels +1; target dodge skill level −1 (−2) each; target in total
defense −2 (−3); the GM's; clamped to −5…+5. A critical needs a hit first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from rules.systems.d6.events import Mod
from rules.systems.d6.sheet import SKILL_DODGE, Sheet, Weapon

STAGE_PERCENT: dict[int, int] = {
    -5: 500,
    -4: 400,
    -3: 350,
    -2: 300,
    -1: 250,
    0: 200,
    1: 133,
    2: 100,
    3: 80,
    4: 66,
    5: 57,
}
MIN_STAGE, MAX_STAGE = -5, 5


def column(weapon: Weapon) -> int:
    """200 for one-handed melee/magic, 300 for two-handed and ranged weapons."""
    return 300 if weapon.hands == 2 or weapon.ranged else 200


def percent(stage: int, col: int) -> Fraction:
    """The stage's percentage in that column (300 % column = 200 % figures × 1.5, kept exact)."""
    base = Fraction(STAGE_PERCENT[max(MIN_STAGE, min(MAX_STAGE, stage))])
    return base * Fraction(3, 2) if col == 300 else base


def threshold(save: int, stage: int, col: int) -> int:
    """ceil(save × percent / 100): the least roll that is a critical."""
    return math.ceil(Fraction(save) * percent(stage, col) / 100)


@dataclass(frozen=True, slots=True)
class Stage:
    stage: int
    raw: int
    parts: tuple[Mod, ...]


def crit_stage(
    attacker: Sheet,
    weapon: Weapon,
    target: Sheet,
    *,
    from_stealth: bool = False,
    flank: bool = False,
    target_staggered: bool = False,
    target_total_defense: bool = False,
    gm: int = 0,
) -> Stage:
    ranged = weapon.ranged
    parts: list[Mod] = []
    agility = attacker.agility.dice - 3
    if agility:
        parts.append(Mod(f"Agility {attacker.agility}", agility))
    per_limit = 4 if ranged else 5
    if attacker.perception.dice > per_limit:
        parts.append(Mod(f"Perception {attacker.perception}", attacker.perception.dice - per_limit))
    if from_stealth or flank:  # one +2 either way, named for what the table saw
        parts.append(Mod("from stealth" if from_stealth else "flank/backstab", 2))
    if target_staggered:
        parts.append(Mod("target staggered", 1 if ranged else 2))
    if target.physique.dice > 4:
        parts.append(
            Mod(f"target Physique {target.physique}", -(2 if ranged else 1) * (target.physique.dice - 4))
        )
    if weapon.training >= 2:
        parts.append(Mod(f"weapon training {weapon.training}", weapon.training // 2))
    dodge = target.skill_dice(SKILL_DODGE).dice
    if dodge:
        parts.append(Mod(f"target dodge skill {dodge}", -(2 if ranged else 1) * dodge))
    if target_total_defense:
        parts.append(Mod("target in total defense", -3 if ranged else -2))
    if gm:
        parts.append(Mod("GM", gm))
    raw = sum(p.value for p in parts)
    return Stage(max(MIN_STAGE, min(MAX_STAGE, raw)), raw, tuple(parts))
