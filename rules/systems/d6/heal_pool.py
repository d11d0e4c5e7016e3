"""The party heal pool per instance (seed "Healing", Markarth example; RULES.md §3 "Healing").

Capacity = 1 + round-half-up((healing levels + restoration levels of party members not in Last Gasp) / 3)
+ heals from items. Recomputed whenever someone goes down or gets up; uses are counted; what is left never
goes negative; a new instance resets the uses. Party members are the player characters (``is_pc``) still up.
"""

from __future__ import annotations

import dataclasses

from rules.events import Event
from rules.systems.d6.damage import half_up
from rules.systems.d6.events import HealPoolChanged
from rules.systems.d6.state import D6State, HealPool


def pool_levels(state: D6State) -> int:
    return sum(
        c.sheet.healing_level + c.sheet.restoration_level for c in state.combatants if c.is_pc and c.up
    )


def pool_capacity(state: D6State, items: int | None = None) -> int:
    extra = state.heal_pool.items if items is None else items
    return 1 + half_up(pool_levels(state), 3) + extra


def recompute_pool(state: D6State, reason: str) -> tuple[D6State, list[Event]]:
    """Refresh the capacity; report a change (e.g. Markarth going down removes the extra heal)."""
    before = state.heal_pool
    after = dataclasses.replace(before, capacity=pool_capacity(state))
    if after == before:
        return state, []
    state = dataclasses.replace(state, heal_pool=after)
    return state, [
        HealPoolChanged(
            before.capacity, after.capacity, after.uses, after.remaining, pool_levels(state), reason
        )
    ]


def new_instance(state: D6State, items: int | None = None) -> tuple[D6State, list[Event]]:
    """`/gm instance`: the next instance; uses reset, capacity recomputed (``items``: heals from artifacts)."""
    pool = HealPool(
        capacity=state.heal_pool.capacity, uses=0, items=state.heal_pool.items if items is None else items
    )
    before = state.heal_pool
    state = dataclasses.replace(
        state,
        heal_pool=dataclasses.replace(pool, capacity=pool_capacity(state, pool.items)),
        instance=state.instance + 1,
    )
    after = state.heal_pool
    return state, [
        HealPoolChanged(
            before.capacity, after.capacity, after.uses, after.remaining, pool_levels(state), "new instance"
        )
    ]
