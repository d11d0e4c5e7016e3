"""Grappling (seed "Grappling"; RULES.md §3 "Grapple").

A counter per pair, −3…+3, signed toward one side; each point is a staggered stack on the side it is
against. Start: Physique + ``grapple`` skill against the target's, higher wins → 1 toward the grappler.
Contest (not while pinned): +1 to the higher contester, +2 when higher by 10+, a reversal (+1 toward the
other) when the other is higher by 5+, else no change. Grapple-roll penalties: −2/−5/−10 owed for attacking
normally while 1/2/3 ahead (recorded at the attack, spent on the next grapple roll in that pair), and −2 per
staggered stack from any other source. At 3, the leader may throw (2D6; off a height 2^storeys D6 capped by
the house rule; into a wall/object/person ×1.5 rounded down to both; grapple ends), pin (save 0, no
contesting; broken by damage to the pinner totalling a quarter of its max HP, counter −3), or take down
(Physique-dice D6, or D66 by house rule, + the GM's environment modifier; counter −3; the leader is
staggered through its next round). Throw and take-down damage ignore armour (our reading: armour rules are
written for weapons). Dice: the acting participant's roll first, then the other's.

Every roll has its Wild Die (RULES.md §4), throw and take-down damage included: a throw's D6 and a d6
take-down are one pool each (the Wild Die last, its explosions after it). A ``d66`` take-down reads each
Physique die as a pair (tens, units); our reading: the last pair's units die is the Wild Die, its explosions
add to the units under the ``explode`` rule, and a 1 on it under ``drop`` counts as 0 (there is no higher
die of the same kind to drop with it).

Plans are checked as they will unfold (RULES.md §4): ``planned_grapple`` gives the best the plan declared
so far can bring a pair to (a start makes it 1, a contest adds at most 2, a pin pins, a take-down takes 3,
a throw or release ends it), so a contest then a throw is accepted when the contest could reach 3; the throw
is still checked against the real counter when it resolves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import Check, base_code, roll_check, roll_code, turn_mods
from rules.systems.d6.events import (
    GrappleEnded,
    GrapplePinned,
    GrappleRolled,
    GrappleThrown,
    Mod,
    TakenDown,
)
from rules.systems.d6.health import apply_damage
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode, roll_pool
from rules.systems.d6.save import grapple_stacks, other_stacks
from rules.systems.d6.sheet import SKILL_GRAPPLE
from rules.systems.d6.state import D6State, Grapple, PlannedAction

GRAPPLE_MOVES = ("start", "contest", "throw", "pin", "takedown", "release")
STAGGER_GRAPPLE_PENALTY = 2


def _roll(
    state: D6State, who: str, pair: Grapple | None, penalty_dice: int, dice: DiceSource, house: HouseRules
) -> tuple[Check, tuple[Mod, ...]]:
    c = state.get(who)
    code, shown = base_code(c.sheet, "physique", SKILL_GRAPPLE)
    mods: list[Mod] = list(turn_mods(penalty_dice))
    if pair is not None and pair.penalty_of(who):
        mods.append(Mod("attacked while ahead", pair.penalty_of(who)))
    # Stacks not owed to this pair: the GM's, a take-down, an overwhelmed parry, other grapples.
    this_pair = max(0, -pair.toward(who)) if pair is not None else 0
    other = other_stacks(state, who) + grapple_stacks(state, who) - this_pair
    if other:
        mods.append(Mod(f"staggered ×{other} (other source)", -STAGGER_GRAPPLE_PENALTY * other))
    result = roll_check(code, mods, dice, house, f"{who} grapple")
    return result, shown + tuple(mods)


def _need(state: D6State, actor: str, other: str) -> Grapple:
    g = state.grapple(actor, other)
    if g is None:
        raise NotAllowed(f"{state.get(actor).name} is not grappling {state.get(other).name}.")
    return g


def _check_actor(state: D6State, actor: str, other: str) -> None:
    if actor == other:
        raise InvalidInput("A combatant cannot grapple itself.")
    if not state.get(actor).can_act:
        raise NotAllowed(f"{state.get(actor).name} cannot act now.")
    if state.get(other).status == "dead":
        raise NotAllowed(f"{state.get(other).name} is dead.")


def start(
    state: D6State, actor: str, target: str, dice: DiceSource, house: HouseRules, *, penalty_dice: int = 0
) -> Outcome[D6State]:
    _check_actor(state, actor, target)
    if state.grapple(actor, target) is not None:
        raise NotAllowed("These two are already grappling; contest the grapple instead.")
    if not state.get(target).can_act:
        raise NotAllowed(f"{state.get(target).name} is down; there is nothing to grapple.")
    mine, my_mods = _roll(state, actor, None, penalty_dice, dice, house)
    theirs, their_mods = _roll(state, target, None, 0, dice, house)
    won = mine.total > theirs.total
    counter = 0
    if won:
        g = Grapple(actor, target, 1)
        state = state.put_grapple(g)
        state = _engage(state, actor, target)
        counter = 1
    event = GrappleRolled(
        "start",
        actor,
        target,
        mine.total,
        theirs.total,
        "grapple started" if won else "failed (the grappler must roll higher)",
        1 if won else 0,
        counter,
        my_mods,
        their_mods,
        mine.roll,
        theirs.roll,
        mine.roll.dice + theirs.roll.dice,
    )
    return Outcome(state, (event,))


def contest(
    state: D6State, actor: str, other: str, dice: DiceSource, house: HouseRules, *, penalty_dice: int = 0
) -> Outcome[D6State]:
    _check_actor(state, actor, other)
    g = _need(state, actor, other)
    if g.pinned_id() == actor:
        raise NotAllowed(
            f"{state.get(actor).name} is pinned and cannot contest; attack the pinner to break free."
        )
    mine, my_mods = _roll(state, actor, g, penalty_dice, dice, house)
    theirs, their_mods = _roll(state, other, g, 0, dice, house)
    diff = mine.total - theirs.total
    if diff >= 10:
        shift, result = 2, "won by 10 or more"
    elif diff > 0:
        shift, result = 1, "won"
    elif diff <= -5:
        shift, result = -1, "reversal"
    else:
        shift, result = 0, "no change"
    g = g.shifted(actor, shift).with_penalty(actor, 0).with_penalty(other, 0)
    if g.pinned and abs(g.counter) < 3:
        g = dataclasses.replace(g, pinned=False, pin_damage=0)
    state = state.put_grapple(g)
    event = GrappleRolled(
        "contest",
        actor,
        other,
        mine.total,
        theirs.total,
        result,
        shift,
        g.toward(actor),
        my_mods,
        their_mods,
        mine.roll,
        theirs.roll,
        mine.roll.dice + theirs.roll.dice,
    )
    return Outcome(state, (event,))


def _leading(state: D6State, leader: str, other: str, move: str) -> Grapple:
    _check_actor(state, leader, other)
    g = _need(state, leader, other)
    if g.toward(leader) < 3:
        raise NotAllowed(
            f"a {move} needs the grapple counter at 3 in {state.get(leader).name}'s favour (it is {g.toward(leader)})."
        )
    return g


def throw_dice(storeys: int, cap: int) -> tuple[int, bool]:
    """2D6 on the floor; 2^storeys D6 off a height, capped (terminal velocity)."""
    if storeys < 0:
        raise InvalidInput("Storeys cannot be negative.")
    if storeys == 0:
        return 2, False
    count = 2**storeys if storeys < 30 else cap + 1
    return min(count, cap), count > cap


def throw(
    state: D6State,
    leader: str,
    other: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    storeys: int = 0,
    into: str = "",
) -> Outcome[D6State]:
    _leading(state, leader, other, "throw")
    count, capped = throw_dice(storeys, house.throw_cap_dice)
    pool = roll_code(DieCode(count), dice, house, f"{other} thrown")
    rolled_dice = pool.dice
    rolled = pool.total
    amount = rolled * 3 // 2 if into else rolled
    state = state.drop_grapple(leader, other)
    state = _disengage_pair(state, leader, other)
    events: list[Event] = [
        GrappleThrown(
            leader, other, storeys, into, count, capped, rolled, amount, roll=pool, dice=rolled_dice
        ),
        GrappleEnded(leader, other, "thrown"),
    ]
    state, more = apply_damage(state, other, amount, f"thrown by {leader}", house)
    events += more
    if into and state.has(into) and into not in (leader, other):
        state, more = apply_damage(state, into, amount, f"{other} thrown into it", house)
        events += more
    return Outcome(state, tuple(events))


def pin(state: D6State, leader: str, other: str) -> Outcome[D6State]:
    g = _leading(state, leader, other, "pin")
    if g.pinned:
        raise NotAllowed(f"{state.get(other).name} is already pinned.")
    state = state.put_grapple(dataclasses.replace(g, pinned=True, pin_damage=0))
    hp_max = state.get(leader).sheet.hp_max
    return Outcome(state, (GrapplePinned(leader, other, -(-hp_max // 4)),))


def takedown(
    state: D6State, leader: str, other: str, dice: DiceSource, house: HouseRules, *, modifier: int = 0
) -> Outcome[D6State]:
    g = _leading(state, leader, other, "take-down")
    count = state.get(leader).sheet.physique.dice
    pool = None
    if house.takedown_dice == "d66":
        rolled, drawn = _d66_pairs(count, dice, house, f"{leader} take-down")
    else:
        pool = roll_code(DieCode(count), dice, house, f"{leader} take-down")
        rolled, drawn = pool.total, list(pool.dice)
    amount = max(0, rolled + modifier)
    g = dataclasses.replace(g.shifted(leader, -3), pinned=False, pin_damage=0)
    state = state.put_grapple(g)
    # Staggered through its next round: counted down at the end of this turn and of the next one.
    state = state.update(leader, stagger_turns=2)
    events: list[Event] = [
        TakenDown(
            leader,
            other,
            house.takedown_dice,
            rolled,
            modifier,
            amount,
            g.toward(leader),
            roll=pool,
            dice=tuple(drawn),
        )
    ]
    state, more = apply_damage(state, other, amount, f"take-down by {leader}", house)
    return Outcome(state, tuple(events + more))


def _d66_pairs(count: int, dice: DiceSource, house: HouseRules, label: str) -> tuple[int, list[Die]]:
    """``count`` d66 (tens, units), the last units die being the Wild Die (see the module docstring)."""
    drawn: list[Die] = []
    rolled = 0
    for n in range(count):
        tens = dice.roll(6, f"{label} tens")
        drawn.append(tens)
        if n + 1 < count:
            units = dice.roll(6, f"{label} units")
            drawn.append(units)
            rolled += tens.value * 10 + units.value
            continue
        wild = roll_pool(
            DieCode(1), dice, explode=house.explode, wild_one=house.wild_one, label=f"{label} units"
        )
        drawn += wild.dice
        rolled += tens.value * 10 + wild.total
    return rolled, drawn


@dataclass(frozen=True, slots=True)
class Planned:
    """A pair as the plan will leave it at best for the actor: ``counter`` toward it, None for no grapple."""

    counter: int | None
    pinned: bool = False


def planned_grapple(state: D6State, actor: str, target: str, plan: Iterable[PlannedAction]) -> Planned:
    """The best the planned grapple moves of ``actor`` against ``target`` can bring the pair to."""
    g = state.grapple(actor, target)
    best = Planned(g.toward(actor), g.pinned) if g is not None else Planned(None)
    for a in plan:
        if a.kind != "grapple" or a.target != target:
            continue
        if a.move == "start" and best.counter is None:
            best = Planned(1)
        elif best.counter is None:
            continue
        elif a.move == "contest":
            counter = min(3, best.counter + 2)
            best = Planned(counter, best.pinned and abs(counter) == 3)
        elif a.move == "pin":
            best = Planned(best.counter, True)
        elif a.move == "takedown":
            best = Planned(best.counter - 3)
        elif a.move in ("throw", "release"):
            best = Planned(None)
    return best


def release(state: D6State, actor: str, other: str, *, by_gm: bool = False) -> Outcome[D6State]:
    """Let go (or the GM separates them). The one behind cannot simply let go: it contests to get free."""
    g = _need(state, actor, other)
    if not by_gm and g.toward(actor) < 0:
        raise NotAllowed("You are behind in this grapple; contest it to get free.")
    state = state.drop_grapple(actor, other)
    return Outcome(
        state, (GrappleEnded(actor, other, "separated by the GM" if by_gm else f"released by {actor}"),)
    )


def _engage(state: D6State, a: str, b: str) -> D6State:
    ca, cb = state.get(a), state.get(b)
    if b not in ca.engaged_with:
        state = state.update(a, engaged_with=(*ca.engaged_with, b))
    if a not in cb.engaged_with:
        state = state.update(b, engaged_with=(*cb.engaged_with, a))
    return state


def _disengage_pair(state: D6State, a: str, b: str) -> D6State:
    ca, cb = state.get(a), state.get(b)
    state = state.update(a, engaged_with=tuple(x for x in ca.engaged_with if x != b))
    return state.update(b, engaged_with=tuple(x for x in cb.engaged_with if x != a))


def grapple_action(
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
        return start(state, actor, target, dice, house, penalty_dice=penalty_dice)
    if move_name == "contest":
        return contest(state, actor, target, dice, house, penalty_dice=penalty_dice)
    if move_name == "throw":
        return throw(state, actor, target, dice, house, storeys=storeys, into=into)
    if move_name == "pin":
        return pin(state, actor, target)
    if move_name == "takedown":
        return takedown(state, actor, target, dice, house, modifier=modifier)
    if move_name == "release":
        return release(state, actor, target)
    raise InvalidInput(f"Grapple actions: {', '.join(GRAPPLE_MOVES)}.")
