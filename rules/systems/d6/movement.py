"""Moving and disengaging (seed "Moving"; RULES.md §3 "Turn").

Moving up to half the sheet's movement is a free action; more is an action. A combatant engaged in melee
must first disengage: Agility against each enemy's Agility, one action per enemy, higher wins (tie: the
enemy). Leaving melee without disengaging gives every engaged enemy a free attack: ``move(...,
leave_melee=True)`` only says who is owed one (``FreeAttackOwed``) and ends the engagement; ``leave_melee``
(what a planned move with ``leave_melee`` resolves to at lock-in) also resolves them. A hidden combatant that
moves owes a new stealth check (``StealthCheckDue``).

``leave_melee``, our readings: the mover leaves (``Moved``), then each engaged enemy, in initiative order (those
not in this round's order last), makes its free attack at once: ``attack(..., free_attack=True)`` with its
default weapon against the mover's save as it stands (a parry or dodge of this turn counts, and is used up or
overwhelmed as usual), each attack's dice in the core's order (to-hit, then damage after a hit). Each attack
follows its ``FreeAttackOwed``. A free attack that drops the mover (Last Gasp, out, dead) ends the series:
the rest lapse with a ``Note`` (whether to strike a fallen body is the GM's call on the enemy's own turn).
Then the engagement ends on both sides.
"""

from __future__ import annotations

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed, RulesError
from rules.events import Event, Note, Outcome
from rules.systems.d6.attack import attack
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


def leave_melee(
    state: D6State, who: str, distance: int, dice: DiceSource, house: HouseRules
) -> Outcome[D6State]:
    """Move ``distance``, leaving melee without disengaging: every engaged enemy's free attack is resolved
    now (see the module docstring). Not engaged: a plain move."""
    left = move(state, who, distance, leave_melee=True)  # every check, Moved and who is owed a free attack
    owed = [e for e in left.events if isinstance(e, FreeAttackOwed)]
    if not owed:
        return left
    rank = {cid: i for i, cid in enumerate(state.order)}
    owed.sort(key=lambda e: rank.get(e.attacker, len(rank)))  # stable: the rest in engagement order
    events: list[Event] = [e for e in left.events if isinstance(e, Moved)]
    mover = state.get(who)
    for i, owe in enumerate(owed):
        if not state.get(who).can_act:
            lapsed = ", ".join(state.get(o.attacker).name for o in owed[i:])
            events.append(Note(f"{mover.name} is down: the remaining free attacks ({lapsed}) lapse."))
            break
        events.append(owe)
        try:
            out = attack(state, owe.attacker, who, dice, house, free_attack=True)
        except RulesError as err:  # e.g. an enemy pinned by someone else may only attack its pinner
            events.append(Note(f"{state.get(owe.attacker).name}'s free attack is skipped: {err.reason}"))
            continue
        state = out.state
        events.extend(out.events)
    # Then the engagement ends on both sides (after the attacks: a melee attack engages).
    for o in state.combatants:
        if who in o.engaged_with:
            state = state.update(o.id, engaged_with=tuple(x for x in o.engaged_with if x != who))
    state = state.update(who, engaged_with=())
    events.extend(e for e in left.events if not isinstance(e, Moved | FreeAttackOwed))
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
