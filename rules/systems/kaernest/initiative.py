"""Initiative (seed "Initiative / Order of Actions"; RULES.md §2 "Time").

Initiative = 1d12 + Instinct + aptitudes/defects (the sheet's ``initiative_modifier``), + Luck if the
player spends it, capped at 30; NPCs use 6 instead of the d12 (house ``npc_initiative``). It is rolled once
per combat, again only after being knocked out. Dice are drawn combatant by combatant in the order they
entered (RULES.md §0). The initiative is the segment of the combatant's first turn: in the current minute
if that segment is still to come, else in the next. (The seed's example adds Reflex; RULES.md decided on
Instinct, as the rules text says.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.kaernest import clock
from rules.systems.kaernest.events import InitiativeRolled, InitiativeSet
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import Modifier, sum_of
from rules.systems.kaernest.state import Combatant, KaernestState

NPC_ROLL = 6
CAP = clock.SEGMENTS
# A total below 1 would name no segment; it acts on the last one (not stated by the seed).
FLOOR = 1


def initiative_terms(combatant: Combatant, spend_luck: bool) -> tuple[Modifier, ...]:
    terms = [Modifier("Instinct", combatant.sheet.instinct)]
    if combatant.sheet.initiative_modifier:
        terms.append(Modifier("aptitudes/defects", combatant.sheet.initiative_modifier))
    if spend_luck:
        terms.append(Modifier("Luck", combatant.sheet.luck))
    return tuple(terms)


def _place(combatant: Combatant, initiative: int, now: int) -> Combatant:
    return dataclasses.replace(
        combatant, initiative=initiative, ready_tick=clock.first_tick(initiative, now), pending=None
    )


def roll_initiative(
    state: KaernestState,
    dice: DiceSource,
    house: HouseRules,
    *,
    luck: Iterable[str] = (),
    reroll: Iterable[str] = (),
) -> Outcome[KaernestState]:
    """Roll for every combatant that is up and has no initiative (or is named in ``reroll``), in entry
    order. ``luck``: the ids whose players add Luck."""
    luck = set(luck)
    reroll = set(reroll)
    for cid in luck | reroll:
        state.get(cid)  # an unknown name is refused before any die is drawn
    if luck and not house.luck_on_initiative:
        raise NotAllowed(
            "Luck cannot be added to initiative at this table (house rule `luck_on_initiative`)."
        )
    events: list[Event] = []
    for combatant in sorted(state.combatants, key=lambda c: c.entry):
        if not combatant.up or (combatant.initiative is not None and combatant.id not in reroll):
            continue
        terms = initiative_terms(combatant, combatant.id in luck)
        if combatant.npc and house.npc_initiative == "fixed":
            roll, drawn, fixed = NPC_ROLL, (), True
        else:
            die = dice.roll(12, f"initiative {combatant.name}")
            roll, drawn, fixed = die.value, (die,), False
        uncapped = roll + sum_of(terms)
        value = min(CAP, max(FLOOR, uncapped))
        placed = _place(combatant, value, state.tick)
        state = state.replace(placed)
        events.append(
            InitiativeRolled(
                combatant.id,
                roll,
                fixed,
                terms,
                uncapped,
                value,
                clock.minute_of(placed.ready_tick),  # type: ignore[arg-type]
                clock.segment_of(placed.ready_tick),  # type: ignore[arg-type]
                drawn,
            )
        )
    return Outcome(state, tuple(events))


def set_initiative(state: KaernestState, combatant_id: str, value: int) -> Outcome[KaernestState]:
    """``/gm set initiative``: a GM-chosen initiative; the combatant's next turn is at that segment (its
    action under way, if any, is dropped)."""
    combatant = state.get(combatant_id)
    if isinstance(value, bool) or not isinstance(value, int) or not FLOOR <= value <= CAP:
        raise InvalidInput(f"Initiative is a segment from {FLOOR} to {CAP}, not {value!r}.")
    if not combatant.up:
        raise NotAllowed(f"{combatant.name} is {combatant.condition}; heal it first.")
    placed = _place(combatant, value, state.tick)
    event = InitiativeSet(
        combatant.id,
        value,
        clock.minute_of(placed.ready_tick),
        clock.segment_of(placed.ready_tick),  # type: ignore[arg-type]
    )
    return Outcome(state.replace(placed), (event,))
