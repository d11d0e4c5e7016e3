"""Kaernest events (RULES.md §0: every resolution shows each die and each modifier).

Each event is frozen and carries the dice that decided it (``dice`` last, in draw order) and every term of
its targets and sums as named ``Modifier``s. Times are given as minute and segment, as players say them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import Die
from rules.events import Event
from rules.systems.kaernest.roll import Modifier
from rules.systems.kaernest.state import Wound


@dataclass(frozen=True)
class CombatantAdded(Event):
    combatant: str
    name: str
    side: str
    npc: bool
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CombatantRemoved(Event):
    combatant: str
    name: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeRolled(Event):
    """``roll`` is the d12 (or the NPCs' fixed 6, ``fixed``); ``modifiers`` Instinct, aptitudes, Luck."""

    combatant: str
    roll: int
    fixed: bool
    modifiers: tuple[Modifier, ...]
    uncapped: int
    initiative: int
    minute: int
    segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeTied(Event):
    """RULES.md §4: combatants on the same initiative, in the order they act: higher Instinct first, then a
    d12 roll-off (``rolloffs``, kept for the whole fight; more rounds while still tied)."""

    initiative: int
    combatants: tuple[str, ...]
    instincts: tuple[int, ...]
    rolloffs: tuple[tuple[int, ...], ...]
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LuckSpent(Event):
    """RULES.md §4: Luck added to an initiative roll is used up for this fight (``/gm set luck`` restores)."""

    combatant: str
    luck: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LuckPledged(Event):
    """Luck will be added to the combatant's next initiative roll (``pledged`` False: the wish withdrawn)."""

    combatant: str
    luck: int
    pledged: bool = True
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeSet(Event):
    """A GM-set initiative (``/gm set``)."""

    combatant: str
    initiative: int
    minute: int
    segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ClockAdvanced(Event):
    from_minute: int
    from_segment: int
    minute: int
    segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ActionDeclared(Event):
    """An action under way: it resolves at (``lands_minute``, ``lands_segment``) = segment − speed."""

    combatant: str
    action: str
    speed: int
    speed_modifiers: tuple[Modifier, ...]
    minute: int
    segment: int
    lands_minute: int
    lands_segment: int
    target: str | None = None
    weapon: str | None = None
    grip: int | None = None
    damage_type: str | None = None
    element: str = "physical"
    called_location: str | None = None
    description: str = ""
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Waited(Event):
    """The combatant ended its turn without acting: it declares one segment later."""

    combatant: str
    minute: int
    segment: int
    next_minute: int
    next_segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class PostureChanged(Event):
    combatant: str
    previous: str
    posture: str
    reason: str = ""
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ActiveDefense:
    """The defender's 2d12 against Reflex + skill − earlier defenses (− wounds): not an event by itself,
    it is part of the attack it answers."""

    modifiers: tuple[Modifier, ...]
    target: int
    total: int
    margin: int
    success: bool


@dataclass(frozen=True)
class ActiveDefenseRolled(Event):
    """RULES.md §4: an active defense is rolled before the attack's own dice. ``success`` interrupts the
    attack (an ``AttackInterrupted`` follows and the attack's dice are not drawn); a failure leaves the
    passive defense against the attack (an ``AttackResolved`` follows). ``minute``/``segment``: where the
    attack lands."""

    defender: str
    attacker: str
    minute: int
    segment: int
    modifiers: tuple[Modifier, ...]
    target: int
    total: int
    margin: int
    success: bool
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class AttackResolved(Event):
    """An attack landing. ``modifiers`` are the terms of the final target (the defense as a negative term);
    ``defense_posture`` the posture that applied (``active`` falls back to passive on a failed roll);
    ``interrupted``: a successful active defense stopped it (no hit, it restarts). Dice in draw order:
    the attack's 2d12, then the aggressive d12 or the active defense's 2d12."""

    attacker: str
    defender: str
    weapon: str
    grip: int
    damage_type: str
    element: str
    called_location: str | None
    minute: int
    segment: int
    defense_posture: str
    defense: int
    modifiers: tuple[Modifier, ...]
    target: int
    total: int
    margin: int
    hit: bool
    critical: bool
    critical_failure: bool
    interrupted: bool = False
    active_defense: ActiveDefense | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class AttackInterrupted(Event):
    """RULES.md §2: the interrupted attack restarts on the next segment with speed + 1."""

    attacker: str
    defender: str
    restart_minute: int
    restart_segment: int
    speed: int
    speed_modifiers: tuple[Modifier, ...]
    lands_minute: int
    lands_segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageRolled(Event):
    """The damage of a hit: ``modifiers`` are its terms (capped Muscle, weapon, crit d12, vital d12,
    enchantment, circumstance); ``armour`` what the armour took off (0 when ignored or arcane)."""

    attacker: str
    defender: str
    modifiers: tuple[Modifier, ...]
    raw: int
    armour_name: str | None
    armour: int
    armour_ignored: bool
    vital: bool
    total: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageTaken(Event):
    """Damage applied to a combatant: its new total, condition and any wound it caused."""

    combatant: str
    amount: int
    total_damage: int
    health: int
    condition_before: str
    condition_after: str
    wound: Wound | None = None
    source: str = "attack"
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageHealed(Event):
    combatant: str
    amount: int
    total_damage: int
    condition_before: str
    condition_after: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ActionResolved(Event):
    """A non-attack action landing (the GM narrates its effect)."""

    combatant: str
    action: str
    description: str
    minute: int
    segment: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ActionCancelled(Event):
    combatant: str
    action: str
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class WoundEffectSet(Event):
    combatant: str
    wound: int
    location: str | None
    effect: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CheckRolled(Event):
    """``/check``: 2d12 against attribute + skill + bonus − wounds."""

    character: str
    stat: str
    skill: str | None
    modifiers: tuple[Modifier, ...]
    target: int
    total: int
    margin: int
    success: bool
    critical: bool
    critical_failure: bool
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class SegmentSet(Event):
    """``/gm set segment``: the combatant next declares at (``minute``, ``segment``); an action under way
    (``action``) now lands there."""

    combatant: str
    minute: int
    segment: int
    action: str | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageSet(Event):
    """``/gm set damage``: the accumulated damage corrected to ``total_damage`` (no wound is made)."""

    combatant: str
    previous: int
    total_damage: int
    condition_before: str
    condition_after: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CombatantFieldSet(Event):
    """``/gm set`` of a plain field (Luck, side): its value before and after, as text."""

    combatant: str
    field: str
    previous: str
    value: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ConditionChanged(Event):
    """``/gm condition``: a GM-set condition without a Kaernest rule effect added or removed."""

    combatant: str
    condition: str
    added: bool
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class SheetRefreshed(Event):
    """The combatant's sheet was edited since it joined and now fights with the new one (RULES.md §4: at its
    next turn). ``changes`` says what changed, one phrase each."""

    combatant: str
    changes: tuple[str, ...]
    dice: tuple[Die, ...] = ()
