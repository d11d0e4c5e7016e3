"""HP changes and what they trigger (seed "Last Gasp": entering at 0 HP, death below −max HP; RULES.md §3).

Every HP change goes through ``apply_damage``/``apply_heal`` and is reported as ``DamageApplied`` /
``HealApplied``. At 0 HP or less a player character enters Last Gasp (prone, save 10, only Death Saves);
an NPC is out, unless the house rule ``npc_last_gasp`` is on. Below −(max HP): dead. Going down or getting
up recomputes the party heal pool. Our readings: a combatant that goes down leaves its grapples and melee
engagements (a downed body cannot hold or contest a grapple); positive HP takes it out of Last Gasp and off
the floor (prone ends), and brings an out NPC back.
"""

from __future__ import annotations

import dataclasses

from rules.events import Event
from rules.systems.d6.events import (
    DamageApplied,
    Died,
    GrappleEnded,
    HealApplied,
    LastGaspEntered,
    LastGaspLeft,
    OutOfFight,
)
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.house import HouseRules
from rules.systems.d6.state import D6State, LastGasp


def _leave_grapples(state: D6State, cid: str, reason: str) -> tuple[D6State, list[Event]]:
    events: list[Event] = []
    for g in state.grapples_of(cid):
        state = state.drop_grapple(g.a, g.b)
        events.append(GrappleEnded(g.a, g.b, reason))
    # Nobody stays engaged with a body that is down.
    for c in state.combatants:
        if cid in c.engaged_with:
            state = state.update(c.id, engaged_with=tuple(x for x in c.engaged_with if x != cid))
    return state.update(cid, engaged_with=()), events


def apply_damage(
    state: D6State, target: str, amount: int, source: str, house: HouseRules
) -> tuple[D6State, list[Event]]:
    """Lose ``amount`` HP (0 is reported too, so the log shows the hit did nothing)."""
    c = state.get(target)
    if c.status == "dead":
        return state, []
    amount = max(0, amount)
    after = c.hp - amount
    events: list[Event] = [DamageApplied(target, amount, c.hp, after, source)]
    state = state.update(target, hp=after)
    if after < -c.sheet.hp_max:
        state = state.update(target, status="dead", defense=None, prone=True)
        events.append(Died(target, after, -c.sheet.hp_max))
        state, more = _leave_grapples(state, target, f"{target} died")
        events += more
        state, more = recompute_pool(state, f"{target} died")
        return state, events + more
    if after <= 0 and c.status == "active" and c.last_gasp is None:
        if c.is_pc or house.npc_last_gasp:
            state = state.update(target, last_gasp=LastGasp(), prone=True, defense=None, overwhelmed=False)
            events.append(LastGaspEntered(target, after))
            reason = f"{target} entered Last Gasp"
        else:
            state = state.update(target, status="out", defense=None, prone=True)
            events.append(OutOfFight(target, after))
            reason = f"{target} is out"
        state, more = _leave_grapples(state, target, reason)
        events += more
        state, more = recompute_pool(state, reason)
        events += more
    return state, events


def apply_heal(state: D6State, target: str, amount: int, source: str) -> tuple[D6State, list[Event]]:
    """Gain up to ``amount`` HP, never above max. Positive HP takes a combatant out of Last Gasp."""
    c = state.get(target)
    if c.status == "dead":
        return state, []
    amount = max(0, amount)
    after = min(c.sheet.hp_max, c.hp + amount) if c.hp < c.sheet.hp_max else c.hp
    events: list[Event] = [HealApplied(target, amount, after - c.hp, c.hp, after, source)]
    state = state.update(target, hp=after)
    if after > 0 and (c.last_gasp is not None or c.status == "out"):
        state = state.update(target, last_gasp=None, status="active", prone=False)
        events.append(LastGaspLeft(target, after, source))
        state, more = recompute_pool(state, f"{target} is back up")
        events += more
    return state, events


def leave_last_gasp(state: D6State, target: str, reason: str) -> tuple[D6State, list[Event]]:
    """A rally: back in the fight whatever the HP (seed: "rejoin the combat immediately")."""
    c = state.get(target)
    if c.last_gasp is None:
        return state, []
    state = state.update(target, last_gasp=None, prone=False)
    events: list[Event] = [LastGaspLeft(target, c.hp, reason)]
    state, more = recompute_pool(state, f"{target} is back up")
    return state, events + more


def set_last_gasp(state: D6State, target: str, **changes) -> D6State:
    c = state.get(target)
    assert c.last_gasp is not None
    return state.update(target, last_gasp=dataclasses.replace(c.last_gasp, **changes))
