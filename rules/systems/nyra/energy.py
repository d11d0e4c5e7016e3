"""The optional energy pool (RULES.md §1 "Energy"; the seed's Claymore: "take the appropriate amount of
energy from his energy bank (In this example, it is 7)").

Off unless the sheet has an energy pool. Each strike spends the weapon's energy cost; a strike the pool
cannot pay is refused.
"""

from __future__ import annotations

from rules.errors import NotAllowed
from rules.systems.nyra.state import NyraCombatant
from rules.systems.nyra.weapons import Weapon


def can_pay(combatant: NyraCombatant, weapon: Weapon) -> bool:
    return combatant.energy is None or combatant.energy >= weapon.energy_cost


def require_energy(combatant: NyraCombatant, weapon: Weapon) -> None:
    if not can_pay(combatant, weapon):
        raise NotAllowed(
            f"{combatant.name} has {combatant.energy} energy left; a strike with the {weapon.name} costs "
            f"{weapon.energy_cost}. Strike with another weapon or end the turn."
        )


def energy_after(combatant: NyraCombatant, weapon: Weapon) -> int | None:
    if combatant.energy is None:
        return None
    return combatant.energy - weapon.energy_cost
