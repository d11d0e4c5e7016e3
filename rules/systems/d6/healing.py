"""Healing (seed "Healing"; RULES.md §3 "Healing", "Last Gasp" stabilising).

A heal is an action that uses one heal of the party pool whether it works or not. The healer rolls
Intellect (+ the ``medicine`` skill, + modifiers): under 10 nothing, 10–14 1D, 15–19 2D, 20–24 3D,
25–29 4D, 30+ 5D; the healed rolls those dice (a pool with the Wild Die). HP never exceeds max. Healing a
character in Last Gasp stabilises it: its stored healing is added; positive HP → it leaves Last Gasp,
otherwise it is stabilised (no more Death Saves) but stays down. Our reading: a heal roll under 10 heals
nothing and does not stabilise.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource
from rules.errors import NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import base_code, roll_check, roll_code, turn_mods
from rules.systems.d6.events import HealRolled, Mod, Stabilised
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.health import apply_heal, set_last_gasp
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.sheet import SKILL_MEDICINE
from rules.systems.d6.state import D6State


def heal_dice(total: int) -> int:
    """The healing table: how many dice a heal roll of ``total`` grants."""
    if total < 10:
        return 0
    return min(5, (total - 10) // 5 + 1)


def heal(
    state: D6State,
    healer: str,
    target: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    bonus: int = 0,
    penalty_dice: int = 0,
) -> Outcome[D6State]:
    h = state.get(healer)
    t = state.get(target)
    if not h.can_act:
        raise NotAllowed(f"{h.name} cannot heal now.")
    if not h.is_pc:
        raise NotAllowed("The party heal pool is for the party; the GM heals NPCs with `/gm heal`.")
    if t.status == "dead":
        raise NotAllowed(f"{t.name} is dead; no heal helps now.")
    state, events = recompute_pool(state, "before a heal")
    if state.heal_pool.remaining <= 0:
        raise NotAllowed(
            "The party has no heals left this instance (the GM starts a new one with `/gm instance`)."
        )
    state = dataclasses.replace(
        state, heal_pool=dataclasses.replace(state.heal_pool, uses=state.heal_pool.uses + 1)
    )
    code, shown = base_code(h.sheet, "intellect", SKILL_MEDICINE)
    mods = list(turn_mods(penalty_dice))
    if bonus:
        mods.append(Mod("bonus", bonus))
    result = roll_check(code, mods, dice, house, f"{healer} heal")
    count = heal_dice(result.total)
    heal_roll = roll_code(DieCode(count), dice, house, f"{target} healed") if count else None
    after: list[Event] = []
    if heal_roll is not None:
        amount = heal_roll.total
        t = state.get(target)
        source = f"heal by {healer}"
        if t.last_gasp is not None:
            stored = t.last_gasp.stored_healing
            if stored:
                source += f" + {stored} stored healing"
            amount += stored
            state = set_last_gasp(state, target, stored_healing=0)
        state, after = apply_heal(state, target, amount, source)
        t = state.get(target)
        if t.last_gasp is not None:
            state = set_last_gasp(state, target, stabilised=True)
            after.append(Stabilised(target, t.hp))
    rolled = HealRolled(
        healer,
        target,
        result.code,
        result.total,
        count,
        shown + tuple(mods),
        result.roll,
        heal_roll,
        result.roll.dice + (heal_roll.dice if heal_roll else ()),
    )
    return Outcome(state, (*events, rolled, *after))
