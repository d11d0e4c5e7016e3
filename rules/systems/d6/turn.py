"""Turns: the declared plan, lock-in and the multi-action penalty (seed "Turns", "Initiative Rerolling";
RULES.md §3 "Turn", "Initiative").

On its turn a combatant declares every action, then locks in; nothing resolves before the lock and nothing
can be added after it. Every counted action beyond the first costs −1D on **every** action of the turn.
The sheet's free actions (1 by default) do not count; further free actions do. Defenses are actions. Moving
up to half movement is free. Total defense and an initiative reroll are the whole turn. In Last Gasp the
only action is the Death Save. Dual wielding: a plan attacking with two different weapons takes −2D on
those attacks unless trained.

Our readings: an action that became impossible during lock-in (its target fell to an earlier action, a
throw whose planned contest did not reach 3) is skipped with a note instead of undoing the turn; ending a turn
with an unlocked plan discards the plan. A move planned with ``leave_melee`` resolves every engaged enemy's
free attack there and then (``movement.leave_melee``); a free attack that drops the actor makes the rest of
the plan impossible.

RULES.md §4: any action can be planned, a check (``check``: a stat or skill) and a named free action
(``free``) included; they count toward the multi-action penalty after the free-action allowance like any
other. A move while hidden (hidden now, or after a stealth planned before it) declares the new stealth check
it needs right after it (``of_move``: part of the move, so it does not count as an action, but its roll
carries the turn's penalty like every roll); at lock-in it is rolled when the mover is still hidden, and the
hidden status follows its result (impossible there, e.g. engaged: revealed). Lock-in ends the turn
(``ends_at_lock``) unless the house rule ``lock_ends_turn`` is off or something still waits for the player
(a Death Save owed). A turn that owes a Death Save cannot end unless a GM skips it (``last_gasp.py``).
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed, RulesError
from rules.events import Event, Note, Outcome
from rules.systems.d6 import attack as attack_mod
from rules.systems.d6 import grapple as grapple_mod
from rules.systems.d6 import last_gasp
from rules.systems.d6.checks import check
from rules.systems.d6.defense import defend
from rules.systems.d6.events import (
    ActionDeclared,
    DeathSaveOwed,
    FreeActionTaken,
    InitiativeRerolled,
    Revealed,
    StealthCheckDue,
    TurnEnded,
    TurnLocked,
    TurnStarted,
)
from rules.systems.d6.healing import heal
from rules.systems.d6.house import HouseRules
from rules.systems.d6.initiative import roll_one, start_new_round
from rules.systems.d6.last_gasp import DEATH_SAVE_STATS, death_save
from rules.systems.d6.movement import disengage, is_free_move, leave_melee, move
from rules.systems.d6.sheet import Sheet
from rules.systems.d6.state import ACTION_KINDS, STANCES, D6State, Plan, PlannedAction
from rules.systems.d6.stealth import LIGHT_MOD, stealth


@dataclasses.dataclass(frozen=True, slots=True)
class Penalty:
    free_declared: int
    free_allowed: int
    counted: int
    dice: int


def multi_action_penalty(actions: tuple[PlannedAction, ...], sheet: Sheet) -> Penalty:
    """−1D per counted action beyond the first; free actions beyond the sheet's allowance count. A move's
    own stealth check is part of the move, not an action."""
    actions = tuple(a for a in actions if not a.of_move)
    free = sum(1 for a in actions if a.free)
    counted = (len(actions) - free) + max(0, free - sheet.free_actions)
    return Penalty(free, sheet.free_actions, counted, max(0, counted - 1))


def _turn_holder(state: D6State, who: str) -> None:
    if state.round == 0:
        raise NotAllowed("The fight has not begun: the GM rolls initiative first.")
    if state.current != who:
        current = state.get(state.current).name if state.current else "nobody"
        raise NotAllowed(f"It is {current}'s turn, not {state.get(who).name}'s.")


def start_turn(state: D6State) -> Outcome[D6State]:
    """The current combatant's turn begins: its defense and an overwhelmed parry expire; in Last Gasp it is
    one more Last Gasp turn and the Death Save is owed."""
    who = state.current
    if who is None:
        raise NotAllowed("Nobody holds the turn.")
    state = state.update(who, defense=None, overwhelmed=False)
    state = last_gasp.begin_turn(state, who)
    state = dataclasses.replace(state, plan=Plan(who))
    events: list[Event] = [TurnStarted(who, state.round)]
    lg = state.get(who).last_gasp
    if lg is not None and lg.save_owed:
        events.append(DeathSaveOwed(who, lg.rounds, lg.rounds - 1))
    return Outcome(state, tuple(events))


def _validate(
    state: D6State, who: str, action: PlannedAction, plan: tuple[PlannedAction, ...]
) -> PlannedAction:
    c = state.get(who)
    if action.kind not in ACTION_KINDS:
        raise InvalidInput(f"Unknown action `{action.kind}`. Actions: {', '.join(ACTION_KINDS)}.")
    if c.status != "active":
        raise NotAllowed(f"{c.name} is out of the fight.")
    if c.last_gasp is not None:
        if action.kind != "death_save" or plan:
            raise NotAllowed(f"{c.name} is in Last Gasp: the only action is the Death Save.")
    elif action.kind == "death_save":
        raise NotAllowed(f"{c.name} is not in Last Gasp.")
    if action.kind == "reroll_initiative" and plan:
        raise NotAllowed("Rerolling initiative takes the whole turn; it cannot join other actions.")
    if plan and (plan[0].kind == "reroll_initiative" or (plan[0].kind == "defend" and plan[0].total)):
        raise NotAllowed("This turn is already wholly taken (total defense or an initiative reroll).")
    if action.kind == "defend" and action.total and plan:
        raise NotAllowed("Total defense allows no other action this turn, not even a free one.")
    if action.target:
        state.get(action.target)
    if action.kind in ("attack", "heal", "disengage") and not action.target:
        raise InvalidInput(f"A {action.kind} needs a target.")
    if action.kind == "attack" and action.weapon:
        attack_mod.pick_weapon(c.sheet, action.weapon)
    if action.kind == "defend" and action.stance not in STANCES:
        raise InvalidInput("Stances: block, parry, dodge (with total for total defense).")
    if action.kind == "grapple":
        if action.move not in grapple_mod.GRAPPLE_MOVES:
            raise InvalidInput(f"Grapple moves: {', '.join(grapple_mod.GRAPPLE_MOVES)}.")
        if not action.target:
            raise InvalidInput("A grapple needs a target.")
    if action.of_move and action.kind != "stealth":
        raise InvalidInput("Only a stealth check can belong to a move.")
    if action.kind == "death_save" and action.stat not in DEATH_SAVE_STATS:
        raise InvalidInput("A Death Save uses `charisma` or `perception`.")
    if action.kind == "stealth" and action.light not in LIGHT_MOD:
        raise InvalidInput(f"Light is one of {', '.join(LIGHT_MOD)}.")
    if action.kind == "check" and not action.stat:
        raise InvalidInput("A check needs a stat or skill.")
    if action.kind == "move":
        if action.distance < 0:
            raise InvalidInput("Distance cannot be negative.")
        # Half movement or less is free; more is an action.
        return dataclasses.replace(action, free=is_free_move(c.sheet, action.distance))
    if action.kind == "free":
        return dataclasses.replace(action, free=True)
    return action


def declare(state: D6State, who: str, action: PlannedAction) -> Outcome[D6State]:
    """Add one action to the plan. Nothing is rolled; after lock-in nothing can be added."""
    _turn_holder(state, who)
    plan = state.plan if state.plan is not None and state.plan.actor == who else Plan(who)
    if plan.locked:
        raise NotAllowed("The turn is locked in; no actions can be added now.")
    action = _validate(state, who, action, plan.actions)
    added = [action]
    if action.kind == "move" and action.distance > 0 and hidden_when_moving(state, who, plan.actions):
        added.append(PlannedAction("stealth", light=action.light, of_move=True))
    events: list[Event] = []
    for a in added:
        plan = dataclasses.replace(plan, actions=(*plan.actions, a))
        events.append(ActionDeclared(who, a, len(plan.actions)))
    state = dataclasses.replace(state, plan=plan)
    return Outcome(state, tuple(events))


def hidden_when_moving(state: D6State, who: str, before: tuple[PlannedAction, ...]) -> bool:
    """Whether ``who`` may be hidden when a move declared after ``before`` resolves: hidden now or after a
    planned stealth, unless a later planned attack reveals it first."""
    hidden = bool(state.get(who).hidden_from)
    for a in before:
        if a.kind == "stealth":
            hidden = True
        elif a.kind == "attack":
            hidden = False
    return hidden


def lock_in(state: D6State, who: str, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
    """Lock the plan and resolve its actions in order, each with the turn's penalty dice."""
    _turn_holder(state, who)
    plan = state.plan
    if plan is None or plan.actor != who or not plan.actions:
        raise NotAllowed("Declare at least one action before locking in.")
    if plan.locked:
        raise NotAllowed("This turn is already locked in.")
    sheet = state.get(who).sheet
    pen = multi_action_penalty(plan.actions, sheet)
    state = dataclasses.replace(state, plan=dataclasses.replace(plan, locked=True))
    events: list[Event] = [
        TurnLocked(
            who,
            tuple(a.kind for a in plan.actions),
            pen.free_declared,
            pen.free_allowed,
            pen.counted,
            pen.dice,
        )
    ]
    weapons = {a.weapon.lower() or "-" for a in plan.actions if a.kind == "attack"}
    dual = len(weapons) > 1
    for i, action in enumerate(plan.actions):
        if action.of_move and not state.get(who).hidden_from:
            events.append(
                Note(f"{state.get(who).name} is not hidden when moving: no stealth check is needed.")
            )
            continue
        try:
            out = resolve(state, who, action, dice, house, penalty_dice=pen.dice, dual_wield=dual)
        except RulesError as err:
            if action.of_move:  # the new check cannot be made: the mover is seen
                state = state.update(who, hidden_from=())
                events.append(Revealed(who, f"moved and could not stay hidden: {err.reason}"))
                continue
            what = action.kind.replace("_", " ") + (f" ({action.move})" if action.kind == "grapple" else "")
            events.append(Note(f"{state.get(who).name}'s {what} is skipped: {_sentence(err.reason)}"))
            continue
        state = out.state
        checked_next = i + 1 < len(plan.actions) and plan.actions[i + 1].of_move
        # The check a move while hidden needs is in the plan: it follows now instead of being "due".
        events.extend(e for e in out.events if not (checked_next and isinstance(e, StealthCheckDue)))
    return Outcome(state, tuple(events))


