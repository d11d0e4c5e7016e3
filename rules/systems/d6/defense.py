"""Taking a defense (seed "Blocking", "Parrying", "Dodging", total defense; RULES.md §3 "Save score").

Each defense is an action lasting until the defender's next turn. Block needs a shield; parry needs a
melee weapon (or unarmed training) and rolls Coordination + ``parry``; dodge rolls Agility + ``dodge``.
Limits: parry the sheet's ``parry_limit`` attackers (2 by default), dodge ``dodge_limit`` attacks (1);
total defense adds one to either limit (3 and 2 by default) and +5 to the save.
"""

from __future__ import annotations

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput, NotAllowed
from rules.events import Outcome
from rules.systems.d6.checks import base_code, roll_check, turn_mods
from rules.systems.d6.events import DefenseTaken, Mod
from rules.systems.d6.house import HouseRules
from rules.systems.d6.save import save_against
from rules.systems.d6.sheet import SKILL_DODGE, SKILL_PARRY
from rules.systems.d6.state import STANCES, D6State, Defense


def parse_stance(text: str) -> tuple[str, bool]:
    """``block``/``parry``/``dodge`` and ``total-block``/``total-parry``/``total-dodge``."""
    key = (text or "").strip().lower().replace("_", "-").replace(" ", "-")
    total = key.startswith("total-")
    stance = key.removeprefix("total-")
    if stance not in STANCES:
        raise InvalidInput("Stances: block, parry, dodge, total-block, total-parry, total-dodge.")
    return stance, total


def defend(
    state: D6State,
    who: str,
    stance: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    total: bool = False,
    penalty_dice: int = 0,
    bonus: int = 0,
) -> Outcome[D6State]:
    c = state.get(who)
    if not c.can_act:
        raise NotAllowed(f"{c.name} cannot defend now.")
    if stance not in STANCES:
        raise InvalidInput("Stances: block, parry, dodge.")
    sheet = c.sheet
    mods: list[Mod] = list(turn_mods(penalty_dice))
    if bonus:
        mods.append(Mod("bonus", bonus))
    code = None
    roll = None
    shown: tuple[Mod, ...] = ()
    drawn: tuple[Die, ...] = ()
    if stance == "block":
        if not sheet.has_shield:
            raise NotAllowed(f"{c.name} has no shield to block with (set `shield_av`).")
        defense = Defense("block", total, None, 0)
    else:
        if stance == "parry":
            if not (any(w.melee for w in sheet.weapons) or sheet.unarmed_trained):
                raise NotAllowed(f"{c.name} needs a melee weapon (or unarmed training) to parry.")
            code, shown = base_code(sheet, "coordination", SKILL_PARRY)
            limit = sheet.parry_limit + (1 if total else 0)
        else:
            code, shown = base_code(sheet, "agility", SKILL_DODGE)
            limit = sheet.dodge_limit + (1 if total else 0)
        result = roll_check(code, mods, dice, house, f"{who} {stance}")
        code, roll, drawn = result.code, result.roll, result.roll.dice
        defense = Defense(stance, total, result.total, limit)  # type: ignore[arg-type]
    state = state.update(who, defense=defense)
    save = save_against(state, who)
    event = DefenseTaken(
        who, stance, total, save.value, defense.limit, code, shown + tuple(mods), roll, drawn
    )
    return Outcome(state, (event,))
