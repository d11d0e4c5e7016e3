"""Other actions and GM tools (RULES.md §1 "Delay": "Moving or other actions may cost delay too (the GM sets
the cost)"; COMMANDS.md ``/move``, ``/gm damage``, ``/gm heal``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.nyra.damage import apply_location_damage, heal_location
from rules.systems.nyra.delay import require_delay, turn_is_spent
from rules.systems.nyra.events import DelaySpent, FieldSet, LocationRolled, OrderSet
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.sequence import order_entries, order_key, settle
from rules.systems.nyra.sheet import SEQUENCE_DIE
from rules.systems.nyra.state import STANCES, NyraCombat
from rules.systems.nyra.turns import finish_turn

MAX_GM_AMOUNT = 1000


@dataclass(frozen=True, slots=True)
class ActionArgs:
    """``/move`` or another action: its delay ``cost`` (set by the GM; 0 = free)."""

    actor: str
    cost: int = 0
    action: str = "move"


@dataclass(frozen=True, slots=True)
class GmDamageArgs:
    """``/gm damage``: ``amount`` to ``location`` (rolled on the target's location die when not given)."""

    target: str
    amount: int
    location: str | None = None


@dataclass(frozen=True, slots=True)
class GmHealArgs:
    target: str
    amount: int
    location: str


def other_action(
    state: NyraCombat, args: ActionArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """Pay an action's delay from the pool (refused when the pool cannot cover it)."""
    actor = state.require_turn(args.actor)
    if not state.turn_started:
        raise NotAllowed(f"{actor.name}'s turn has not started yet.")
    require_delay(actor, args.cost, f"{args.action or 'this action'}")
    after = actor.delay_pool - args.cost
    state = state.with_combatant(dataclasses.replace(actor, delay_pool=after))
    events: tuple[Event, ...] = (
        DelaySpent(actor.id, args.action or "action", args.cost, actor.delay_pool, after),
    )
    spent = turn_is_spent(state, state.get(actor.id), house) if args.cost else None
    if spent:
        return finish_turn(state, spent, dice, house, events)
    return Outcome(state, events)


def gm_damage(
    state: NyraCombat, args: GmDamageArgs, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """Damage straight to a location (no check, no armour): wound states and death follow as for a strike."""
    if not 0 <= args.amount <= MAX_GM_AMOUNT:
        raise InvalidInput(f"GM damage must be 0..{MAX_GM_AMOUNT}.")
    target = state.get(args.target)
    table = target.sheet.table()
    events: list[Event] = []
    if args.location and args.location.strip():
        location = table.find(args.location)
    else:
        die = dice.roll(table.die, f"{target.name} hit location")
        location = table.location_for(die.value)
        events.append(LocationRolled(target.id, table.name, die.value, location, (die,)))
    target, hurt = apply_location_damage(target, location, args.amount, "gm")
    state = state.with_combatant(target)
    events.extend(hurt)
    current = state.current
    if state.turn_started and current is not None and current.id == target.id and target.dead:
        return finish_turn(state, "dead", dice, house, tuple(events))
    return Outcome(state, tuple(events))


def gm_heal(state: NyraCombat, args: GmHealArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """Take damage off one location (a doctor's work; RULES.md leaves healing to the GM)."""
    if not 0 <= args.amount <= MAX_GM_AMOUNT:
        raise InvalidInput(f"Healing must be 0..{MAX_GM_AMOUNT}.")
    target = state.get(args.target)
    target, healed = heal_location(target, args.location, args.amount)
    return Outcome(state.with_combatant(target), (healed,))


@dataclass(frozen=True, slots=True)
class GmSetArgs:
    """``/gm set``: ``field`` is ``sequence``, ``delay``, ``energy``, ``side``, ``stance``,
    ``<location> damage`` or ``<weapon> durability``; ``value`` the text typed."""

    target: str
    field: str
    value: str


GM_FIELDS = ("sequence", "delay", "energy", "side", "stance", "<location> damage", "<weapon> durability")


def _number(name: str, text: str, maximum: int) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise InvalidInput(f"{name} needs a whole number 0..{maximum}, not `{text}`.") from None
    if not 0 <= value <= maximum:
        raise InvalidInput(f"{name} needs a whole number 0..{maximum}, not {value}.")
    return value


def gm_set(state: NyraCombat, args: GmSetArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """Set one combat field by hand. A new Sequence re-sorts the order (roll-offs drawn only for new ties);
    the turn stays with its holder. Damage set this way shows as a ``FieldSet``, not as a wound event."""
    target = state.get(args.target)
    field = " ".join((args.field or "").split()).lower()
    value = (args.value or "").strip()
    events: list[Event] = []
    if field == "sequence":
        new = _number("Sequence", value, SEQUENCE_DIE)
        if new < 1:
            raise InvalidInput(f"Sequence needs a whole number 1..{SEQUENCE_DIE}.")
        before, updated = str(target.sequence), dataclasses.replace(target, sequence=new, rolloff=())
        state = state.with_combatant(updated)
        if state.begun:
            combatants, rolled, drawn = settle(state.combatants, dice)
            order = tuple(c.id for c in sorted(combatants, key=order_key))
            current = state.current_id
            state = dataclasses.replace(
                state, combatants=combatants, order=order, turn_index=order.index(current) if current else 0
            )
            events.extend(rolled)
            events.append(OrderSet(order_entries(tuple(state.get(cid) for cid in order)), drawn))
        after = str(new)
    elif field == "delay":
        new = _number("Delay", value, 100)
        before, after = str(target.delay_pool), str(new)
        state = state.with_combatant(dataclasses.replace(target, delay_pool=new))
    elif field == "energy":
        new_energy = None if value.lower() in {"none", "off", ""} else _number("Energy", value, 10000)
        before, after = str(target.energy), str(new_energy)
        state = state.with_combatant(dataclasses.replace(target, energy=new_energy))
    elif field == "side":
        if not value or len(value) > 40:
            raise InvalidInput("A side needs 1..40 characters.")
        before, after = target.side, value
        state = state.with_combatant(dataclasses.replace(target, side=value))
    elif field == "stance":
        stance = None if value.lower() in {"auto", ""} else value.lower()
        if stance is not None and stance not in STANCES:
            raise InvalidInput("A stance is dodge, defense or auto.")
        before, after = str(target.stance), str(stance)
        state = state.with_combatant(dataclasses.replace(target, stance=stance))
    elif field.endswith(" damage"):
        location = target.sheet.table().find(field[: -len(" damage")])
        new = _number(f"{location} damage", value, 10000)
        damage = {**target.location_damage, location: new}
        if not new:
            del damage[location]
        before, after = str(target.damage_at(location)), str(new)
        state = state.with_combatant(dataclasses.replace(target, location_damage=damage))
        field = f"{location} damage"
    elif field.endswith(" durability"):
        weapon = target.sheet.weapon(field[: -len(" durability")])
        new = _number(f"{weapon.name} durability", value, 10000)
        before, after = str(target.durability.get(weapon.name)), str(new)
        state = state.with_combatant(
            dataclasses.replace(target, durability={**target.durability, weapon.name: new})
        )
        field = f"{weapon.name} durability"
    else:
        raise InvalidInput(
            f"`{args.field}` is not a field the GM can set here. Fields: {', '.join(GM_FIELDS)}."
        )
    events.insert(0, FieldSet(target.id, field, before, after))
    return Outcome(state, tuple(events))
