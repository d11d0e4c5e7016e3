"""Crafting (seed "Base Weapon Damage": the Nodachi → Carnifex example; RULES.md §1 "Crafting").

[Base Flat Damage] = [Listed Flat Damage] + [Material Contribution] + [Roll-Under Bonus] + [Hone].
A weapon carries one Hone: a new Hone replaces the old one. The Carnifex is a Nodachi (P 2d10+4, S 3d10+4)
of Oscite (+3), a smith's roll-under bonus of +5 and Hone III (+3): 2d10+15 / 3d10+15 (the seed's
"3d10+18" is a typo; its own sum is 4+3+5+3 = 15).
"""

from __future__ import annotations

import dataclasses

from rules.errors import InvalidInput
from rules.systems.nyra.weapons import Crafting, DamageType, Hone, Material, Weapon


def base_flat_damage(listed_flat: int, material: int, roll_under_bonus: int, hone: int) -> int:
    """The seed's formula, term by term."""
    return listed_flat + material + roll_under_bonus + hone


def craft(
    weapon: Weapon,
    *,
    name: str | None = None,
    material: Material | None = None,
    smith_bonus: int = 0,
    hone: Hone | None = None,
    traits: tuple[str, ...] | None = None,
) -> Weapon:
    """A new weapon made from a listed one. Crafting an already crafted weapon keeps its listed damage and
    replaces the crafting (a smith reworks the whole piece)."""
    if smith_bonus < 0:
        raise InvalidInput("A smith's roll-under bonus cannot be negative.")
    return dataclasses.replace(
        weapon,
        name=name or weapon.name,
        crafting=Crafting(material, smith_bonus, hone),
        traits=weapon.traits if traits is None else tuple(traits),
        based_on=weapon.based_on or weapon.name,
    )


def apply_hone(weapon: Weapon, hone: Hone) -> Weapon:
    """Affix a Hone; any Hone already on the weapon is replaced, not stacked."""
    crafting = weapon.crafting or Crafting()
    return dataclasses.replace(weapon, crafting=dataclasses.replace(crafting, hone=hone))


def flat_breakdown(weapon: Weapon, damage_type: DamageType) -> dict[str, int]:
    """Each term of the Base Flat Damage for a type (for a sheet or a crafting report)."""
    listed = weapon.listed.get(damage_type)
    crafting = weapon.crafting or Crafting()
    return {
        "listed": listed.flat if listed else 0,
        "material": crafting.material.for_type(damage_type) if crafting.material else 0,
        "roll_under": crafting.smith_bonus,
        "hone": crafting.hone.bonus if crafting.hone else 0,
    }