def _sentence(reason: str) -> str:
    """A refusal's reason after a colon, ending in one full stop."""
    return reason.strip().rstrip(".") + "."


def ends_at_lock(state: D6State, who: str, house: HouseRules) -> bool:
    """After lock-in: the turn ends by itself unless the house rule keeps it open or the player still owes
    something (a Death Save)."""
    return house.lock_ends_turn and not last_gasp.owes_death_save(state, who)


def resolve(
    state: D6State,
    who: str,
    a: PlannedAction,
    dice: DiceSource,
    house: HouseRules,
    *,
    penalty_dice: int = 0,
    dual_wield: bool = False,
) -> Outcome[D6State]:
    """One action with the turn's penalty (used by lock-in; also a one-action turn)."""
    k = a.kind
    if k == "attack":
        return attack_mod.attack(
            state,
            who,
            a.target,
            dice,
            house,
            weapon=a.weapon,
            called=a.called,
            backstab=a.backstab,
            dual_wield=dual_wield,
            bonus=a.bonus,
            penalty_dice=penalty_dice,
            gm_stage=a.gm_stage,
        )
    if k == "defend":
        return defend(
            state, who, a.stance, dice, house, total=a.total, penalty_dice=penalty_dice, bonus=a.bonus
        )
    if k == "grapple":
        if a.move == "start":
            return grapple_mod.start(state, who, a.target, dice, house, penalty_dice=penalty_dice)
        if a.move == "contest":
            return grapple_mod.contest(state, who, a.target, dice, house, penalty_dice=penalty_dice)
        if a.move == "throw":
            return grapple_mod.throw(state, who, a.target, dice, house, storeys=a.storeys, into=a.into)
        if a.move == "pin":
            return grapple_mod.pin(state, who, a.target)
        if a.move == "takedown":
            return grapple_mod.takedown(state, who, a.target, dice, house, modifier=a.modifier)
        return grapple_mod.release(state, who, a.target)
    if k == "heal":
        return heal(state, who, a.target, dice, house, bonus=a.bonus, penalty_dice=penalty_dice)
    if k == "check":
        c = state.get(who)
        rolled = check(who, c.sheet, a.stat, dice, house, penalty_dice=penalty_dice, bonus=a.bonus)
        if a.note:
            rolled = dataclasses.replace(rolled, what=f"{rolled.what} ({a.note})")
        if a.difficulty is None:
            return Outcome(state, (rolled,))
        verdict = "success" if rolled.total > a.difficulty else "failure"
        said = Note(f"{rolled.total} against difficulty {a.difficulty} (to beat): {verdict}")
        return Outcome(state, (rolled, said))
    if k == "move":
        if a.leave_melee:  # every engaged enemy's free attack, resolved now
            return leave_melee(state, who, a.distance, dice, house)
        return move(state, who, a.distance)
    if k == "disengage":
        return disengage(state, who, a.target, dice, house, penalty_dice=penalty_dice)
    if k == "stealth":
        return stealth(state, who, dice, house, light=a.light, bonus=a.bonus, penalty_dice=penalty_dice)
    if k == "reroll_initiative":
        return reroll_initiative(state, who, dice, house)
    if k == "death_save":
        return death_save(state, who, a.stat, dice, house)
    return Outcome(state, (FreeActionTaken(who, a.note or "a free action"),))


