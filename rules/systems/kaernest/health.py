"""Damage taken and wounds (seed "Damage", "Wounds"; RULES.md §2 "Health").

Damage accumulates. More than 4×Health: unconscious; more than 5×Health: dying. A single hit over
1.5×Health after armour is a wound: −1 (house ``wound_penalty``) to every later roll's target, stacking.
A called shot's wound records its location and a GM-written effect, and by the seed gives that effect
*instead of* the −1 (house ``called_wound_penalty`` adds the −1 too).
A combatant that goes down loses its action under way and its place on the timeline; it rolls initiative
again when it is back up (seed: "unless someone gets knocked unconscious").
"""

from __future__ import annotations

import dataclasses

from rules.errors import InvalidInput
from rules.events import Event
from rules.systems.kaernest.events import ActionCancelled, DamageHealed, DamageTaken
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import Combatant, Wound

MAX_DAMAGE = 10_000


def is_wound(amount: int, health: int) -> bool:
    """More than 1.5×Health, in whole numbers: 2×amount > 3×health."""
    return 2 * amount > 3 * health


def knocked_out(combatant: Combatant) -> tuple[Combatant, list[Event]]:
    """Off the timeline: the action under way is lost; initiative is rolled again on waking."""
    events: list[Event] = []
    if combatant.pending is not None:
        events.append(
            ActionCancelled(
                combatant.id, combatant.pending.kind, f"{combatant.name} is {combatant.condition}"
            )
        )
    out = dataclasses.replace(combatant, pending=None, ready_tick=None, initiative=None, held_defensive=False)
    return out, events


def take_damage(
    combatant: Combatant,
    amount: int,
    tick: int,
    house: HouseRules,
    *,
    location: str | None = None,
    source: str = "attack",
) -> tuple[Combatant, list[Event]]:
    """Apply one hit of ``amount`` (after armour). ``location`` is set for a called shot."""
    if amount < 0 or amount > MAX_DAMAGE:
        raise InvalidInput(f"Damage must be between 0 and {MAX_DAMAGE}, not {amount}.")
    before = combatant.condition
    wound = None
    if is_wound(amount, combatant.sheet.health):
        called = location is not None
        penalty = house.wound_penalty if (not called or house.called_wound_penalty) else 0
        wound = Wound(tick=tick, damage=amount, penalty=penalty, location=location)
    hurt = dataclasses.replace(
        combatant, damage=combatant.damage + amount, wounds=combatant.wounds + ((wound,) if wound else ())
    )
    events: list[Event] = [
        DamageTaken(hurt.id, amount, hurt.damage, hurt.sheet.health, before, hurt.condition, wound, source)
    ]
    if before == "up" and not hurt.up:
        hurt, cancelled = knocked_out(hurt)
        events.extend(cancelled)
    return hurt, events


def heal(combatant: Combatant, amount: int) -> tuple[Combatant, list[Event]]:
    """GM healing: damage goes down (never below 0); conditions follow the new total."""
    if amount < 0 or amount > MAX_DAMAGE:
        raise InvalidInput(f"Healing must be between 0 and {MAX_DAMAGE}, not {amount}.")
    before = combatant.condition
    healed = dataclasses.replace(combatant, damage=max(0, combatant.damage - amount))
    return healed, [DamageHealed(healed.id, amount, healed.damage, before, healed.condition)]
