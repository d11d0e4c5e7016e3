"""Delay (RULES.md §1 "Delay"; the seed: "Because Duelist 1 has 6 AGI, that means they have 6 delay
available to spend each turn and the delay for the Short Sword is 3").

Each turn the pool is reset to AGI. A strike costs the weapon's Delay and is allowed only while the pool
covers it; other actions (moving) cost what the GM sets (house ``move_cost``, or a GM's ``cost``). The pool
never goes negative. Whether a turn ends by itself when little is left is the house rule ``auto_end_turn``:
``actions`` (neither a strike nor a move at ``move_cost`` is affordable: "The turn ends when the player ends it
or nothing affordable is left"), ``strikes`` (no strike is affordable any more), ``empty`` (the pool is 0) or
``never``. Under ``actions`` with a free move, the turn ends by itself only once the pool is 0, so leftover
delay after the last affordable strike can still go to a move.
"""

from __future__ import annotations

from rules.errors import InvalidInput, NotAllowed
from rules.systems.nyra.energy import can_pay
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.state import NyraCombat, NyraCombatant
from rules.systems.nyra.weapons import Weapon

MAX_ACTION_COST = 100


def turn_pool(combatant: NyraCombatant) -> int:
    """The delay pool at the start of a turn: AGI."""
    return combatant.agi


def require_delay(combatant: NyraCombatant, cost: int, what: str) -> None:
    if cost < 0:
        raise InvalidInput("A delay cost cannot be negative.")
    if cost > MAX_ACTION_COST:
        raise InvalidInput(f"A delay cost is at most {MAX_ACTION_COST}.")
    if combatant.delay_pool < cost:
        raise NotAllowed(
            f"{combatant.name} has {combatant.delay_pool} delay left; {what} costs {cost}. "
            "Choose something cheaper or end the turn."
        )


def can_strike(combatant: NyraCombatant, weapon: Weapon) -> bool:
    return combatant.delay_pool >= weapon.delay and can_pay(combatant, weapon)


def affordable_strikes(state: NyraCombat, combatant: NyraCombatant) -> tuple[Weapon, ...]:
    """The weapons this combatant can still strike with this turn."""
    if state.volley_ended:
        return ()
    return tuple(w for w in combatant.sheet.weapons if can_strike(combatant, w))


def turn_is_spent(state: NyraCombat, combatant: NyraCombatant, house: HouseRules) -> str | None:
    """Why the turn ends by itself now (None: it goes on), by the ``auto_end_turn`` house rule."""
    if house.auto_end_turn == "never":
        return None
    if state.volley_ended:
        return "defense ended the volley"
    if combatant.delay_pool <= 0:
        return "delay spent"
    if house.auto_end_turn == "strikes" and not affordable_strikes(state, combatant):
        return "nothing affordable"
    if (
        house.auto_end_turn == "actions"
        and not affordable_strikes(state, combatant)
        and combatant.delay_pool < house.move_cost
    ):
        return "nothing affordable"
    return None
