"""Initiative (seed "Initiative / Order of Actions"; RULES.md §2 "Time").

Initiative = 1d12 + Instinct + aptitudes/defects (the sheet's ``initiative_modifier``), + Luck if the
player spends it, capped at 30; NPCs use 6 instead of the d12 (house ``npc_initiative``). It is rolled once
per combat, again only after being knocked out. Dice are drawn combatant by combatant in the order they
entered (RULES.md §0). The initiative is the segment of the combatant's first turn: in the current minute
if that segment is still to come, else in the next. (The seed's example adds Reflex; RULES.md decided on
Instinct, as the rules text says.)

Luck (RULES.md §4): a player may pledge it when joining or before ``begin`` (``pledge_luck``); the next roll
adds it and it is used up for this fight (the combatant's Luck becomes 0: "If they desire, they can also
add Luck to the roll" says nothing of getting it back mid-fight; the character sheet keeps its Luck for the
next fight, and ``/gm set luck`` restores it here).

Ties (RULES.md §4): equal initiative goes to higher Instinct, then a d12 roll-off made once and kept; still
tied roll-offs roll again (appending), among those still tied only. Roll-off dice come after every
initiative die of the same operation, in entry order, and each tie is announced (``InitiativeTied``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.kaernest import clock
from rules.systems.kaernest.events import (
    InitiativeRolled,
    InitiativeSet,
    InitiativeTied,
    LuckPledged,
    LuckSpent,
)
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import Modifier, sum_of
from rules.systems.kaernest.state import Combatant, KaernestState, order_key

NPC_ROLL = 6
ROLLOFF_DIE = 12
MAX_ROLLOFF_ROUNDS = 50
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
    surprise: Mapping[str, int] | None = None,
) -> Outcome[KaernestState]:
    """Roll for every combatant that is up and has no initiative (or is named in ``reroll``), in entry
    order. ``luck``: the ids whose players add Luck; ``surprise``: a flat bonus per id (an ambushing side),
    added before the cap and before ties are settled."""
    luck = set(luck)
    reroll = set(reroll)
    for cid in luck | reroll:
        state.get(cid)  # an unknown name is refused before any die is drawn
    if luck and not house.luck_on_initiative:
        raise NotAllowed(
            "Luck cannot be added to initiative at this table (house rule `luck_on_initiative`)."
        )
    if house.luck_on_initiative:
        luck |= {c.id for c in state.combatants if c.spend_luck}
    events: list[Event] = []
    rolled: set[str] = set()
    for combatant in sorted(state.combatants, key=lambda c: c.entry):
        if not combatant.up or (combatant.initiative is not None and combatant.id not in reroll):
            continue
        spends = combatant.id in luck and combatant.sheet.luck > 0
        terms = initiative_terms(combatant, spends)
        if surprise and surprise.get(combatant.id):
            terms = (*terms, Modifier("surprise", surprise[combatant.id]))
        if combatant.npc and house.npc_initiative == "fixed":
            roll, drawn, fixed = NPC_ROLL, (), True
        else:
            die = dice.roll(12, f"initiative {combatant.name}")
            roll, drawn, fixed = die.value, (die,), False
        uncapped = roll + sum_of(terms)
        value = min(CAP, max(FLOOR, uncapped))
        placed = _place(combatant, value, state.tick)
        if spends or combatant.spend_luck:
            sheet = dataclasses.replace(combatant.sheet, luck=0) if spends else combatant.sheet
            placed = dataclasses.replace(placed, sheet=sheet, spend_luck=False)
        state = state.replace(placed)
        rolled.add(combatant.id)
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
        if spends:
            events.append(LuckSpent(combatant.id, combatant.sheet.luck))
    state, tied = settle_ties(state, dice, rolled)
    return Outcome(state, (*events, *tied))


def _needs_rolloff(combatant: Combatant, group: list[Combatant]) -> bool:
    """Another of the tie group has a roll-off this one's equals or is a prefix of: not yet told apart."""
    mine = combatant.rolloff
    return any(o.id != combatant.id and o.rolloff[: len(mine)] == mine for o in group)


