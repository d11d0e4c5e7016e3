"""Weapon damage against armour (seed "Attacking" scaling paragraphs and "Defending" armour paragraphs;
RULES.md §3 "Damage", §0 draw order).

Natural code + scaling dice: melee round-half-up(Physique dice / 2) D, strength-drawn ranged (bows, slings)
round-half-up(Physique dice / 3) D, crossbows none, magic what the GM says. Against armour rating AR:
cutting/piercing: the natural roll alone must exceed AR (tie: defender), then natural + scaling − AR;
blunt: if not, ⌊(natural + scaling) / 2⌋ − AR; ranged: as cutting, then the blunt fallback; no armour:
natural + scaling. Never negative.

Draw order: the natural dice first (one pool with the Wild Die), then the scaling dice (plain d6: the
damage roll's Wild Die is already among the natural dice). Dice a result makes pointless are not drawn: no
scaling after a cut that the armour stopped, nor in a blunt fallback that could not pass the armour even with
every scaling die on 6. Magic (RULES.md silent on armour) follows the cutting rule unless the GM says it
ignores armour. A critical follows the house ``critical_effect``.
"""

from __future__ import annotations

from rules.dice import DiceSource, roll_many
from rules.systems.d6.checks import roll_code
from rules.systems.d6.events import DamageRolled
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Weapon


def half_up(numerator: int, denominator: int) -> int:
    """round-half-up(numerator / denominator) for non-negative integers, exactly."""
    return (2 * numerator + denominator) // (2 * denominator)


def scaling_dice(weapon: Weapon, physique: DieCode, magic: DieCode | None = None) -> DieCode:
    """The wielder's scaling dice for this weapon (pips of Physique do not count: "Physique dice")."""
    if weapon.melee:
        return DieCode(half_up(physique.dice, 2))
    if weapon.kind == "ranged":
        return DieCode(half_up(physique.dice, 3))
    if weapon.kind == "magic":
        return magic or DieCode(0)
    return DieCode(0)  # crossbow: no scaling


def roll_damage(
    attacker: str,
    target: str,
    weapon: Weapon,
    physique: DieCode,
    armour: int,
    dice: DiceSource,
    house: HouseRules,
    *,
    critical: bool = False,
    magic_scaling: DieCode | None = None,
    ignore_armour: bool = False,
) -> DamageRolled:
    natural_code = weapon.damage
    effect = ""
    if critical:
        effect = house.critical_effect
        if effect == "double_natural_dice":
            natural_code = DieCode(weapon.damage.dice * 2, weapon.damage.pips)
    scaling_code = scaling_dice(weapon, physique, magic_scaling)
    natural_roll = roll_code(natural_code, dice, house, f"{attacker} damage")
    natural = natural_roll.total
    drawn = list(natural_roll.dice)
    ar = 0 if ignore_armour else armour

    def scaling() -> int:
        rolled = roll_many(dice, scaling_code.dice, 6, f"{attacker} scaling")
        drawn.extend(rolled)
        return max(0, sum(d.value for d in rolled) + scaling_code.pips)

    scale: int | None = None
    if ar <= 0:
        scale = scaling()
        amount, rule = natural + scale, "no armour: natural + scaling"
    elif natural > ar:
        scale = scaling()
        amount, rule = natural + scale - ar, f"natural {natural} beats AR {ar}: natural + scaling − AR"
    elif weapon.kind in ("blunt", "ranged", "crossbow"):
        best = natural + 6 * scaling_code.dice + scaling_code.pips
        name = "blunt" if weapon.kind == "blunt" else "projectile as blunt"
        if best // 2 <= ar:
            amount = 0
            rule = f"{name}: natural {natural} ≤ AR {ar}, ⌊(natural + scaling)/2⌋ cannot pass it (scaling not drawn)"
        else:
            scale = scaling()
            amount = max(0, (natural + scale) // 2 - ar)
            rule = f"{name}: natural {natural} ≤ AR {ar}, ⌊(natural + scaling)/2⌋ − AR"
    else:
        amount, rule = 0, f"natural {natural} does not exceed AR {ar}: no damage (scaling not drawn)"
    if critical and effect == "double_damage":
        amount *= 2
    return DamageRolled(
        attacker,
        target,
        weapon.name,
        weapon.kind,
        natural_code,
        natural,
        scaling_code,
        scale,
        ar,
        rule,
        max(0, amount),
        critical,
        effect,
        natural_roll,
        tuple(drawn),
    )
