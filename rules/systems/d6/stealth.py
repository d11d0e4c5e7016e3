"""Stealth (seed "Stealth"; RULES.md §3 "Stealth").

Agility + ``stealth`` skill, armour class (light 0, medium −2, heavy −6), light (dim +2, daylight −6, normal
0) and +3 when already hidden, against each opponent's Acumen roll (higher wins, tie: the opponent).
Impossible while engaged in melee. Hidden from an opponent: the next attack on it counts as from stealth (+2
critical stage) and reveals the attacker. Dice: the stealth roll, then each opponent's in entry order.
"""

from __future__ import annotations

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Outcome
from rules.systems.d6.checks import base_code, roll_check, turn_mods
from rules.systems.d6.events import Mod, StealthChecked
from rules.systems.d6.house import HouseRules
from rules.systems.d6.sheet import SKILL_STEALTH
from rules.systems.d6.state import D6State

ARMOUR_MOD = {"light": 0, "medium": -2, "heavy": -6}
LIGHT_MOD = {"normal": 0, "dim": 2, "daylight": -6}
ALREADY_HIDDEN = 3


def stealth(
    state: D6State,
    who: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    light: str = "normal",
    bonus: int = 0,
    penalty_dice: int = 0,
) -> Outcome[D6State]:
    c = state.get(who)
    key = (light or "normal").strip().lower()
    if key not in LIGHT_MOD:
        raise InvalidInput(f"Light is one of {', '.join(LIGHT_MOD)}.")
    if not c.can_act:
        raise NotAllowed(f"{c.name} cannot act now.")
    engaged = [e for e in c.engaged_with if state.has(e) and state.get(e).can_act]
    if engaged or state.grapples_of(who):
        raise NotAllowed(f"{c.name} is engaged in melee; stealth is impossible (disengage first).")
    code, shown = base_code(c.sheet, "agility", SKILL_STEALTH)
    mods: list[Mod] = list(turn_mods(penalty_dice))
    if ARMOUR_MOD[c.sheet.armour_class]:
        mods.append(Mod(f"{c.sheet.armour_class} armour", ARMOUR_MOD[c.sheet.armour_class]))
    if LIGHT_MOD[key]:
        mods.append(Mod(f"{key} light", LIGHT_MOD[key]))
    if c.hidden_from:
        mods.append(Mod("already hidden", ALREADY_HIDDEN))
    if bonus:
        mods.append(Mod("bonus", bonus))
    mine = roll_check(code, mods, dice, house, f"{who} stealth")
    drawn = list(mine.roll.dice)
    against: list[tuple[str, int, bool]] = []
    hidden: list[str] = []
    for opp in state.opponents(who):
        if not opp.can_act:
            continue
        theirs = roll_check(opp.sheet.acumen, (), dice, house, f"{opp.id} acumen")
        drawn += theirs.roll.dice
        ok = mine.total > theirs.total
        against.append((opp.id, theirs.total, ok))
        if ok:
            hidden.append(opp.id)
    state = state.update(who, hidden_from=tuple(hidden))
    event = StealthChecked(
        who, mine.code, mine.total, tuple(against), shown + tuple(mods), mine.roll, tuple(drawn)
    )
    return Outcome(state, (event,))
