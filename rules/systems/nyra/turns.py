"""Turns and phases (RULES.md §1 "Order" and "Delay": one pass through everyone is a phase; the delay pool is
reset to AGI and bleeding is applied at the start of each combatant's turn).

``start_turn`` is the operation the shell calls at a turn's start; ``end_turn`` ends the current turn and
starts the next living combatant's (a dead combatant is skipped). A combatant that bleeds to death at the
start of its turn loses that turn.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource
from rules.errors import NotAllowed
from rules.events import Event, Outcome
from rules.systems.nyra.bleeding import bleed_rate
from rules.systems.nyra.damage import apply_location_damage
from rules.systems.nyra.delay import turn_pool
from rules.systems.nyra.events import PhaseStarted, TurnEnded, TurnStarted
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.state import NyraCombat


def start_turn(state: NyraCombat, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """Reset the current combatant's delay pool to AGI and apply its bleeding."""
    if not state.begun or state.current is None:
        raise NotAllowed("The fight has not begun yet; the GM starts it with `/encounter begin`.")
    if state.turn_started:
        raise NotAllowed(f"{state.current.name}'s turn has already started.")
    return _start(state, dice, house, ())


def _start(
    state: NyraCombat, dice: DiceSource, house: HouseRules, events: tuple[Event, ...]
) -> Outcome[NyraCombat]:
    combatant = state.current
    assert combatant is not None
    bleeding = combatant.bleeding
    combatant = dataclasses.replace(combatant, delay_pool=turn_pool(combatant))
    state = dataclasses.replace(
        state.with_combatant(combatant),
        turn_started=True,
        volley_ended=False,
        turn_number=state.turn_number + 1,
    )
    out: list[Event] = [
        *events,
        TurnStarted(
            combatant.id, combatant.name, state.phase, state.turn_number, combatant.delay_pool, bleeding
        ),
    ]
    # Each location bleeds by the state it was in when the turn began.
    for location, wound in combatant.wounds().items():
        rate = bleed_rate(wound)
        if rate:
            combatant, bled = apply_location_damage(combatant, location, rate, "bleeding")
            out.extend(bled)
    state = state.with_combatant(combatant)
    if combatant.dead:
        return finish_turn(state, "dead", dice, house, tuple(out))
    return Outcome(state, tuple(out))


def finish_turn(
    state: NyraCombat, reason: str, dice: DiceSource, house: HouseRules, events: tuple[Event, ...] = ()
) -> Outcome[NyraCombat]:
    """End the current turn (the rest of the delay is lost) and start the next living combatant's."""
    combatant = state.current
    assert combatant is not None
    lost = combatant.delay_pool
    state = state.with_combatant(dataclasses.replace(combatant, delay_pool=0))
    out: tuple[Event, ...] = (*events, TurnEnded(combatant.id, combatant.name, reason, lost))
    state = dataclasses.replace(state, turn_started=False, volley_ended=False)
    living = [i for i, cid in enumerate(state.order) if not state.get(cid).dead]
    if not living:
        return Outcome(state, out)
    following = [i for i in living if i > state.turn_index]
    if following:
        state = dataclasses.replace(state, turn_index=following[0])
    else:
        state = dataclasses.replace(state, turn_index=living[0], phase=state.phase + 1)
        out = (*out, PhaseStarted(state.phase))
    return _start(state, dice, house, out)


def end_turn(
    state: NyraCombat, actor: str, dice: DiceSource, house: HouseRules, *, reason: str = "player"
) -> Outcome[NyraCombat]:
    """``/turn end`` (``reason`` ``player``) or ``/gm next`` (``gm``): the actor must hold the turn."""
    current = state.current
    if not state.begun or current is None:
        raise NotAllowed("The fight has not begun yet; the GM starts it with `/encounter begin`.")
    if state.get(actor).id != current.id:
        raise NotAllowed(f"It is {current.name}'s turn, not {state.get(actor).name}'s.")
    if not state.turn_started:
        raise NotAllowed(f"{current.name}'s turn has not started yet.")
    return finish_turn(state, reason, dice, house)
