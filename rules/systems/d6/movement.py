"""Moving and disengaging (seed "Moving"; RULES.md §3 "Turn").

Moving up to half the sheet's movement is a free action; more is an action. A combatant engaged in melee
must first disengage: Agility against each enemy's Agility, one action per enemy, higher wins (tie: the
enemy). Leaving melee without disengaging gives every engaged enemy a free attack (``FreeAttackOwed``
events; the shell resolves them with ``attack(..., free_attack=True)``). A hidden combatant that moves owes
a new stealth check (``StealthCheckDue``).
"""

from __future__ import annotations

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import base_code, roll_check, turn_mods
from rules.systems.d6.events import Disengaged, FreeAttackOwed, Moved, StealthCheckDue
from rules.systems.d6.house import HouseRules
from rules.systems.d6.sheet import Sheet
from rules.systems.d6.state import D6State


def is_free_move(sheet: Sheet, distance: int) -> bool:
    """Half movement or less is free (2 × distance ≤ movement, so an odd half rounds down)."""
    return 2 * distance <= sheet.movement


def move(state: D6State, who: str, distance: int, *, leave_melee: bool = False) -> Outcome[D6State]:
    c = state.get(who)
    if not c.can_act:
        raise NotAllowed(f"{c.name} cannot move now.")
    if distance < 0:
        raise InvalidInput("Distance cannot be negative.")
    if distance > c.sheet.movement:
        raise NotAllowed(f"{c.name} moves at most {c.sheet.movement} in a turn.")
    if state.grapples_of(who):
        raise NotAllowed(f"{c.name} is in a grapple; contest or release it first.")
    if c.defense is not None and c.defense.total:
        raise NotAllowed("Total defense allows no moving at all.")
    events: list[Event] = []
    engaged = [e for e in c.engaged_with if state.has(e) and state.get(e).can_act]
    if engaged and distance > 0:
        if not leave_melee:
            raise NotAllowed(
                f"{c.name} is engaged in melee with {', '.join(engaged)}: disengage first, "
                "or leave melee and give each a free attack."
            )
        for enemy in engaged:
            events.append(FreeAttackOwed(enemy, who, "left melee without disengaging"))
            e = state.get(enemy)
            state = state.update(enemy, engaged_with=tuple(x for x in e.engaged_with if x != who))
        state = state.update(who, engaged_with=())
    events.insert(0, Moved(who, distance, is_free_move(c.sheet, distance)))
    if c.hidden_from and distance > 0:
        events.append(StealthCheckDue(who))
    return Outcome(state, tuple(events))


def disengage(
    state: D6State, who: str, enemy: str, dice: DiceSource, house: HouseRules, *, penalty_dice: int = 0
) -> Outcome[D6State]:
    c = state.get(who)
    e = state.get(enemy)
    if not c.can_act:
        raise NotAllowed(f"{c.name} cannot act now.")
    if enemy not in c.engaged_with:
        raise NotAllowed(f"{c.name} is not engaged with {e.name}.")
    code, shown = base_code(c.sheet, "agility", "")
    mods = turn_mods(penalty_dice)
    mine = roll_check(code, mods, dice, house, f"{who} disengage")
    theirs = roll_check(e.sheet.agility, (), dice, house, f"{enemy} agility")
    success = mine.total > theirs.total
    if success:
        state = state.update(who, engaged_with=tuple(x for x in c.engaged_with if x != enemy))
        state = state.update(enemy, engaged_with=tuple(x for x in e.engaged_with if x != who))
    event = Disengaged(
        who,
        enemy,
        mine.total,
        theirs.total,
        success,
        mine.roll,
        theirs.roll,
        shown + mods,
        mine.roll.dice + theirs.roll.dice,
    )
    return Outcome(state, (event,))
