"""The Kaernest facade for the Discord layer (COMMANDS.md): one import, plain arguments, pure functions.

Every encounter operation takes the state, its arguments, a ``DiceSource`` and the channel's
``HouseRules``, and returns ``Outcome(new_state, events)``; nothing is mutated. The Discord layer calls
``next_due`` after each change and ``advance`` while nobody owes a declaration, so the clock runs itself.
"""

from __future__ import annotations

from rules.dice import DiceSource
from rules.events import Outcome
from rules.systems.kaernest import check as checks
from rules.systems.kaernest import creatures, defense, encounter, house, initiative, tables, timeline
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest import state as states
from rules.systems.kaernest.events import CheckRolled
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import POSTURES, KaernestState
from rules.systems.kaernest.timeline import Due

__all__ = [
    "POSTURES",
    "Due",
    "HouseRules",
    "KaernestState",
    "Sheet",
    "add_combatant",
    "add_weapon",
    "advance",
    "armour_names",
    "check",
    "creature_names",
    "damage_types",
    "declare_action",
    "declare_attack",
    "describe_house_rules",
    "end_turn",
    "gm_damage",
    "gm_heal",
    "house_from_dict",
    "house_to_dict",
    "new_sheet",
    "new_state",
    "next_due",
    "remove_combatant",
    "remove_weapon",
    "roll_initiative",
    "set_field",
    "set_house_rule",
    "set_initiative",
    "set_posture",
    "set_wound_effect",
    "sheet_fields",
    "sheet_from_dict",
    "sheet_from_template",
    "sheet_to_dict",
    "state_from_dict",
    "state_to_dict",
    "weapon_names",
]

# House rules (/gm rules)
describe_house_rules = house.describe
set_house_rule = house.set_rule
house_to_dict = house.to_dict
house_from_dict = house.from_dict

# Sheets (/character ...)
sheet_from_dict = sheets.from_dict
set_field = sheets.set_field
sheet_fields = sheets.field_names
add_weapon = sheets.add_weapon
remove_weapon = sheets.remove_weapon


def new_sheet(name: str) -> Sheet:
    return sheets.validate(Sheet(name=(name or "").strip()))


def sheet_to_dict(sheet: Sheet) -> dict:
    return sheet.to_dict()


# Tables (autocomplete)
def weapon_names() -> tuple[str, ...]:
    return tuple(w.name for w in tables.weapons())


def armour_names() -> tuple[str, ...]:
    return tuple(a.name for a in tables.armours())


def creature_names() -> tuple[str, ...]:
    return tuple(c.name for c in creatures.creatures())


def damage_types(weapon: str) -> tuple[str, ...]:
    return tables.weapon(weapon).damage_types()


sheet_from_template = creatures.from_template


# Encounter state
def new_state() -> KaernestState:
    return KaernestState()


def state_to_dict(state: KaernestState) -> dict:
    return state.to_dict()


state_from_dict = states.from_dict

# Encounter operations: (state, args, dice, house) → Outcome
add_combatant = encounter.add_combatant
remove_combatant = encounter.remove_combatant
roll_initiative = initiative.roll_initiative
set_initiative = initiative.set_initiative
declare_attack = timeline.declare_attack
declare_action = timeline.declare_action
next_due = timeline.next_due
advance = timeline.advance
gm_heal = encounter.gm_heal
set_wound_effect = encounter.set_wound_effect


def set_posture(state: KaernestState, combatant_id: str, posture: str) -> Outcome[KaernestState]:
    """``/defend``: passive, active, aggressive or none."""
    return defense.set_posture(state, combatant_id, posture)


def end_turn(
    state: KaernestState, combatant_id: str, dice: DiceSource, house: HouseRules
) -> Outcome[KaernestState]:
    """``/turn end``: wait one segment."""
    return timeline.wait(state, combatant_id, dice, house)


def gm_damage(
    state: KaernestState, combatant_id: str, amount: int, house: HouseRules, *, location: str | None = None
) -> Outcome[KaernestState]:
    return encounter.gm_damage(state, combatant_id, amount, house, location=location)


def check(
    sheet: Sheet,
    stat: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    skill: str | None = None,
    bonus: int = 0,
    state: KaernestState | None = None,
    combatant_id: str | None = None,
) -> CheckRolled:
    """``/check``: 2d12 vs stat + skill; in an encounter the combatant's wound penalty applies."""
    wounds = state.get(combatant_id).wound_penalty if state is not None and combatant_id else 0
    return checks.check(sheet, stat, dice, house, skill=skill, bonus=bonus, wound_penalty=wounds)
