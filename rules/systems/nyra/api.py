"""What the Discord layer calls for Nyra (COMMANDS.md), one thin function per command; every combat
operation has the shape ``op(state, args, dice, house) -> Outcome(new_state, events)`` and never mutates its
input. Sheets: ``validate_sheet`` / ``set_field`` / ``fields`` and the weapon/armour helpers.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import DiceSource
from rules.errors import InvalidInput
from rules.events import Outcome
from rules.systems.nyra import actions, sequence, turns
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.actions import GM_FIELDS, ActionArgs, GmDamageArgs, GmHealArgs, GmSetArgs
from rules.systems.nyra.checks import Difficulty, roll_check
from rules.systems.nyra.creatures import creature, load_creatures
from rules.systems.nyra.events import CheckMade
from rules.systems.nyra.house import HouseRules, describe_rules, rule_names, set_rule
from rules.systems.nyra.sheet import (
    NyraSheet,
    add_weapon,
    fields,
    new_sheet,
    remove_armour,
    remove_weapon,
    roll_sequence,
    set_field,
    validate_sheet,
    wear_armour,
)
from rules.systems.nyra.state import STANCES, NyraCombat, NyraCombatant
from rules.systems.nyra.strike import StrikeArgs
from rules.systems.nyra.tables import load_tables
from rules.systems.nyra.weapons import STATS, DamageType

__all__ = [
    "ActionArgs",
    "AddArgs",
    "CheckArgs",
    "EndTurnArgs",
    "GmDamageArgs",
    "GmHealArgs",
    "GmSetArgs",
    "HouseRules",
    "NyraCombat",
    "NyraCombatant",
    "NyraSheet",
    "StanceArgs",
    "StrikeArgs",
    "add_combatant",
    "add_weapon",
    "begin",
    "check",
    "creature",
    "creature_names",
    "damage_types",
    "describe_rules",
    "end_turn",
    "fields",
    "gm_damage",
    "gm_fields",
    "gm_heal",
    "gm_set",
    "load_state",
    "locations",
    "move",
    "new_sheet",
    "remove_armour",
    "remove_weapon",
    "roll_sequence",
    "rule_names",
    "set_field",
    "set_rule",
    "set_stance",
    "start_turn",
    "strike",
    "validate_sheet",
    "wear_armour",
]


@dataclass(frozen=True, slots=True)
class AddArgs:
    """``/encounter join`` / ``/encounter add``: a combatant ``id`` (unique in the encounter) from a sheet."""

    id: str
    sheet: NyraSheet
    name: str | None = None
    side: str = "party"


@dataclass(frozen=True, slots=True)
class EndTurnArgs:
    actor: str
    by_gm: bool = False


@dataclass(frozen=True, slots=True)
class StanceArgs:
    actor: str
    stance: str


@dataclass(frozen=True, slots=True)
class CheckArgs:
    """``/check``: a skill or stat name, a difficulty (easy, normal, difficult, impossible, critical)."""

    stat: str
    difficulty: str = "normal"
    bonus: int = 0


# --- encounter ---------------------------------------------------------------------------------------------
def new_combat() -> NyraCombat:
    return NyraCombat()


def load_state(raw: dict) -> NyraCombat:
    return NyraCombat.from_dict(raw)


def add_combatant(
    state: NyraCombat, args: AddArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    combatant = NyraCombatant.from_sheet(args.id, args.sheet, name=args.name, side=args.side)
    return sequence.add_combatant(state, combatant, dice, house)


def begin(state: NyraCombat, args: None, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """``/encounter begin``: Sequence order (rolling missing Sequences and roll-offs), phase 1, first turn."""
    return sequence.begin(state, dice, house)


def start_turn(state: NyraCombat, args: None, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """Delay reset and bleeding for the combatant whose turn it is (begin and end_turn already do this)."""
    return turns.start_turn(state, dice, house)


def end_turn(
    state: NyraCombat, args: EndTurnArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """``/turn end`` or ``/gm next``; starts the next turn."""
    return turns.end_turn(state, args.actor, dice, house, reason="gm" if args.by_gm else "player")


def strike(state: NyraCombat, args: StrikeArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """``/attack``: a wild strike, or an aimed one with ``aim``."""
    return strikes.strike(state, args, dice, house)


def set_stance(
    state: NyraCombat, args: StanceArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """``/defend``: dodge, defense or auto."""
    return strikes.set_stance(state, args.actor, args.stance, dice, house)


def move(state: NyraCombat, args: ActionArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """``/move`` or another action at a GM-set delay ``cost``."""
    return actions.other_action(state, args, dice, house)


def gm_damage(
    state: NyraCombat, args: GmDamageArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    return actions.gm_damage(state, args, dice, house)


def gm_heal(state: NyraCombat, args: GmHealArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    return actions.gm_heal(state, args, dice, house)


def gm_set(state: NyraCombat, args: GmSetArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """``/gm set``: sequence, delay, energy, side, stance, ``<location> damage``, ``<weapon> durability``."""
    return actions.gm_set(state, args, dice, house)


def gm_fields() -> tuple[str, ...]:
    return GM_FIELDS


# --- /check ---------------------------------------------------------------------------------------------------
def check(sheet: NyraSheet, args: CheckArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraSheet]:
    """A d10 check against a skill (or a stat) at a difficulty; the sheet comes back unchanged."""
    if not -20 <= args.bonus <= 20:
        raise InvalidInput("A check bonus must be between -20 and +20.")
    difficulty = Difficulty.parse(args.difficulty)
    name = (args.stat or "").strip()
    if name.upper() in STATS and name.upper() in sheet.stats:
        label, value = name.upper(), sheet.stats[name.upper()]
    else:
        value = sheet.skill(name)
        if value is None:
            known = ", ".join([*sheet.stats, *sheet.skills])
            raise InvalidInput(f"{sheet.name} has no stat or skill `{name}`. Known: {known}.")
        label = next(k for k in sheet.skills if k.lower() == " ".join(name.split()).lower())
    result = roll_check(label, value, difficulty, dice, bonus=args.bonus, label=f"{sheet.name} {label}")
    return Outcome(sheet, (CheckMade(sheet.name, result, result.dice),))


# --- autocomplete sources ------------------------------------------------------------------------------------
def damage_types(sheet: NyraSheet, weapon: str | None = None) -> tuple[str, ...]:
    return tuple(t.value for t in sheet.weapon(weapon).available_types)


def locations(sheet: NyraSheet) -> tuple[str, ...]:
    return sheet.table().locations


def stances() -> tuple[str, ...]:
    return (*STANCES, "auto")


def creature_names() -> tuple[str, ...]:
    return tuple(load_creatures())


def weapon_names() -> tuple[str, ...]:
    return tuple(load_tables().weapons)


def armour_names() -> tuple[str, ...]:
    return tuple(load_tables().armour)


def all_damage_types() -> tuple[str, ...]:
    return tuple(t.value for t in DamageType)