def _tie_groups(state: KaernestState) -> dict[tuple[int, int], list[Combatant]]:
    groups: dict[tuple[int, int], list[Combatant]] = {}
    for c in sorted(state.combatants, key=lambda c: c.entry):
        if c.initiative is not None:
            groups.setdefault((c.initiative, c.sheet.instinct), []).append(c)
    return groups


def settle_ties(
    state: KaernestState, dice: DiceSource | None, touched: set[str]
) -> tuple[KaernestState, tuple[Event, ...]]:
    """Roll d12 roll-offs until no two combatants of equal initiative and Instinct share a place, and
    announce each tie that involves a combatant in ``touched`` (just rolled or set). Without ``dice`` a
    needed roll-off is refused (nothing changes)."""
    drawn: dict[int, list] = {}
    for _ in range(MAX_ROLLOFF_ROUNDS):
        rolling = [c for g in _tie_groups(state).values() for c in g if _needs_rolloff(c, g)]
        if not rolling:
            break
        if dice is None:
            names = ", ".join(c.name for c in rolling)
            raise NotAllowed(
                f"{names} would tie on initiative and Instinct, which needs a d12 roll-off; "
                "choose an initiative nobody with the same Instinct has."
            )
        for c in sorted(rolling, key=lambda c: c.entry):
            die = dice.roll(ROLLOFF_DIE, f"initiative roll-off {c.name}")
            drawn.setdefault(c.initiative, []).append(die)  # type: ignore[arg-type]
            state = state.replace(dataclasses.replace(c, rolloff=(*c.rolloff, die.value)))
    else:  # pragma: no cover - 50 tied rounds of d12s cannot come from fair dice
        raise NotAllowed("The initiative roll-off would not settle; check the queued dice (`/gm dice`).")
    events: list[Event] = []
    by_value: dict[int, list[Combatant]] = {}
    for c in state.combatants:
        if c.initiative is not None:
            by_value.setdefault(c.initiative, []).append(c)
    for value in sorted(by_value, reverse=True):
        group = sorted(by_value[value], key=order_key)
        if len(group) < 2 or not any(c.id in touched for c in group):
            continue
        events.append(
            InitiativeTied(
                value,
                tuple(c.id for c in group),
                tuple(c.sheet.instinct for c in group),
                tuple(c.rolloff for c in group),
                tuple(drawn.get(value, ())),
            )
        )
    return state, tuple(events)


def pledge_luck(
    state: KaernestState, combatant_id: str, house: HouseRules, *, pledge: bool = True
) -> Outcome[KaernestState]:
    """Add the combatant's Luck to its next initiative roll (``pledge`` False withdraws the wish). Only
    before that roll: at ``/encounter join``, or before ``/encounter begin``."""
    combatant = state.get(combatant_id)
    if pledge and not house.luck_on_initiative:
        raise NotAllowed(
            "Luck cannot be added to initiative at this table (house rule `luck_on_initiative`)."
        )
    if combatant.initiative is not None:
        raise NotAllowed(
            f"{combatant.name} already has initiative {combatant.initiative}; Luck is added when it is rolled."
        )
    if pledge and combatant.sheet.luck <= 0:
        raise NotAllowed(f"{combatant.name} has no Luck to spend.")
    if combatant.spend_luck == pledge:
        raise NotAllowed(
            f"{combatant.name} {'already spends' if pledge else 'does not spend'} Luck on initiative."
        )
    updated = dataclasses.replace(combatant, spend_luck=pledge)
    return Outcome(state.replace(updated), (LuckPledged(combatant.id, combatant.sheet.luck, pledge),))


def set_initiative(
    state: KaernestState, combatant_id: str, value: int, dice: DiceSource | None = None
) -> Outcome[KaernestState]:
    """``/gm set initiative``: a GM-chosen initiative; the combatant's next turn is at that segment (its
    action under way, if any, is dropped). A new tie is settled by a roll-off (``dice`` needed then)."""
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
    state, tied = settle_ties(state.replace(dataclasses.replace(placed, rolloff=())), dice, {placed.id})
    return Outcome(state, (event, *tied))
