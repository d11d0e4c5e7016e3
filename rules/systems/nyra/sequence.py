"""Order of play by Sequence (RULES.md §1 "Order"; the seed: "we start with the highest Sequence character
first and then descend").

Highest Sequence first; ties go to the higher AGI; still tied, a d10 roll-off, made once and kept for the
whole combat (``NyraCombatant.rolloff``). Tied roll-offs roll again (appending to the kept roll-off) until
every place is settled. Dice are drawn combatant by combatant in the order they entered (RULES.md §0):
first any missing Sequence (written to the combatant's sheet and announced with ``SheetFieldKept``, so the
shell keeps it on the character: RULES.md §4 "rolled once"), then the roll-off rounds. A combatant joining a running fight rolls only what it
needs; the others keep theirs.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome, SheetFieldKept
from rules.systems.nyra.events import CombatantJoined, OrderEntry, OrderSet, PhaseStarted, SequenceRolled
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.sheet import SEQUENCE_DIE
from rules.systems.nyra.state import NyraCombat, NyraCombatant
from rules.systems.nyra.turns import _start

ROLLOFF_DIE = 10
MAX_ROLLOFF_ROUNDS = 50


def order_key(combatant: NyraCombatant) -> tuple:
    return (-(combatant.sequence or 0), -combatant.agi, tuple(-v for v in combatant.rolloff))


def _needs_rolloff(combatant: NyraCombatant, group: list[NyraCombatant]) -> bool:
    """True when another combatant of the tie group has a roll-off this one's is a prefix of (or equal to)."""
    mine = combatant.rolloff
    return any(o is not combatant and o.rolloff[: len(mine)] == mine for o in group)


def settle(
    combatants: tuple[NyraCombatant, ...], dice: DiceSource
) -> tuple[tuple[NyraCombatant, ...], tuple[Event, ...], tuple[Die, ...]]:
    """Roll missing Sequences, then roll-offs until no two combatants share a place."""
    events: list[Event] = []
    drawn: list[Die] = []
    out = list(combatants)
    for i, c in enumerate(out):
        if c.sequence is None:
            die = dice.roll(SEQUENCE_DIE, f"{c.name} Sequence")
            # Rolled once and kept (RULES.md §4): on the combatant's sheet, and for the shell to save.
            sheet = dataclasses.replace(c.sheet, sequence=c.sheet.sequence or die.value)
            out[i] = dataclasses.replace(c, sequence=die.value, sheet=sheet)
            events.append(SequenceRolled(c.id, die.value, (die,)))
    for _ in range(MAX_ROLLOFF_ROUNDS):
        groups: dict[tuple[int, int], list[NyraCombatant]] = {}
        for c in out:
            groups.setdefault((c.sequence or 0, c.agi), []).append(c)
        rolling = [c for g in groups.values() for c in g if _needs_rolloff(c, g)]
        if not rolling:
            break
        ids = {c.id for c in rolling}
        for i, c in enumerate(out):
            if c.id in ids:
                die = dice.roll(ROLLOFF_DIE, f"{c.name} roll-off")
                drawn.append(die)
                out[i] = dataclasses.replace(c, rolloff=(*c.rolloff, die.value))
    else:  # pragma: no cover - 50 tied rounds of d10s cannot come from fair dice
        raise NotAllowed("The roll-off would not settle; check the queued dice (`/gm dice`).")
    return tuple(out), tuple(events), tuple(drawn)


def kept_sequences(combatants: tuple[NyraCombatant, ...], events: tuple[Event, ...]) -> tuple[Event, ...]:
    """A ``SheetFieldKept`` for each Sequence rolled in ``events`` for a player's character (last, after the
    order is announced); an NPC's is rolled again in its next fight, having no character to keep it."""
    rolled = {e.combatant: e.sequence for e in events if isinstance(e, SequenceRolled)}
    return tuple(
        SheetFieldKept(c.id, "sequence", str(rolled[c.id])) for c in combatants if c.id in rolled and c.is_pc
    )


def order_entries(combatants: tuple[NyraCombatant, ...]) -> tuple[OrderEntry, ...]:
    return tuple(OrderEntry(c.id, c.name, c.sequence or 0, c.agi, c.rolloff) for c in combatants)


def begin(state: NyraCombat, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """``/encounter begin``: set the order, start phase 1 and the first turn."""
    if state.begun:
        raise NotAllowed("The fight has already begun.")
    if not state.combatants:
        raise NotAllowed("Nobody is in the encounter yet; add combatants first.")
    if all(c.dead for c in state.combatants):
        raise NotAllowed("Every combatant is dead.")
    combatants, events, drawn = settle(state.combatants, dice)
    ordered = tuple(sorted(combatants, key=order_key))
    first = next(i for i, c in enumerate(ordered) if not c.dead)
    state = dataclasses.replace(
        state, combatants=combatants, order=tuple(c.id for c in ordered), phase=1, turn_index=first
    )
    out = _start(state, dice, house, (*events, OrderSet(order_entries(ordered), drawn), PhaseStarted(1)))
    return Outcome(out.state, (*out.events, *kept_sequences(combatants, events)))


def add_combatant(
    state: NyraCombat, combatant: NyraCombatant, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """Add a combatant. In a running fight it takes its place in the order; the current turn stays with its
    holder, so a newcomer sorting before it first acts in the next phase, one sorting after it in this one."""
    if any(c.id == combatant.id for c in state.combatants):
        raise InvalidInput(f"A combatant with id `{combatant.id}` is already in the encounter.")
    if not state.begun:
        return Outcome(
            dataclasses.replace(state, combatants=(*state.combatants, combatant)),
            (CombatantJoined(combatant.id, combatant.name, len(state.combatants)),),
        )
    combatants, events, drawn = settle((*state.combatants, combatant), dice)
    ordered = tuple(sorted(combatants, key=order_key))
    order = tuple(c.id for c in ordered)
    current = state.current_id
    state = dataclasses.replace(state, combatants=combatants, order=order, turn_index=order.index(current))
    position = order.index(combatant.id)
    return Outcome(
        state,
        (
            *events,
            CombatantJoined(combatant.id, combatant.name, position, drawn),
            OrderSet(order_entries(ordered)),
            *kept_sequences(combatants, events),
        ),
    )
