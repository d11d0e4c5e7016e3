"""GM corrections and encounter upkeep the seed leaves to the table (COMMANDS.md `/gm set`, `/encounter
remove`, `/turn end` with late joiners; RULES.md §3).

Every setter keeps the state's invariants and refuses anything else with the allowed range:

- ``hp`` goes through the health path (``apply_damage``/``apply_heal``): 0 or less puts a PC into Last Gasp
  (an NPC out), positive HP brings it back, the heal pool is recomputed. −(max HP)…max HP; killing is
  `/gm damage`'s job.
- ``hp_max`` changes the combatant's own sheet copy; HP above the new maximum is lowered to it.
- ``initiative`` acts like an initiative reroll (seed "Initiative Rerolling"): the new total replaces the old
  from the next round, when the order is settled again by every tie rule (a roll-off needs dice, which only
  the turn change has). Before `/encounter begin` it is refused: initiative is rolled then.
- ``grapple_counter``: "<other combatant id or name> <value>", or just "<value>" when the combatant is in
  exactly one grapple; the value is −3…+3 seen from the combatant (positive: in its favour). A changed
  counter ends a pin (a pin exists only at ±3 and was made by the leader's action).
- ``stored_healing`` and ``last_gasp_round`` exist only in Last Gasp; ``staggered`` is the GM's own stacks
  (grapple and take-down stacks are derived and follow the grapple); ``heal_pool_uses`` 0…the pool's size,
  ``heal_pool_items`` the extra heals from items (the size is recomputed).

Our readings: a combatant added after the fight began joins the order at the start of the next round, with
its initiative rolled (Perception + ``initiative`` skill) just before that round is settled; the combatant
whose turn is running cannot be removed (end its turn first).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Note, Outcome
from rules.systems.d6 import heal_pool, tables
from rules.systems.d6.events import FieldSet, GrappleEnded
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.health import apply_damage, apply_heal, set_last_gasp
from rules.systems.d6.house import HouseRules
from rules.systems.d6.initiative import roll_initiative, roll_one
from rules.systems.d6.last_gasp import owes_death_save
from rules.systems.d6.sheet import MAX_HP, Sheet
from rules.systems.d6.state import Combatant, D6State, new_combatant
from rules.systems.d6.turn import end_turn, start_turn

GM_FIELDS: tuple[str, ...] = (
    "hp",
    "hp_max",
    "initiative",
    "side",
    "distance",
    "staggered",
    "stored_healing",
    "last_gasp_round",
    "grapple_counter",
    "heal_pool_uses",
    "heal_pool_items",
)
_ALIASES = {
    "max_hp": "hp_max",
    "init": "initiative",
    "grapple": "grapple_counter",
    "counter": "grapple_counter",
    "stored": "stored_healing",
    "last_gasp": "last_gasp_round",
    "last_gasp_rounds": "last_gasp_round",
    "heal_uses": "heal_pool_uses",
    "heal_items": "heal_pool_items",
}
MAX_SIDE_LENGTH = 40
MAX_DISTANCE = 1000
MAX_STAGGERED = 20
MAX_STORED_HEALING = 1000
MAX_LAST_GASP_ROUND = 100
MAX_POOL_ITEMS = 20
INITIATIVE_RANGE = (-100, 1000)


def takes_turns(c: Combatant) -> bool:
    """Gets a turn when its place comes: active (a Last Gasp PC too: it owes a Death Save), not stabilised."""
    return c.status == "active" and not (c.last_gasp is not None and c.last_gasp.stabilised)


def _number(text: str, field: str, low: int, high: int) -> int:
    try:
        value = int((text or "").strip())
    except ValueError:
        raise InvalidInput(f"{field} takes a whole number from {low} to {high}, not `{text}`.") from None
    if not low <= value <= high:
        raise InvalidInput(f"{field} must be from {low} to {high}, not {value}.")
    return value


def field_key(name: str) -> str:
    key = "_".join((name or "").strip().lower().replace("-", " ").split())
    key = _ALIASES.get(key, key)
    if key not in GM_FIELDS:
        raise InvalidInput(f"`{name}` is not a field the GM can set. Fields: {', '.join(GM_FIELDS)}.")
    return key


def find(state: D6State, text: str) -> Combatant:
    """A combatant by id, else by name (case-insensitive, unique)."""
    key = (text or "").strip()
    if state.has(key):
        return state.get(key)
    named = [c for c in state.combatants if c.name.lower() == key.lower()]
    if len(named) == 1:
        return named[0]
    if named:
        raise InvalidInput(f"Several combatants are called `{key}`; use the id.")
    return state.get(key)  # NotFound with the id


def gm_set(state: D6State, cid: str, field: str, text: str, house: HouseRules) -> Outcome[D6State]:
    """`/gm set`: one combatant field (or the party's heal pool) to ``text``; see the module doc."""
    c = state.get(cid)
    key = field_key(field)
    if c.status == "dead" and key in ("hp", "hp_max", "stored_healing", "last_gasp_round"):
        raise NotAllowed(f"{c.name} is dead.")
    if key == "hp":
        return _set_hp(state, c, _number(text, "hp", -c.sheet.hp_max, c.sheet.hp_max), house)
    if key == "hp_max":
        return _set_hp_max(state, c, _number(text, "hp_max", 1, MAX_HP))
    if key == "initiative":
        return _set_initiative(state, c, _number(text, "initiative", *INITIATIVE_RANGE))
    if key == "side":
        side = " ".join((text or "").split())
        if not 1 <= len(side) <= MAX_SIDE_LENGTH:
            raise InvalidInput(f"A side needs 1 to {MAX_SIDE_LENGTH} characters.")
        return _changed(state.update(cid, side=side), cid, key, c.side, side)
    if key == "distance":
        value = _number(text, key, 0, MAX_DISTANCE)
        return _changed(state.update(cid, distance=value), cid, key, c.distance, value)
    if key == "staggered":
        value = _number(text, key, 0, MAX_STAGGERED)
        return _changed(state.update(cid, staggered=value), cid, key, c.staggered, value)
    if key in ("stored_healing", "last_gasp_round"):
        if c.last_gasp is None:
            raise NotAllowed(f"{c.name} is not in Last Gasp; {key} exists only there.")
        high = MAX_STORED_HEALING if key == "stored_healing" else MAX_LAST_GASP_ROUND
        value = _number(text, key, 0, high)
        if key == "stored_healing":
            return _changed(
                set_last_gasp(state, cid, stored_healing=value),
                cid,
                key,
                c.last_gasp.stored_healing,
                value,
            )
        return _changed(set_last_gasp(state, cid, rounds=value), cid, key, c.last_gasp.rounds, value)
    if key == "grapple_counter":
        return _set_counter(state, c, text)
    pool = state.heal_pool
    if key == "heal_pool_uses":
        value = _number(text, key, 0, pool.capacity)
        after = dataclasses.replace(state, heal_pool=dataclasses.replace(pool, uses=value))
        return _changed(after, "party", key, pool.uses, value)
    value = _number(text, key, 0, MAX_POOL_ITEMS)
    after = dataclasses.replace(state, heal_pool=dataclasses.replace(pool, items=value))
    after, more = recompute_pool(after, "extra heals from items changed")
    out = _changed(after, "party", key, pool.items, value)
    return Outcome(out.state, (*out.events, *more))


def _changed(state: D6State, who: str, field: str, before: object, after: object) -> Outcome[D6State]:
    return Outcome(state, (FieldSet(who, field, str(before), str(after)),))


def _set_hp(state: D6State, c: Combatant, value: int, house: HouseRules) -> Outcome[D6State]:
    events: list[Event] = [FieldSet(c.id, "hp", str(c.hp), str(value))]
    if value < c.hp:
        state, more = apply_damage(state, c.id, c.hp - value, "GM set", house)
        events += more
    elif value > c.hp:
        state, more = apply_heal(state, c.id, value - c.hp, "GM set")
        events += more
    return Outcome(state, tuple(events))


def _set_hp_max(state: D6State, c: Combatant, value: int) -> Outcome[D6State]:
    sheet = dataclasses.replace(
        c.sheet, hp_max=value, hp=None if c.sheet.hp is None else min(c.sheet.hp, value)
    )
    state = state.update(c.id, sheet=sheet)
    events: list[Event] = [FieldSet(c.id, "hp_max", str(c.sheet.hp_max), str(value))]
    if c.hp > value:
        state = state.update(c.id, hp=value)
        events.append(FieldSet(c.id, "hp", str(c.hp), f"{value} (the new maximum)"))
    return Outcome(state, tuple(events))


def _set_initiative(state: D6State, c: Combatant, value: int) -> Outcome[D6State]:
    if state.round == 0:
        raise NotAllowed(
            "Initiative is rolled when the fight begins (`/encounter begin`); set it after that."
        )
    state = state.update(c.id, next_initiative=value)
    return _changed(state, c.id, "initiative", c.initiative, f"{value} from round {state.round + 1}")


def _set_counter(state: D6State, c: Combatant, text: str) -> Outcome[D6State]:
    parts = (text or "").strip().rsplit(maxsplit=1)
    if not parts:
        raise InvalidInput(
            "Write `<other combatant> <value>` (−3 to +3, positive in this combatant's favour)."
        )
    if len(parts) == 1:
        mine = state.grapples_of(c.id)
        if len(mine) != 1:
            raise NotAllowed(
                f"{c.name} is in {len(mine)} grapples; write `<other combatant> <value>`."
                if mine
                else f"{c.name} is not grappling anyone."
            )
        grapple = mine[0]
    else:
        other = find(state, parts[0])
        found = state.grapple(c.id, other.id)
        if found is None or other.id == c.id:
            raise NotAllowed(f"{c.name} is not grappling {other.name}; start one with `/grapple start`.")
        grapple = found
    value = _number(parts[-1], "grapple_counter", -3, 3)
    counter = value if c.id == grapple.a else -value
    changed = dataclasses.replace(grapple, counter=counter)
    if counter != grapple.counter:
        changed = dataclasses.replace(changed, pinned=False, pin_damage=0)
    state = state.put_grapple(changed)
    other_id = grapple.other(c.id)
    return _changed(
        state, c.id, f"grapple_counter with {other_id}", f"{grapple.toward(c.id):+d}", f"{value:+d}"
    )


def remove_combatant(state: D6State, cid: str) -> Outcome[D6State]:
    """`/encounter remove`: the combatant leaves; its grapples end, the order and heal pool follow."""
    c = state.get(cid)
    if state.round > 0 and state.current == cid and state.plan is not None:
        raise NotAllowed(f"It is {c.name}'s turn: end it first (`/gm next`), then remove {c.name}.")
    events: list[Event] = []
    for g in state.grapples_of(cid):
        state = state.drop_grapple(g.a, g.b)
        events.append(GrappleEnded(g.a, g.b, f"{c.name} left the encounter"))
    kept = tuple(
        dataclasses.replace(
            o,
            engaged_with=tuple(x for x in o.engaged_with if x != cid),
            hidden_from=tuple(x for x in o.hidden_from if x != cid),
        )
        for o in state.combatants
        if o.id != cid
    )
    turn = state.turn
    if cid in state.order and state.order.index(cid) < turn:
        turn -= 1
    order = tuple(x for x in state.order if x != cid)
    state = dataclasses.replace(state, combatants=kept, order=order, turn=turn)
    events.append(Note(f"{c.name} left the encounter."))
    state, more = recompute_pool(state, f"{c.name} left")
    return Outcome(state, (*events, *more))


def late_joiners(state: D6State) -> tuple[Combatant, ...]:
    """Combatants added after the fight began, still waiting for a place in the order."""
    if state.round == 0:
        return ()
    return tuple(
        c for c in state.combatants if c.id not in state.order and c.status != "dead" and c.initiative is None
    )


def advance(
    state: D6State, who: str, dice: DiceSource, house: HouseRules, *, skip_death_save: bool = False
) -> Outcome[D6State]:
    """End ``who``'s turn and start the next (core ``end_turn``; an owed Death Save refuses it unless the GM
    skips it). When the round ends with it, late joiners roll initiative first, so the new round's order
    includes them."""
    if owes_death_save(state, who) and not skip_death_save:
        end_turn(state, who, dice)  # the refusal, before any initiative die is drawn
    events: list[Event] = []
    last_of_round = not any(takes_turns(state.get(x)) for x in state.order[state.turn + 1 :])
    if last_of_round:
        for c in late_joiners(state):
            if c.next_initiative is None:
                rolled = roll_one(c, dice, house)
                state = state.update(c.id, next_initiative=rolled.total)
                events.append(rolled)
    out = end_turn(state, who, dice, skip_death_save=skip_death_save)
    return Outcome(out.state, (*events, *out.events))


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


def gm_damage(state: D6State, target: str, amount: int, house: HouseRules) -> Outcome[D6State]:
    """`/gm damage`: straight HP loss, through Last Gasp, out and death."""
    if amount < 0:
        raise InvalidInput("Damage cannot be negative; use `/gm heal`.")
    if state.get(target).status == "dead":
        raise NotAllowed(f"{state.get(target).name} is already dead.")
    state, events = apply_damage(state, target, amount, "GM", house)
    return Outcome(state, tuple(events))


def gm_heal(state: D6State, target: str, amount: int) -> Outcome[D6State]:
    """`/gm heal`: HP back (never above max); positive HP leaves Last Gasp. Stored healing is untouched."""
    if amount < 0:
        raise InvalidInput("Healing cannot be negative; use `/gm damage`.")
    if state.get(target).status == "dead":
        raise NotAllowed(f"{state.get(target).name} is dead.")
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
    text = f"GM: {after.name} {'loses' if remove else 'gains'} {key}"
    if key == "staggered":
        text += f" (now {after.staggered} stack{'s' if after.staggered != 1 else ''})"
    return Outcome(state, (Note(text),))


def new_instance(state: D6State, items: int | None = None) -> Outcome[D6State]:
    """`/gm instance`: the heal pool is refilled (uses reset)."""
    if items is not None and not 0 <= items <= 20:
        raise InvalidInput("Extra heals from items: 0 to 20.")
    state, events = heal_pool.new_instance(state, items)
    return Outcome(state, tuple(events))
