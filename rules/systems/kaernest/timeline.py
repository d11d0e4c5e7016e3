"""The segment timeline (seed "Initiative / Order of Actions"; RULES.md §2 "Time").

When the count reaches a combatant's segment it declares an action with a speed; the action resolves at
segment − speed, which is also where that combatant declares its next one. On one segment, resolutions
come first, then declarations; within each, higher initiative first, then entry order (``state.order_key``).
A combatant that ends its turn without acting waits one segment.

``next_due`` is the pure "what happens next" query; ``advance`` moves the clock to the next due point,
resolves what lands there and stops where someone owes a declaration. Because every landing is at least
one tick after its declaration and the clock only jumps to the earliest due tick, nothing resolves before
it was declared and nothing due is skipped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed, RulesError
from rules.events import Event, Outcome
from rules.systems.kaernest import arms, clock, tables
from rules.systems.kaernest.attack import resolve_attack
from rules.systems.kaernest.events import (
    ActionDeclared,
    ActionResolved,
    ClockAdvanced,
    PostureChanged,
    SegmentSet,
    Waited,
)
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import Modifier, sum_of
from rules.systems.kaernest.state import ELEMENTS, Combatant, KaernestState, PendingAction, order_key

# RULES.md §4: "An action may take any speed the GM sets, longer than a minute included"; an hour (the
# seed's "time is measured in minutes and hours") bounds typing mistakes.
MAX_SPEED = 30 * 60
MAX_MODIFIER = 30
# The range of the GM's `bonus` (the `/attack` option states each system's).
MAX_BONUS = MAX_MODIFIER
MAX_TEXT = 200
# RULES.md §4: a sheet edited during the fight reaches the combatant at the start of its next turn.
LATER_EDITS = (
    "A weapon added to the character during the fight is carried from the start of {name}'s next turn."
)


@dataclass(frozen=True, slots=True)
class Due:
    """What happens next. ``declare``: ``combatants`` owe a declaration at ``tick`` (the first one is on
    turn when ``tick`` is the clock); ``resolve``: their actions land at ``tick``, in this order;
    ``idle``: nobody is on the timeline (no initiative yet, or everyone down)."""

    kind: Literal["declare", "resolve", "idle"]
    tick: int | None
    combatants: tuple[str, ...] = ()

    @property
    def minute(self) -> int | None:
        return None if self.tick is None else clock.minute_of(self.tick)

    @property
    def segment(self) -> int | None:
        return None if self.tick is None else clock.segment_of(self.tick)


def next_due(state: KaernestState) -> Due:
    """The next thing on the timeline, without changing anything."""
    active = [c for c in state.combatants if c.on_timeline]
    if not active:
        return Due("idle", None)
    tick = min(c.ready_tick for c in active)  # type: ignore[type-var]
    here = sorted((c for c in active if c.ready_tick == tick), key=order_key)
    landing = tuple(c.id for c in here if c.pending is not None)
    if landing:
        return Due("resolve", tick, landing)
    return Due("declare", tick, tuple(c.id for c in here))


def on_turn(state: KaernestState) -> Combatant | None:
    """The combatant that owes a declaration right now, if any."""
    due = next_due(state)
    if due.kind == "declare" and due.tick == state.tick:
        return state.get(due.combatants[0])
    return None


def _require_turn(state: KaernestState, actor_id: str) -> Combatant:
    actor = state.get(actor_id)
    current = on_turn(state)
    if current is None or current.id != actor_id:
        if not actor.up:
            raise NotAllowed(f"{actor.name} is {actor.condition} and cannot act.")
        if actor.ready_tick is None:
            raise NotAllowed(f"{actor.name} has no initiative yet.")
        who = f"it is {current.name}'s turn" if current else "nobody is due to act; advance the clock"
        when = clock.label(actor.ready_tick)
        raise NotAllowed(f"Not {actor.name}'s turn: {who}. {actor.name} acts at {when}.")
    return actor


def _bounded(name: str, value: int, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"`{name}` must be a whole number from {low} to {high}, not {value!r}.")
    return value


def _speed_terms(actor: Combatant, base_label: str, speed: int, house: HouseRules) -> tuple[Modifier, ...]:
    terms = [Modifier(base_label, speed)]
    if actor.held_defensive and house.defensive_speed_bonus:
        terms.append(Modifier("held a defensive posture", -house.defensive_speed_bonus))
    return tuple(terms)


def _start(
    state: KaernestState,
    actor: Combatant,
    action: PendingAction,
    speed_terms: tuple[Modifier, ...],
    posture: str,
) -> Outcome[KaernestState]:
    events: list[Event] = []
    if posture != actor.posture:
        reason = (
            "holding a defensive posture"
            if posture == "active"
            else f"acting ends the {actor.posture} posture"
        )
        events.append(PostureChanged(actor.id, actor.posture, posture, reason))
    now = state.tick
    events.append(
        ActionDeclared(
            combatant=actor.id,
            action=action.kind,
            speed=action.speed,
            speed_modifiers=speed_terms,
            minute=clock.minute_of(now),
            segment=clock.segment_of(now),
            lands_minute=clock.minute_of(action.lands_tick),
            lands_segment=clock.segment_of(action.lands_tick),
            target=action.target,
            weapon=action.weapon,
            grip=action.grip,
            damage_type=action.damage_type,
            element=action.element,
            called_location=action.called_location,
            description=action.description,
        )
    )
    # Declaring is the combatant's own action: the count of defenses "since its last action" restarts.
    updated = dataclasses.replace(
        actor,
        pending=action,
        ready_tick=action.lands_tick,
        posture=posture,
        defenses_since_action=0,
        held_defensive=False,
    )
    return Outcome(state.replace(updated), tuple(events))


def declare_attack(
    state: KaernestState,
    actor_id: str,
    target_id: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    weapon: str | None = None,
    grip: str | int | None = None,
    damage_type: str | None = None,
    element: str = "physical",
    called_location: str | None = None,
    bonus: int = 0,
    enchantment: int = 0,
    circumstance: int = 0,
    skill: str | None = None,
    speed: int | None = None,
) -> Outcome[KaernestState]:
    """``/attack``: declare an attack that lands ``speed`` segments later (weapon speed for the grip, or a
    GM-set ``speed``). ``called_location`` makes it a called shot. Only the combatant on turn declares."""
    actor = _require_turn(state, actor_id)
    target = state.get(target_id)
    if target.id == actor.id:
        raise InvalidInput(f"{actor.name} cannot attack itself.")
    try:
        chosen = arms.weapon_of(actor.sheet, weapon, house)
    except RulesError as err:
        # The player may just have added it to the character: say when it reaches the fight.
        raise type(err)(f"{err.reason} {LATER_EDITS.format(name=actor.name)}") from err
    hands = chosen.default_grip() if grip is None or grip == "" else tables.grip_of(grip)
    # No type named: the weapon's best damage for that grip (ties: the table's column order).
    kind = (
        tables.damage_type(damage_type)
        if damage_type
        else max(
            chosen.damage_types(), key=lambda t: (chosen.damage(t, hands), -tables.DAMAGE_TYPES.index(t))
        )
    )
    chosen.damage(kind, hands)  # refuses a grip the weapon does not allow or a "--" damage type
    if element not in ELEMENTS:
        raise InvalidInput(f"`{element}` is not an attack element. Use one of: {', '.join(ELEMENTS)}.")
    for name, value, low in (
        ("bonus", bonus, -MAX_BONUS),
        ("enchantment", enchantment, 0),
        ("circumstance", circumstance, -MAX_MODIFIER),
    ):
        _bounded(name, value, low, MAX_BONUS if name == "bonus" else MAX_MODIFIER)
    location = (called_location or "").strip() or None
    if location and len(location) > MAX_TEXT:
        raise InvalidInput(f"A called-shot location is at most {MAX_TEXT} characters.")
    if speed is None:
        terms = _speed_terms(actor, f"{chosen.name} {hands}h", chosen.speed(hands), house)
    else:
        terms = _speed_terms(actor, "GM-set speed", _bounded("speed", speed, 1, MAX_SPEED), house)
    effective = max(clock.MIN_SPEED, sum_of(terms))
    action = PendingAction(
        kind="attack",
        declared_tick=state.tick,
        speed=effective,
        lands_tick=clock.lands_at(state.tick, effective),
        target=target.id,
        weapon=chosen.name,
        grip=hands,
        damage_type=kind,
        element=element,  # type: ignore[arg-type]
        skill=skill.strip() if skill and skill.strip() else None,
        called_location=location,
        bonus=bonus,
        enchantment=enchantment,
        circumstance=circumstance,
    )
    # Attacking is not defending: an active (or no) posture becomes passive; aggressive stays.
    posture = "aggressive" if actor.posture == "aggressive" else "passive"
    return _start(state, actor, action, terms, posture)


def declare_action(
    state: KaernestState,
    actor_id: str,
    speed: int,
    dice: DiceSource,
    house: HouseRules,
    *,
    description: str = "",
    defend: bool = False,
) -> Outcome[KaernestState]:
    """A non-attack action with a GM-set ``speed`` (skill, magic, movement), or with ``defend`` holding an
    active defensive posture until it lands (then the next action gets the defensive speed bonus)."""
    actor = _require_turn(state, actor_id)
    terms = _speed_terms(actor, "speed", _bounded("speed", speed, 1, MAX_SPEED), house)
    if len(description) > MAX_TEXT:
        raise InvalidInput(f"A description is at most {MAX_TEXT} characters.")
    effective = max(clock.MIN_SPEED, sum_of(terms))
    action = PendingAction(
        kind="defend" if defend else "other",
        declared_tick=state.tick,
        speed=effective,
        lands_tick=clock.lands_at(state.tick, effective),
        description=description.strip(),
    )
    posture = "active" if defend else ("aggressive" if actor.posture == "aggressive" else "passive")
    return _start(state, actor, action, terms, posture)


def wait(state: KaernestState, actor_id: str, dice: DiceSource, house: HouseRules) -> Outcome[KaernestState]:
    """``/turn end`` without acting: the combatant declares one segment later (segment − 1)."""
    actor = _require_turn(state, actor_id)
    later = state.tick + 1
    waited = dataclasses.replace(actor, ready_tick=later)
    event = Waited(actor.id, state.minute, state.segment, clock.minute_of(later), clock.segment_of(later))
    return Outcome(state.replace(waited), (event,))


def _resolve_other(state: KaernestState, actor: Combatant) -> Outcome[KaernestState]:
    action = actor.pending
    assert action is not None
    # Holding an active posture through a whole defend action earns the speed bonus of the next action.
    held = action.kind == "defend" and actor.posture == "active"
    done = dataclasses.replace(actor, pending=None, ready_tick=state.tick, held_defensive=held)
    event = ActionResolved(actor.id, action.kind, action.description, state.minute, state.segment)
    return Outcome(state.replace(done), (event,))


def resolve_landing(
    state: KaernestState, actor_id: str, dice: DiceSource, house: HouseRules
) -> Outcome[KaernestState]:
    """Resolve the action of ``actor_id`` that lands at the current tick."""
    actor = state.get(actor_id)
    if actor.pending is None or actor.pending.lands_tick != state.tick or not actor.up:
        return Outcome(state, ())
    if actor.pending.kind == "attack":
        return resolve_attack(state, actor_id, dice, house)
    return _resolve_other(state, actor)


# A guard, not a rule: each pass either stops or resolves at least one landing, and every landing
# schedules the next one strictly later, so the loop ends long before this.
_MAX_PASSES = 10_000


def advance(state: KaernestState, dice: DiceSource, house: HouseRules) -> Outcome[KaernestState]:
    """Move the clock to the next due point and resolve what lands there, in order; stop as soon as
    someone owes a declaration (or nobody is on the timeline). Nothing happens if someone owes one now."""
    events: list[Event] = []
    for _ in range(_MAX_PASSES):
        due = next_due(state)
        if due.kind == "idle" or (due.kind == "declare" and due.tick == state.tick):
            break
        assert due.tick is not None and due.tick >= state.tick, "the timeline never runs backwards"
        if due.tick > state.tick:
            events.append(ClockAdvanced(state.minute, state.segment, due.minute, due.segment))  # type: ignore[arg-type]
            state = dataclasses.replace(state, tick=due.tick)
        if due.kind == "declare":
            break
        for actor_id in due.combatants:
            outcome = resolve_landing(state, actor_id, dice, house)
            state = outcome.state
            events.extend(outcome.events)
    else:
        raise AssertionError("the timeline did not settle; a landing was not resolved")
    return Outcome(state, tuple(events))


def set_segment(state: KaernestState, combatant_id: str, tick: int) -> Outcome[KaernestState]:
    """``/gm set segment``: the combatant next declares at ``tick`` (now or later). An action under way
    lands there instead (it must still land after it was declared); initiative is unchanged."""
    combatant = state.get(combatant_id)
    if not combatant.up:
        raise NotAllowed(f"{combatant.name} is {combatant.condition} and has no place on the timeline.")
    if combatant.initiative is None:
        raise NotAllowed(f"{combatant.name} has no initiative yet; set its initiative instead.")
    if isinstance(tick, bool) or not isinstance(tick, int) or tick < state.tick:
        raise InvalidInput(f"The clock is at {clock.label(state.tick)}; pick that segment or a later one.")
    pending = combatant.pending
    if pending is not None:
        if tick <= pending.declared_tick:
            raise InvalidInput(
                f"{combatant.name}'s {pending.kind} was declared at {clock.label(pending.declared_tick)}; "
                "it must land at a later segment."
            )
        pending = dataclasses.replace(pending, lands_tick=tick, speed=tick - pending.declared_tick)
    updated = dataclasses.replace(combatant, ready_tick=tick, pending=pending)
    event = SegmentSet(
        combatant.id, clock.minute_of(tick), clock.segment_of(tick), pending.kind if pending else None
    )
    return Outcome(state.replace(updated), (event,))