def reroll_initiative(state: D6State, who: str, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
    """Reroll Perception; the new sum replaces the old one (higher or lower) from the next round."""
    c = state.get(who)
    rolled = roll_one(c, dice, house)
    state = state.update(who, next_initiative=rolled.total)
    event = InitiativeRerolled(who, c.initiative, rolled.total, state.round + 1, rolled.roll, rolled.dice)
    return Outcome(state, (event,))


def _skips_turn(state: D6State, cid: str) -> bool:
    c = state.get(cid)
    return c.status != "active" or bool(c.last_gasp and c.last_gasp.stabilised)


def end_turn(
    state: D6State, who: str, dice: DiceSource, *, skip_death_save: bool = False
) -> Outcome[D6State]:
    """End ``who``'s turn and start the next combatant's (a new round applies rerolled initiatives). A
    Death Save still owed refuses it, unless ``skip_death_save`` (a GM's call): then it is skipped."""
    _turn_holder(state, who)
    events: list[Event] = []
    if last_gasp.owes_death_save(state, who):
        if not skip_death_save:
            c = state.get(who)
            assert c.last_gasp is not None
            raise NotAllowed(
                f"{c.name} is in Last Gasp and owes this turn's Death Save (Last Gasp turn "
                f"{c.last_gasp.rounds}): make it with `/deathsave`; only a GM may skip it."
            )
        skipped = last_gasp.skip(state, who)
        state = skipped.state
        events.extend(skipped.events)
    if state.plan is not None and state.plan.actions and not state.plan.locked:
        events.append(Note(f"{who}'s declared actions were never locked in and are dropped."))
    c = state.get(who)
    if c.stagger_turns:
        state = state.update(who, stagger_turns=c.stagger_turns - 1)
    events.append(TurnEnded(who, state.round))
    state = dataclasses.replace(state, plan=None)
    if not any(not _skips_turn(state, cid) for cid in state.order):
        return Outcome(state, (*events, Note("Nobody is left to take a turn.")))
    while True:
        if state.turn + 1 >= len(state.order):
            out = start_new_round(state, dice)
            state = out.state
            events.extend(out.events)
        else:
            state = dataclasses.replace(state, turn=state.turn + 1)
        if state.current is not None and not _skips_turn(state, state.current):
            break
    out = start_turn(state)
    return Outcome(out.state, (*events, *out.events))


def declare_and_lock(
    state: D6State, who: str, action: PlannedAction, dice: DiceSource, house: HouseRules
) -> Outcome[D6State]:
    """A one-action turn (`lock` on the command): declare and lock in at once."""
    declared = declare(state, who, action)
    locked = lock_in(declared.state, who, dice, house)
    return Outcome(locked.state, (*declared.events, *locked.events))
