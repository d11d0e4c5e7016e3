"""Pool checks: attribute + skill dice, dice modifiers, flat modifiers (RULES.md §3 "Dice codes", "Turn").

Dice modifiers (−1D per extra action, −2D dual wielding) remove dice from the pool and never take it below
0D; flat modifiers (+10 ambush, +3 already hidden) are added to the rolled total and never become dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import DiceSource
from rules.systems.d6.events import Mod, Rolled
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode, PoolRoll, roll_pool
from rules.systems.d6.sheet import ATTRIBUTES, Sheet


@dataclass(frozen=True, slots=True)
class Check:
    code: DieCode
    total: int
    mods: tuple[Mod, ...]
    roll: PoolRoll


def roll_code(code: DieCode, dice: DiceSource, house: HouseRules, label: str = "") -> PoolRoll:
    """Roll a pool with the channel's Wild Die readings."""
    return roll_pool(code, dice, explode=house.explode, wild_one=house.wild_one, label=label)


def base_code(sheet: Sheet, attribute: str, skill: str = "") -> tuple[DieCode, tuple[Mod, ...]]:
    """Attribute code plus a skill's dice (shown as a modifier when the sheet has the skill)."""
    code = sheet.attribute(attribute)
    mods: list[Mod] = []
    found = sheet.skill(skill) if skill else None
    if found and (found.dice.dice or found.dice.pips):
        code = code + found.dice
        mods.append(Mod(f"{found.name} {found.dice} (in the code)", found.dice.dice, "skill"))
    return code, tuple(mods)


def roll_check(
    code: DieCode,
    mods: Sequence[Mod],
    dice: DiceSource,
    house: HouseRules,
    label: str = "",
) -> Check:
    """Apply the "D" modifiers to the pool (not below 0D), roll, add the flat ones."""
    pool = code
    for mod in mods:
        if mod.unit == "D":
            pool = pool.plus(dice=mod.value)
    roll = roll_code(pool, dice, house, label)
    flat = sum(m.value for m in mods if m.unit == "flat")
    return Check(pool, roll.total + flat, tuple(mods), roll)


def check(
    who: str,
    sheet: Sheet,
    stat: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    skill: str = "",
    penalty_dice: int = 0,
    bonus: int = 0,
    bonus_dice: int = 0,
) -> Rolled:
    """A plain check (``/check``, charm, command, climb): attribute + skill, −penalty D, +bonus."""
    key = stat.strip().lower()
    attribute = key
    if key not in ATTRIBUTES:
        found = sheet.skill(key)
        if found is None:
            sheet.attribute(key)  # raises with the list of attributes
            raise AssertionError("unreachable")
        attribute, skill = found.attribute, found.name
    code, shown = base_code(sheet, attribute, skill)
    mods = list(turn_mods(penalty_dice))
    if bonus_dice:
        mods.append(Mod("bonus dice", bonus_dice, "D"))
    if bonus:
        mods.append(Mod("bonus", bonus))
    result = roll_check(code, mods, dice, house, f"{who} {key}")
    return Rolled(who, key, result.code, result.total, shown + tuple(mods), result.roll, result.roll.dice)


def turn_mods(penalty_dice: int) -> tuple[Mod, ...]:
    return (Mod("multi-action", -penalty_dice, "D"),) if penalty_dice else ()


def pool_roll(code_text: str, dice: DiceSource, house: HouseRules, who: str = "") -> Rolled:
    """`/roll 3D+2`: a pool with the Wild Die under the channel's readings."""
    code = DieCode.parse(code_text)
    roll = roll_code(code, dice, house, who)
    return Rolled(who, str(code), code, roll.total, (), roll, roll.dice)
