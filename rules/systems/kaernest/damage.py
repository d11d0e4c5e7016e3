"""Determining damage (seed "Determining Damage", "Weapons", "Armour"; RULES.md §2 "Damage").

⌊Muscle/2⌋, capped at the weapon's damage for that type and grip, + that weapon damage + the crit d12
+ at most one enchantment bonus + circumstance modifiers. Armour subtracts its Physical (or Energy)
rating; arcane attacks are not reduced (the arcane rating adds to defense instead). A hit by more than 10
ignores armour; by more than 20 it also adds 1d12. Dice: the crit d12, then the vital d12.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import DiceSource, Die
from rules.systems.kaernest.roll import Modifier, sum_of
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import Element
from rules.systems.kaernest.tables import Armour, DamageType, Grip, Weapon

UNARMOURED_MARGIN = 10
VITAL_MARGIN = 20


@dataclass(frozen=True, slots=True)
class DamageRoll:
    terms: tuple[Modifier, ...]
    armour_name: str | None
    armour: int
    armour_ignored: bool
    vital: bool
    dice: tuple[Die, ...]

    @property
    def raw(self) -> int:
        return sum_of(self.terms)

    @property
    def total(self) -> int:
        """What the defender takes: never below 0."""
        return max(0, self.raw - self.armour)


def muscle_bonus(muscle: int, weapon_damage: int) -> int:
    """Half Muscle, rounded down, never more than the weapon's damage as it is being used."""
    return min(muscle // 2, weapon_damage)


def roll_damage(
    attacker: Sheet,
    weapon: Weapon,
    damage_type: DamageType,
    grip: Grip,
    *,
    margin: int,
    critical: bool,
    element: Element,
    armour: Armour | None,
    dice: DiceSource,
    enchantment: int = 0,
    circumstance: int = 0,
) -> DamageRoll:
    """The damage of one hit that made its target by ``margin``."""
    base = weapon.damage(damage_type, grip)
    muscle = muscle_bonus(attacker.muscle, base) if weapon.muscle_cap else attacker.muscle // 2
    terms = [
        Modifier(
            f"Muscle {attacker.muscle}/2" + (" (capped)" if muscle < attacker.muscle // 2 else ""), muscle
        )
    ]
    terms.append(Modifier(f"{weapon.name} {damage_type} {grip}h", base))
    drawn: list[Die] = []
    if critical:
        die = dice.roll(12, "critical")
        drawn.append(die)
        terms.append(Modifier("critical d12", die.value))
    ignored = margin > UNARMOURED_MARGIN
    vital = margin > VITAL_MARGIN
    if vital:
        die = dice.roll(12, "vital hit")
        drawn.append(die)
        terms.append(Modifier("vital d12", die.value))
    if enchantment:
        terms.append(Modifier("enchantment", enchantment))
    if circumstance:
        terms.append(Modifier("circumstance", circumstance))
    rating = 0
    if armour is not None and not ignored and element != "arcane":
        rating = armour.energy if element == "energy" else armour.physical
    return DamageRoll(tuple(terms), armour.name if armour else None, rating, ignored, vital, tuple(drawn))
