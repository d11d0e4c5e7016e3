"""The D6 operations the Discord layer calls (RULES.md §3; COMMANDS.md). A thin facade: each function
names one command and forwards to the module that implements the seed passage.

Every operation takes the state (or sheet), ids/arguments, a ``DiceSource`` and the channel's
``HouseRules``, and returns ``Outcome(new_state, events)`` (sheet helpers return the new sheet).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Note, Outcome
from rules.systems.d6 import grapple as _grapple
from rules.systems.d6 import tables
from rules.systems.d6.attack import attack
from rules.systems.d6.checks import check as _check
from rules.systems.d6.checks import roll_code
from rules.systems.d6.defense import defend, parse_stance
from rules.systems.d6.events import Rolled
from rules.systems.d6.heal_pool import new_instance as _new_instance
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.healing import heal
from rules.systems.d6.health import apply_damage, apply_heal
from rules.systems.d6.house import HouseRules, describe, set_rule
from rules.systems.d6.initiative import roll_initiative
from rules.systems.d6.last_gasp import death_save
from rules.systems.d6.movement import disengage, move
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import Sheet, field_names, set_field, sheet_from_dict
from rules.systems.d6.state import D6State, PlannedAction, new_combatant
from rules.systems.d6.stealth import stealth
from rules.systems.d6.turn import declare, end_turn, lock_in, reroll_initiative, start_turn

__all__ = [
    "D6State",
    "HouseRules",
    "PlannedAction",
    "act",
    "add_combatant",
    "add_creatures",
    "attack",
    "begin",
    "check",
    "death_save",
    "declare",
    "defend",
    "describe_rules",
    "disengage",
    "end_turn",
    "gm_condition",
    "gm_damage",
    "gm_heal",
    "grapple",
    "heal",
    "lock_in",
    "move",
    "new_instance",
    "parse_stance",
    "pool_roll",
    "reroll_initiative",
    "set_house_rule",
    "set_sheet_field",
    "sheet_fields",
    "stealth",
    "validate_sheet",
]

# -- sheets and house rules -------------------------------------------------------------------------
validate_sheet = sheet_from_dict  # (raw: Mapping) -> Sheet, ValidationError lists every problem
set_sheet_field = set_field  # (sheet, field, value_text) -> Sheet
sheet_fields = field_names  # () -> tuple[str, ...] for autocomplete
describe_rules = describe  # (house) -> list of rule descriptions with current values
set_house_rule = set_rule  # (house, name, text) -> HouseRules


# -- encounter setup ----------------------------------------------------------------------------------
def add_combatant(
    state: D6State, cid: str, sheet: Sheet, *, side: str = "party", distance: int = 0, is_pc: bool = True
) -> Outcome[D6State]:
    state = state.add([new_combatant(cid, sheet, side=side, distance=distance, is_pc=is_pc)])
    state, events = recompute_pool(state, f"{cid} joined")
    return Outcome(state, tuple(events))


def add_creatures(
    state: D6State,
    template: str,
    *,
    count: int = 1,
    side: str = "enemies",
    distance: int = 0,
    prefix: str = "",
) -> Outcome[D6State]:
    """`/encounter add`: numbered NPC copies of a creature template from ``data/d6/creatures.toml``."""
    if not 1 <= count <= 50:
        raise InvalidInput("Add between 1 and 50 creatures at a time.")
    base = tables.creature(template)
    stem = prefix or base.name
    made = []
    for n in range(1, count + 1):
        cid = stem if count == 1 else f"{stem} {n}"
        sheet = dataclasses.replace(base.sheet, name=cid)
        made.append(new_combatant(cid, sheet, side=side, distance=distance, is_pc=False))
    return Outcome(state.add(made), ())


def begin(
    state: D6State,
    dice: DiceSource,
    house: HouseRules,
    *,
    attackers: str = "",
    surprise: int = 0,
    bonuses: Mapping[str, int] | None = None,
) -> Outcome[D6State]:
    """`/encounter begin`: initiative for everyone, then the first turn starts."""
    rolled = roll_initiative(state, dice, house, attackers=attackers, surprise=surprise, bonuses=bonuses)
    state, events = recompute_pool(rolled.state, "fight begins")
    first = start_turn(state)
    return Outcome(first.state, (*rolled.events, *events, *first.events))


# -- turns ----------------------------------------------------------------------------------------------
def act(
    state: D6State, who: str, action: PlannedAction, dice: DiceSource, house: HouseRules
) -> Outcome[D6State]:
    """A one-action turn (`lock` on the command): declare and lock in at once."""
    declared = declare(state, who, action)
    locked = lock_in(declared.state, who, dice, house)
    return Outcome(locked.state, (*declared.events, *locked.events))


def grapple(
    state: D6State,
    move_name: str,
    actor: str,
    target: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    storeys: int = 0,
    into: str = "",
    modifier: int = 0,
    penalty_dice: int = 0,
) -> Outcome[D6State]:
    """`/grapple action`: start, contest, throw, pin, takedown, release."""
    if move_name == "start":
        return _grapple.start(state, actor, target, dice, house, penalty_dice=penalty_dice)
    if move_name == "contest":
        return _grapple.contest(state, actor, target, dice, house, penalty_dice=penalty_dice)
    if move_name == "throw":
        return _grapple.throw(state, actor, target, dice, house, storeys=storeys, into=into)
    if move_name == "pin":
        return _grapple.pin(state, actor, target)
    if move_name == "takedown":
        return _grapple.takedown(state, actor, target, dice, house, modifier=modifier)
    if move_name == "release":
        return _grapple.release(state, actor, target)
    raise InvalidInput(f"Grapple actions: {', '.join(_grapple.GRAPPLE_MOVES)}.")


# -- GM tools ---------------------------------------------------------------------------------------------
def gm_damage(state: D6State, target: str, amount: int, house: HouseRules) -> Outcome[D6State]:
    """`/gm damage`: straight HP loss, through Last Gasp, out and death."""
    if amount < 0:
        raise InvalidInput("Damage cannot be negative; use `/gm heal`.")
    if state.get(target).status == "dead":
        raise NotAllowed(f"{target} is already dead.")
    state, events = apply_damage(state, target, amount, "GM", house)
    return Outcome(state, tuple(events))


def gm_heal(state: D6State, target: str, amount: int) -> Outcome[D6State]:
    """`/gm heal`: HP back (never above max); positive HP leaves Last Gasp. Stored healing is untouched."""
    if amount < 0:
        raise InvalidInput("Healing cannot be negative; use `/gm damage`.")
    if state.get(target).status == "dead":
        raise NotAllowed(f"{target} is dead.")
    state, events = apply_heal(state, target, amount, "GM")
    return Outcome(state, tuple(events))


GM_CONDITIONS = ("staggered", "prone", "hidden", "overwhelmed")


def gm_condition(state: D6State, target: str, condition: str, *, remove: bool = False) -> Outcome[D6State]:
    """`/gm condition`: staggered (one stack per call), prone, hidden (from every opponent), overwhelmed."""
    key = (condition or "").strip().lower()
    c = state.get(target)
    if key == "staggered":
        state = state.update(target, staggered=max(0, c.staggered + (-1 if remove else 1)))
    elif key == "prone":
        state = state.update(target, prone=not remove)
    elif key == "hidden":
        state = state.update(
            target, hidden_from=() if remove else tuple(o.id for o in state.opponents(target))
        )
    elif key == "overwhelmed":
        state = state.update(target, overwhelmed=not remove)
    elif key in ("pinned", "total defense", "total-defense"):
        raise NotAllowed(f"`{key}` comes from play: use `/grapple pin` or `/defend total-...`.")
    else:
        raise InvalidInput(f"Conditions: {', '.join(GM_CONDITIONS)}.")
    after = state.get(target)
    text = f"GM: {target} {'loses' if remove else 'gains'} {key}"
    if key == "staggered":
        text += f" (now {after.staggered} stack{'s' if after.staggered != 1 else ''})"
    return Outcome(state, (Note(text),))


def new_instance(state: D6State, items: int | None = None) -> Outcome[D6State]:
    """`/gm instance`: the heal pool is refilled (uses reset)."""
    if items is not None and not 0 <= items <= 20:
        raise InvalidInput("Extra heals from items: 0 to 20.")
    state, events = _new_instance(state, items)
    return Outcome(state, tuple(events))


# -- plain rolls ------------------------------------------------------------------------------------------
def check(
    who: str, sheet: Sheet, stat: str, dice: DiceSource, house: HouseRules, *, bonus: int = 0
) -> Rolled:
    """`/check` for D6: attribute (or skill on its attribute) pool roll."""
    return _check(who, sheet, stat, dice, house, bonus=bonus)


def pool_roll(code_text: str, dice: DiceSource, house: HouseRules, who: str = "") -> Rolled:
    """`/roll 3D+2`: a pool with the Wild Die under the channel's readings."""
    code = DieCode.parse(code_text)
    roll = roll_code(code, dice, house, who)
    return Rolled(who, str(code), code, roll.total, (), roll, roll.dice)
