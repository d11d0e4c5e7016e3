"""Initiative (seed "Initiative"; RULES.md §3 "Initiative").

Perception + the ``initiative`` skill + circumstance (a flat bonus for the side that ambushes). Highest
first. Ties: the defending side (the one that did not start the fight) first; within a side, the one
farthest from the centre first; still tied, higher Perception; then a roll-off of one d6 each (again among
those still tied). Every tie is reported with the rule that settled it. Dice are drawn combatant by
combatant in the order they entered, then any roll-offs.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence

from rules.dice import DiceSource, Die
from rules.errors import NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import base_code, roll_check
from rules.systems.d6.events import InitiativeOrder, InitiativeRolled, InitiativeTie, Mod
from rules.systems.d6.house import HouseRules
from rules.systems.d6.sheet import SKILL_INITIATIVE
from rules.systems.d6.state import Combatant, D6State


def initiative_mods(c: Combatant, attackers: str, surprise: int, bonus: int) -> tuple[Mod, ...]:
    mods: list[Mod] = []
    if surprise and attackers and c.side == attackers:
        mods.append(Mod("ambush", surprise))
    if bonus:
        mods.append(Mod("circumstance", bonus))
    return tuple(mods)


def roll_one(c: Combatant, dice: DiceSource, house: HouseRules, mods: Sequence[Mod] = ()) -> InitiativeRolled:
    code, shown = base_code(c.sheet, "perception", SKILL_INITIATIVE)
    result = roll_check(code, mods, dice, house, f"{c.id} initiative")
    return InitiativeRolled(
        c.id, result.code, result.total, shown + tuple(mods), result.roll, result.roll.dice
    )


def roll_initiative(
    state: D6State,
    dice: DiceSource,
    house: HouseRules,
    *,
    attackers: str = "",
    surprise: int = 0,
    bonuses: Mapping[str, int] | None = None,
) -> Outcome[D6State]:
    """Begin the fight: everyone not dead rolls, in entry order; the order is settled; round 1 starts.

    ``attackers``: the side that started the fight (it loses ties); ``surprise``: its flat bonus.
    """
    if state.round > 0:
        raise NotAllowed("Initiative is already rolled for this encounter.")
    bonuses = bonuses or {}
    events: list[Event] = []
    for c in state.combatants:
        if c.status == "dead":
            continue
        rolled = roll_one(c, dice, house, initiative_mods(c, attackers, surprise, bonuses.get(c.id, 0)))
        events.append(rolled)
        state = state.update(c.id, initiative=rolled.total, next_initiative=None)
    state = dataclasses.replace(state, attackers=attackers)
    order, tie_events = settle_order(state, dice)
    events.extend(tie_events)
    state = dataclasses.replace(state, order=order, round=1, turn=0)
    events.append(_order_event(state))
    return Outcome(state, tuple(events))


def _order_event(state: D6State) -> InitiativeOrder:
    totals = tuple(state.get(cid).initiative or 0 for cid in state.order)
    return InitiativeOrder(state.round, state.order, totals)


_CRITERIA = ("defending side first", "farthest from the centre first", "higher Perception first")


def _tie_key(c: Combatant, attackers: str) -> tuple[int, int, int, int]:
    defending = 0 if not attackers else (1 if c.side != attackers else 0)
    return (defending, c.distance, c.sheet.perception.dice, c.sheet.perception.pips)


def settle_order(state: D6State, dice: DiceSource) -> tuple[tuple[str, ...], list[Event]]:
    """Sort by initiative; settle each tie group by the seed's rules and report it."""
    ranked = [c for c in state.combatants if c.status != "dead" and c.initiative is not None]
    totals = sorted({c.initiative for c in ranked if c.initiative is not None}, reverse=True)
    order: list[str] = []
    events: list[Event] = []
    for total in totals:
        group = [c for c in ranked if c.initiative == total]
        if len(group) == 1:
            order.append(group[0].id)
            continue
        settled, rule_names, drawn = _settle_group(group, state.attackers, dice)
        order.extend(c.id for c in settled)
        events.append(
            InitiativeTie(
                tuple(c.id for c in group),
                total,
                "; ".join(rule_names),
                tuple(c.id for c in settled),
                _detail(group, state.attackers),
                tuple(drawn),
            )
        )
    return tuple(order), events


def _detail(group: Sequence[Combatant], attackers: str) -> str:
    parts = []
    for c in group:
        role = "" if not attackers else (" attacking" if c.side == attackers else " defending")
        parts.append(f"{c.id} ({c.side}{role}, distance {c.distance}, Perception {c.sheet.perception})")
    return ", ".join(parts)


def _settle_group(
    group: Sequence[Combatant], attackers: str, dice: DiceSource
) -> tuple[list[Combatant], list[str], list[Die]]:
    keyed = sorted(group, key=lambda c: _tie_key(c, attackers), reverse=True)
    used: list[str] = []
    # Which criterion first separates each neighbouring pair (for the report).
    for left, right in itertools.pairwise(keyed):
        ka, kb = _tie_key(left, attackers), _tie_key(right, attackers)
        for i, name in enumerate(_CRITERIA):
            a, b = ka[i] if i < 2 else ka[2:], kb[i] if i < 2 else kb[2:]
            if a != b:
                if name not in used:
                    used.append(name)
                break
    result: list[Combatant] = []
    drawn: list[Die] = []
    i = 0
    while i < len(keyed):
        j = i
        while j + 1 < len(keyed) and _tie_key(keyed[j + 1], attackers) == _tie_key(keyed[i], attackers):
            j += 1
        block = keyed[i : j + 1]
        if len(block) > 1:
            # Roll-off in entry order (group is in entry order; keep that for the draws).
            ids = {c.id for c in block}
            entry = [c for c in group if c.id in ids]
            result.extend(_roll_off(entry, dice, drawn))
            if "roll-off" not in used:
                used.append("roll-off")
        else:
            result.extend(block)
        i = j + 1
    rank = [*_CRITERIA, "roll-off"]
    return result, sorted(used, key=rank.index), drawn


def _roll_off(block: list[Combatant], dice: DiceSource, drawn: list[Die]) -> list[Combatant]:
    rolls = {c.id: dice.roll(6, f"{c.id} initiative roll-off") for c in block}
    drawn.extend(rolls.values())
    out: list[Combatant] = []
    for value in sorted({d.value for d in rolls.values()}, reverse=True):
        same = [c for c in block if rolls[c.id].value == value]
        out.extend(same if len(same) == 1 else _roll_off(same, dice, drawn))
    return out


def start_new_round(state: D6State, dice: DiceSource) -> Outcome[D6State]:
    """Next round: rerolled initiatives replace the old ones and the order is settled again."""
    events: list[Event] = []
    changed = False
    for c in state.combatants:
        if c.next_initiative is not None:
            state = state.update(c.id, initiative=c.next_initiative, next_initiative=None)
            changed = True
    order = state.order
    if changed:
        order, tie_events = settle_order(state, dice)
        events.extend(tie_events)
    else:
        order = tuple(cid for cid in order if state.get(cid).status != "dead")
    state = dataclasses.replace(state, order=order, round=state.round + 1, turn=0)
    events.append(_order_event(state))
    return Outcome(state, tuple(events))
