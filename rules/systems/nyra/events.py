"""Nyra events: frozen records of each step of a resolution, carrying their dice and every modifier, so a
renderer can show each die, each modifier and the house-rule reading that was applied (RULES.md §0).

Every event stores combatant ids (``combatant``, ``attacker``, ``target``) and, for the log, names.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import Die
from rules.events import Event
from rules.systems.nyra.checks import CheckResult


@dataclass(frozen=True, slots=True)
class Modifier:
    """One term added to a damage roll: where it comes from, its value, and how it was worked out."""

    source: str
    value: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class OrderEntry:
    combatant: str
    name: str
    sequence: int
    agi: int
    rolloff: tuple[int, ...]


@dataclass(frozen=True)
class SequenceRolled(Event):
    """A sheet without Sequence rolled it on a d10."""

    combatant: str
    sequence: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class OrderSet(Event):
    """The order of play: Sequence, then AGI, then the kept d10 roll-offs (drawn in ``dice``)."""

    order: tuple[OrderEntry, ...]
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CombatantJoined(Event):
    combatant: str
    name: str
    position: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class PhaseStarted(Event):
    phase: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TurnStarted(Event):
    """The delay pool was reset to AGI; bleeding follows as ``LocationDamaged`` events."""

    combatant: str
    name: str
    phase: int
    turn_number: int
    delay_pool: int
    bleeding: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TurnEnded(Event):
    """``reason``: ``player``, ``gm``, ``nothing affordable``, ``delay spent``, ``defense ended the volley``,
    ``dead``."""

    combatant: str
    name: str
    reason: str
    delay_lost: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class StanceSet(Event):
    combatant: str
    stance: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DelaySpent(Event):
    """A move or other action paid from the delay pool (the GM set the cost)."""

    combatant: str
    action: str
    cost: int
    delay_before: int
    delay_after: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class StrikeDeclared(Event):
    """What the attacker declared and paid: weapon, damage type, wild or aimed, delay and energy."""

    attacker: str
    target: str
    weapon: str
    damage_type: str
    weapon_damage: str
    mode: str
    aimed_at: str | None
    difficulty: str
    delay_cost: int
    delay_before: int
    delay_after: int
    energy_cost: int
    energy_before: int | None
    energy_after: int | None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ContestRolled(Event):
    """One round of the competitive check (re-rolls on a tie make more rounds). ``reaction`` is None when
    the defender has no Dodge or Defense, or when the attack already failed (its die is not drawn)."""

    attacker: str
    target: str
    round: int
    attack: CheckResult
    reaction_skill: str | None
    stance_rule: str
    reaction: CheckResult | None
    result: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class StrikeResolved(Event):
    """``result``: hit, miss or defended. ``tie_rule``: the house reading used when margins were equal."""

    attacker: str
    target: str
    result: str
    reason: str
    critical: bool
    tie_rule: str | None
    rounds: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class WeaponFumbled(Event):
    """A natural 10 on a strike: a miss; the weapon loses durability when tracked; a GM penalty is due."""

    attacker: str
    weapon: str
    tracked: bool
    loss: int
    durability_before: int | None
    durability_after: int | None
    penalty_due: bool = True
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class VolleyEnded(Event):
    """A successful Defense ended the attacker's string of strikes; the rest of its delay is lost."""

    attacker: str
    target: str
    delay_lost: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LocationRolled(Event):
    target: str
    table: str
    roll: int
    location: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageRolled(Event):
    """Damage = rolled dice (+ the critical bonus) + each modifier − armour, never below 0."""

    attacker: str
    target: str
    weapon: str
    damage_type: str
    location: str
    weapon_damage: str
    rolled_total: int
    critical: bool
    critical_rule: str
    critical_bonus: int
    modifiers: tuple[Modifier, ...]
    gross: int
    armour: tuple[tuple[str, int], ...]
    armour_total: int
    dealt: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LocationDamaged(Event):
    """Damage added to one location (``source``: strike, bleeding, gm) and the wound state it left."""

    combatant: str
    location: str
    source: str
    amount: int
    damage_before: int
    damage_after: int
    state_before: str
    state_after: str
    bleeding_after: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LocationHealed(Event):
    combatant: str
    location: str
    amount: int
    damage_before: int
    damage_after: int
    state_before: str
    state_after: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CombatantDied(Event):
    """A head or chest went past critical."""

    combatant: str
    name: str
    location: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class FieldSet(Event):
    """``/gm set`` on a combatant: the field, its value before and after."""

    combatant: str
    field: str
    before: str
    after: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CheckMade(Event):
    """A ``/check`` outside a strike."""

    character: str
    check: CheckResult
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class SheetRefreshed(Event):
    """The combatant's sheet was edited since it joined and now fights with the new one (RULES.md §4: at the
    start of its next turn). ``changes`` says what changed, one phrase each; damage, delay, energy spent,
    stance and Sequence are encounter state and stay."""

    combatant: str
    name: str
    changes: tuple[str, ...]
    dice: tuple[Die, ...] = ()
