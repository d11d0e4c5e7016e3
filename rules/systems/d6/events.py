"""D6 events (RULES.md §0: every resolution shows each die, each modifier and the house-rule reading).

Each event is a frozen ``rules.events.Event``; ``dice`` (last) holds every die drawn for it in draw order.
Rolls carry their ``PoolRoll`` (which records the explode and wild-one readings) and their ``mods``.
HP changes only through ``DamageApplied`` and ``HealApplied``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.dice import Die
from rules.events import Event
from rules.systems.d6.pool import DieCode, PoolRoll
from rules.systems.d6.state import PlannedAction


@dataclass(frozen=True, slots=True)
class Mod:
    """One modifier: ``unit`` "D" (dice added/removed from the pool), "flat" (added to the total), or
    "skill" (a skill's dice already included in the rolled code, shown for the record)."""

    label: str
    value: int
    unit: Literal["D", "flat", "skill"] = "flat"

    def __str__(self) -> str:
        sign = "+" if self.value >= 0 else "−"
        return f"{sign}{abs(self.value)}{'D' if self.unit != 'flat' else ''} {self.label}"


@dataclass(frozen=True)
class Rolled(Event):
    """A pool check: ``code`` after dice modifiers, ``total`` after flat modifiers."""

    who: str
    what: str
    code: DieCode
    total: int
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeRolled(Event):
    who: str
    code: DieCode
    total: int
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeTie(Event):
    """A tie broken by ``rule`` (defending side, distance, perception, roll-off), never silently."""

    ids: tuple[str, ...]
    total: int
    rule: str
    result: tuple[str, ...]
    detail: str = ""
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeOrder(Event):
    round: int
    order: tuple[str, ...]
    totals: tuple[int, ...]
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class InitiativeRerolled(Event):
    who: str
    old: int | None
    new: int
    from_round: int
    roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ActionDeclared(Event):
    who: str
    action: PlannedAction
    count: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TurnLocked(Event):
    """The plan locked in: ``counted`` actions count, ``penalty_dice`` is taken from every roll."""

    who: str
    kinds: tuple[str, ...]
    free_declared: int
    free_allowed: int
    counted: int
    penalty_dice: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class FreeActionTaken(Event):
    """A named free action of the plan (a shout): nothing to roll; the plan's ``TurnLocked`` says whether
    free actions beyond the allowance counted."""

    who: str
    what: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TurnStarted(Event):
    who: str
    round: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TurnEnded(Event):
    who: str
    round: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class SaveScore(Event):
    """How a save score was reached: ``source`` (natural, block, parry, dodge, pinned, last gasp, ...)."""

    who: str
    value: int
    source: str
    parts: tuple[Mod, ...] = ()
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DefenseTaken(Event):
    who: str
    stance: str
    total: bool
    save: int
    limit: int
    code: DieCode | None = None
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DefenseOverwhelmed(Event):
    """A parry overwhelmed (a further attacker) or backstabbed: save 8 until the defender's next turn."""

    who: str
    by: str
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class AttackRolled(Event):
    """A to-hit roll against the save. The critical's terms: ``crit_threshold`` = ⌈``save`` ×
    ``crit_percent`` / 100⌉, the percent being stage ``crit_stage`` of column ``crit_column``, the stage the
    clamped sum of ``crit_parts``; a hit whose ``total`` reaches the threshold is ``critical``."""

    attacker: str
    target: str
    weapon: str
    code: DieCode
    total: int
    save: int
    save_source: str
    hit: bool
    shield_hit: bool = False
    called: bool = False
    critical: bool = False
    crit_stage: int = 0
    crit_percent: float = 0.0
    crit_threshold: int = 0
    mods: tuple[Mod, ...] = ()
    save_parts: tuple[Mod, ...] = ()
    crit_parts: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    flank: bool = False  # the attacker's flank/backstab flag (RULES.md §4)
    crit_column: int = 200  # the critical table's column: 200 %, or 300 % for two-handed and ranged
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class ShieldHit(Event):
    """The roll fell in the block band: the shield takes the hit (a damage check for the GM)."""

    who: str
    by: str
    roll_total: int
    band_low: int
    band_high: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageRolled(Event):
    """Weapon damage against armour (RULES.md §3 "Damage"): ``rule`` names the branch used."""

    attacker: str
    target: str
    weapon: str
    weapon_kind: str
    natural_code: DieCode
    natural: int
    scaling_code: DieCode
    scaling: int | None
    armour: int
    rule: str
    amount: int
    critical: bool = False
    critical_effect: str = ""
    natural_roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DamageApplied(Event):
    target: str
    amount: int
    hp_before: int
    hp_after: int
    source: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class HealApplied(Event):
    """HP restored: ``amount`` offered (with stored healing), ``applied`` after the max-HP cap."""

    target: str
    amount: int
    applied: int
    hp_before: int
    hp_after: int
    source: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LastGaspEntered(Event):
    who: str
    hp: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class LastGaspLeft(Event):
    who: str
    hp: int
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Stabilised(Event):
    who: str
    hp: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class OutOfFight(Event):
    """An NPC at 0 HP or less (no Last Gasp for it under the house rules)."""

    who: str
    hp: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Died(Event):
    who: str
    hp: int
    limit: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DeathSave(Event):
    """A Death Save: ``band`` is the table row, ``effect`` what it did, ``effect_total`` its dice's sum."""

    who: str
    stat: str
    turn: int
    code: DieCode
    total: int
    band: str
    effect: str
    effect_total: int = 0
    stored_healing: int = 0
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    effect_roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DeathSaveSkipped(Event):
    """The GM let ``who``'s owed Death Save go; Last Gasp turn ``turn`` still counts toward the malus."""

    who: str
    turn: int
    by: str = "GM"
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class DeathSaveOwed(Event):
    """A Last Gasp turn began: ``who`` owes its Death Save, at −``malus``D (Last Gasp turn ``turn``)."""

    who: str
    turn: int
    malus: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class CarriedIn(Event):
    """A PC entered this encounter as instance ``instance`` left it (RULES.md §4): HP, and its Last Gasp
    turn count and stored healing when it is still down (None when up)."""

    who: str
    hp: int
    hp_max: int
    last_gasp_round: int | None
    stored_healing: int | None
    stabilised: bool
    dead: bool
    instance: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class HealRolled(Event):
    healer: str
    target: str
    code: DieCode
    total: int
    heal_dice: int
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    heal_roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class HealPoolChanged(Event):
    before: int
    after: int
    uses: int
    remaining: int
    levels: int
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class GrappleRolled(Event):
    """A start or contest: both rolls, the shift toward ``actor`` and the counter after (toward actor)."""

    move: str
    actor: str
    other: str
    actor_total: int
    other_total: int
    result: str
    shift: int
    counter: int
    actor_mods: tuple[Mod, ...] = ()
    other_mods: tuple[Mod, ...] = ()
    actor_roll: PoolRoll | None = None
    other_roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class GrappleThrown(Event):
    thrower: str
    thrown: str
    storeys: int
    into: str
    dice_count: int
    capped: bool
    rolled: int
    amount: int
    roll: PoolRoll | None = None  # the damage pool, with its Wild Die
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class GrapplePinned(Event):
    pinner: str
    pinned: str
    break_at: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class PinBroken(Event):
    pinner: str
    pinned: str
    damage: int
    needed: int
    counter: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class TakenDown(Event):
    leader: str
    target: str
    mode: str
    rolled: int
    modifier: int
    amount: int
    counter: int
    roll: PoolRoll | None = None  # the d6 pool with its Wild Die (None for d66 pairs: see ``dice``)
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class GrappleEnded(Event):
    a: str
    b: str
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class GrapplePenaltyOwed(Event):
    """Attacked normally while ahead: ``penalty`` on ``who``'s next grapple roll in that pair."""

    who: str
    other: str
    penalty: int
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class FreeAttackOwed(Event):
    """``attacker`` gets a free attack on ``target`` (leaving melee without disengaging). From
    ``movement.leave_melee`` (a planned move with ``leave_melee``) the attack's own events follow at once."""

    attacker: str
    target: str
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Moved(Event):
    who: str
    distance: int
    free: bool
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Disengaged(Event):
    who: str
    enemy: str
    own_total: int
    enemy_total: int
    success: bool
    own_roll: PoolRoll | None = None
    enemy_roll: PoolRoll | None = None
    mods: tuple[Mod, ...] = ()
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class StealthChecked(Event):
    """One stealth roll against each opponent's Acumen: ``against`` holds (id, acumen total, hidden)."""

    who: str
    code: DieCode
    total: int
    against: tuple[tuple[str, int, bool], ...]
    mods: tuple[Mod, ...] = ()
    roll: PoolRoll | None = None
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Revealed(Event):
    who: str
    reason: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class StealthCheckDue(Event):
    """A hidden combatant moved: a new stealth check is due (``/stealth``)."""

    who: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class FieldSet(Event):
    """A GM correction (`/gm set`): ``field`` of ``who`` went from ``before`` to ``after`` (as shown)."""

    who: str
    field: str
    before: str
    after: str
    dice: tuple[Die, ...] = ()
