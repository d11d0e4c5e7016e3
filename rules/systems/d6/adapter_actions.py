"""The D6 campaign behind the actions of ``rules.encounter.System`` (`/attack`, `/defend`, `/grapple`, `/heal`, `/deathsave`,
`/move`, `/disengage`, `/stealth`, `/initiative reroll`, `/lockin`): the mixin ``D6Actions`` that ``D6System``
inherits. A thin translation of an ``Action`` into the core's ``PlannedAction`` and its ``declare`` / ``lock_in``
(``turn.py``), with every check the core would only make later (or less clearly) made up front, so a refusal
always comes before any die is drawn and changes nothing (states are never mutated).

The flow (RULES.md §3 "Turn"; COMMANDS.md "Turns and actions"):

- **Whose turn.** Every action needs a begun fight and the actor holding the running turn (``turn()``'s
  ``actors``); anyone else is refused with ``NotAllowed`` naming whose turn it is. An actor or target that is
  not in the encounter is ``NotFound``.
- **Declaring.** ``attack``, ``defend``, ``grapple``, ``heal``, ``move``, ``disengage`` and ``stealth`` add one
  action to the turn's plan; nothing is rolled. The events are the core ``ActionDeclared`` and a ``Note`` with
  the plan so far and the multi-action penalty every rolled action of it will carry at lock-in (for the
  ephemeral reply); a heal adds a ``Note`` with the heals left. With ``action.lock`` the plan, this action
  included, is locked in and resolved at once (the events of ``lockin`` follow the declaration's).
- **lockin** resolves the declared plan in order, each roll with the turn's penalty (core ``lock_in``: an
  action that became impossible on the way, e.g. its target fell, is skipped with a note). The events: a
  ``Note`` with the plan, the core ``TurnLocked`` and every resolution, a ``Note`` with the heals left when
  the plan healed, and a closing ``Note`` saying how the turn goes on. **The turn then ends** (RULES.md §4,
  core ``ends_at_lock``; the next turn's events follow) unless the house rule ``lock_ends_turn`` is off or
  a Death Save is still owed: then the plan stays locked (nothing more can be declared,
  ``allowed_actions`` is empty) and the player ends it with `/turn end` (or the GM with `/gm next`). When
  the actor can take no more turns after its own lock-in (a Death Save that bled it out), ``turn()`` turns
  idle and the GM moves on with `/gm next`; the closing ``Note`` says which.
- **reroll** (`/initiative reroll`) takes the whole turn: refused when anything else is declared, else
  declared and resolved at once (the new total counts from the next round).
- **deathsave** is the only action of a character in Last Gasp (every other kind is refused with a sentence
  pointing to `/deathsave`) and is refused for anyone else. It resolves at once. ``stat`` is ``charisma`` or
  ``perception``; left out, the higher of the two on the sheet (a tie: charisma). The growing bleed-out malus,
  the stored healing and a rally are the core's (``last_gasp.py``).
- Defenses last until the defender's next turn (core ``start_turn``); total defense and a reroll take the
  whole turn (core).

Per kind:

- ``attack``: ``target`` required (never the actor itself: no D6 rule allows it; a dead target is refused; a
  pinned attacker may only attack its pinner). ``weapon`` one the actor carries, or ``unarmed``; left out, the
  core's default (the first weapon carried, else unarmed). The plan records the weapon's name, so two attacks
  with the same weapon never count as dual wielding. ``aim`` (any text) = a called shot (house bonus to the
  save); ``bonus`` a flat bonus to the roll. ``type`` and ``grip`` mean nothing in D6 (a ``Note`` says so).
- ``defend``: ``stance`` block/parry/dodge or total-block/total-parry/total-dodge; block needs a shield, parry
  a melee weapon or unarmed training; ``bonus`` flat. Total defense only as the turn's one action (core).
- ``grapple``: ``grapple`` start/contest/throw/pin/takedown/release against ``target``, checked against the
  counter **as the plan will leave it at best** (RULES.md §4, ``grapple.planned_grapple``: a contest then a
  throw is accepted when the contest could reach 3; the throw is refused at resolution, with a note, if it
  did not): a move not allowed is refused naming the moves allowed against that target. Start: no grapple yet and the target is up.
  Contest: in the grapple and not pinned. Throw/pin/take-down: the counter at 3 in the actor's favour (pin
  once). Release: not behind. ``storeys`` (0 to 100) and ``into`` (``wall``, ``object`` or a combatant id,
  not the two grapplers) go with a throw; ``bonus`` is the GM's environment modifier of a take-down.
- ``heal``: ``target`` (the healer itself too: the seed does not forbid it; not a dead one); the healer must be
  a PC with a heal left in the party pool, counting heals already planned this turn; an empty pool is refused
  saying so. The heal uses the pool at lock-in whatever it rolls (core).
- ``move``: ``distance`` required, 0 to the sheet's movement (half of it free, core). Refused while in a
  grapple, unless the plan already has a release or throw of that grapple (a grapple engages the two; a
  release ends the grapple, not the melee; a throw ends both). Engaged in melee, there are two ways out, and
  without either the move is refused naming both: a disengage from each engaged enemy declared first (a
  failed one then skips the move at lock-in, core), or ``leave`` (`/move leave:True`): leave melee without
  disengaging. A leaving move is planned with ``leave_melee``; at lock-in the mover leaves and every enemy
  still engaged with it then gets a free attack, resolved there and then in initiative order
  (``movement.leave_melee``: each a ``FreeAttackOwed`` followed by the attack's events); then the
  engagement ends. A free attack that drops the mover to Last Gasp ends the series and makes the rest of
  the plan impossible (skipped with a note, core). ``leave`` while engaged with nobody is a plain move (a
  ``Note`` says so: only an earlier action of the plan engaging it would matter). After a leaving move,
  nothing in the plan counts as engaged (``stealth`` may follow). ``cost`` is Nyra's: ignored.
- ``disengage``: ``target`` = the enemy, one the actor is engaged with, once per plan.
- ``stealth``: ``light`` dim/normal/daylight (default normal); refused while engaged or grappling (as ``move``).
  A ``move`` while hidden gets its new stealth check declared right after it (core ``declare``; ``light``
  on the move is its light).
- ``check`` (`/check` on the actor's turn): ``stat`` an attribute or a skill of the sheet, ``difficulty`` an
  optional number to beat, ``note`` what it is for; it counts toward the multi-action penalty.
- ``free``: ``note`` names the free action (a shout); within the sheet's free actions it does not count.
- ``attack`` with ``flank``: the backstab flag (+2 critical stage, overwhelms a parry), shown in the plan.

Options a kind does not use are ignored with a ``Note`` saying so (never silently).

``choices`` never raises: ``weapon`` → the actor's weapons and ``unarmed``; ``stance`` → the six stances, block
variants only with a shield and parry variants only with a melee weapon or unarmed training (all six when the
actor is unknown); ``grapple`` (or ``action``) → the grapple moves allowed now against ``target`` (without a
target: allowed against anyone); ``into`` → ``wall``, ``object`` and the ids of the combatants other than the
actor and the target that are not dead; ``stat`` (or ``with``) → charisma, perception; ``light`` → dim, normal,
daylight; anything else → ``()``.

``allowed_actions``: () when it is not the actor's running turn or the plan is locked; in Last Gasp
``("deathsave",)``; after total defense or a reroll was declared ``("lockin",)``; else the declared kinds the
actor could use now (heal only for a PC with a heal left, grapple when some move is allowed, disengage when
engaged, move and stealth when nothing holds it) plus ``reroll`` on an empty plan or ``lockin`` on a non-empty
one.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.dice import DiceSource
from rules.encounter import ACTION_KINDS, Action
from rules.errors import InvalidInput, NotAllowed, RulesError
from rules.events import Event, Note, Outcome
from rules.systems.d6 import gm
from rules.systems.d6.attack import pick_weapon
from rules.systems.d6.defense import parse_stance
from rules.systems.d6.grapple import GRAPPLE_MOVES, planned_grapple
from rules.systems.d6.heal_pool import recompute_pool
from rules.systems.d6.house import HouseRules
from rules.systems.d6.last_gasp import DEATH_SAVE_STATS
from rules.systems.d6.sheet import ATTRIBUTES
from rules.systems.d6.state import Combatant, D6State, PlannedAction
from rules.systems.d6.stealth import LIGHT_MOD
from rules.systems.d6.turn import declare, ends_at_lock, lock_in, multi_action_penalty

DECLARED: tuple[str, ...] = ("attack", "defend", "grapple", "heal", "move", "disengage", "stealth")
# Beyond the shared action commands: a check and a named free action plan into the turn too (RULES.md §4).
D6_KINDS: tuple[str, ...] = (*ACTION_KINDS, "check", "free")
MAX_NOTE = 80
MAX_DIFFICULTY = 1000
STANCE_CHOICES: tuple[str, ...] = ("block", "parry", "dodge", "total-block", "total-parry", "total-dodge")
STANCE_EFFECTS = {
    "block": "your shield takes the blow: a roll for the save",
    "parry": "your weapon turns it: a roll for the save",
    "dodge": "Agility rolled for the save",
}
INTO_FIXED: tuple[str, ...] = ("wall", "object")
LIGHTS: tuple[str, ...] = ("dim", "normal", "daylight")
MAX_BONUS = 100
MAX_STOREYS = 100

_KINDS = {k.replace("_", ""): k for k in D6_KINDS} | {
    "deathsave": "deathsave",
    "initiativereroll": "reroll",
    "rerollinitiative": "reroll",
}

# The options each kind reads (``target`` and the rest); anything else given is ignored with a note.
_USED: dict[str, tuple[str, ...]] = {
    "attack": ("target", "weapon", "aim", "bonus", "flank"),
    "defend": ("stance", "bonus"),
    "grapple": ("grapple", "target", "storeys", "into", "bonus"),
    "heal": ("target", "bonus"),
    "deathsave": ("stat",),
    "move": ("distance", "leave", "light"),
    "disengage": ("target",),
    "stealth": ("light", "bonus"),
    "check": ("stat", "difficulty", "bonus", "note"),
    "free": ("note",),
    "reroll": (),
    "lockin": (),
}
_OPTION_NAMES = {"damage_type": "type", "grapple": "action", "stat": "with"}


def _kind(text: str | None) -> str:
    key = "".join((text or "").split()).lower().replace("-", "").replace("_", "")
    if key not in _KINDS:
        raise InvalidInput(f"Unknown action `{text}`. Actions: {', '.join(D6_KINDS)}.")
    return _KINDS[key]


def _name(state: D6State, cid: str) -> str:
    return state.get(cid).name if state.has(cid) else cid


# -- whose turn ----------------------------------------------------------------------------------------
def _turn_actor(state: D6State) -> str | None:
    """The combatant holding the running turn (as ``D6System.turn``), None when nobody does."""
    holder = state.current
    if state.round == 0 or holder is None or state.plan is None or not state.has(holder):
        return None
    return holder if gm.takes_turns(state.get(holder)) else None


def _on_turn(state: D6State, cid: str) -> Combatant:
    c = state.get(cid)  # NotFound
    if state.round == 0:
        raise NotAllowed("The fight has not begun: the GM rolls initiative first (`/encounter begin`).")
    holder = _turn_actor(state)
    if holder is None:
        raise NotAllowed("No turn is running now; the GM moves on with `/gm next`.")
    if holder != cid:
        raise NotAllowed(f"It is {state.get(holder).name}'s turn, not {c.name}'s.")
    return c


def _planned(state: D6State) -> tuple[PlannedAction, ...]:
    return state.plan.actions if state.plan is not None else ()


def _whole_turn(plan: tuple[PlannedAction, ...]) -> bool:
    return bool(plan) and (
        plan[0].kind == "reroll_initiative" or (plan[0].kind == "defend" and plan[0].total)
    )


# -- what holds a combatant in place --------------------------------------------------------------------
def _grapples_held(state: D6State, c: Combatant) -> list[str]:
    """Ids of those ``c`` grapples that no planned release or throw ends first."""
    ending = {a.target for a in _planned(state) if a.kind == "grapple" and a.move in ("release", "throw")}
    return [g.other(c.id) for g in state.grapples_of(c.id) if g.other(c.id) not in ending]


def _engaged(state: D6State, c: Combatant) -> list[str]:
    """Ids of the active enemies ``c`` is engaged with that no planned disengage (or throw) parts it from;
    none once a move leaving melee is planned (it ends every engagement)."""
    if any(a.kind == "move" and a.leave_melee for a in _planned(state)):
        return []
    covered = {
        a.target
        for a in _planned(state)
        if a.kind == "disengage" or (a.kind == "grapple" and a.move == "throw")
    }
    return [e for e in c.engaged_with if state.has(e) and state.get(e).can_act and e not in covered]


def _names(state: D6State, ids: list[str]) -> str:
    return ", ".join(_name(state, i) for i in ids)


# -- grapple moves -------------------------------------------------------------------------------------
def grapple_moves(state: D6State, actor: str, target: str) -> tuple[str, ...]:
    """The grapple moves ``actor`` may declare against ``target`` now: the counter as the plan declared so
    far can leave it at best (a contest then a throw is accepted when the contest could reach 3)."""
    a, t = state.get(actor), state.get(target)
    if actor == target or not a.can_act or t.status == "dead":
        return ()
    g = state.grapple(actor, target)
    if g is not None and g.pinned_id() == actor:
        return ()
    best = planned_grapple(state, actor, target, _planned_by(state, actor))
    if best.counter is None:
        return ("start",) if t.can_act else ()
    moves = {"contest"}
    if best.counter >= 3:
        moves |= {"throw", "takedown"} | (set() if best.pinned else {"pin"})
    if best.counter >= 0:
        moves.add("release")
    return tuple(m for m in GRAPPLE_MOVES if m in moves)


def _planned_by(state: D6State, actor: str) -> tuple[PlannedAction, ...]:
    plan = state.plan
    return plan.actions if plan is not None and plan.actor == actor else ()


def _grapple_refusal(state: D6State, actor: str, target: str, move: str) -> str:
    a, t = state.get(actor), state.get(target)
    g = state.grapple(actor, target)
    best = planned_grapple(state, actor, target, _planned_by(state, actor))
    now = g.toward(actor) if g is not None else None
    at_best = "" if best.counter == now else f", {best.counter} at best after the planned moves"
    if t.status == "dead":
        why = f"{t.name} is dead"
    elif g is not None and g.pinned_id() == actor:
        why = (
            f"{a.name} is pinned by {t.name}: it cannot contest or let go, only attack {t.name} to break "
            f"free (damage adding up to a quarter of {t.name}'s max HP)"
        )
    elif best.counter is None and g is not None:
        why = f"the plan already ends the grapple of {a.name} and {t.name}"
    elif best.counter is None:
        why = f"{a.name} is not grappling {t.name}" if t.can_act else f"{t.name} is down"
    elif move == "start":
        why = f"{a.name} and {t.name} are already grappling" + (" (planned)" if g is None else "")
    elif move == "release":
        why = f"{a.name} is behind in this grapple (counter {best.counter}{' at best' if at_best else ''}) and must contest to get free"
    elif move == "pin" and best.pinned:
        why = f"{t.name} is already pinned"
    else:
        shown = "not yet begun" if now is None else f"it is {now}"
        why = f"a {move} needs the grapple counter at 3 in {a.name}'s favour ({shown}{at_best})"
    allowed = grapple_moves(state, actor, target)
    tail = f"Allowed now: {', '.join(allowed)}." if allowed else f"No grapple move against {t.name} now."
    return f"{a.name} cannot {move} {t.name}: {why}. {tail}"


# -- the heal pool -------------------------------------------------------------------------------------
def _heals_left(state: D6State) -> tuple[int, int]:
    """(heals left counting those already planned this turn, pool size), as the core would see it now."""
    pool = recompute_pool(state, "")[0].heal_pool
    planned = sum(1 for a in _planned(state) if a.kind == "heal")
    return max(0, pool.remaining - planned), pool.capacity


# -- describing a plan ---------------------------------------------------------------------------------
def describe(names: dict[str, str], a: PlannedAction) -> str:
    """A declared action in the plan's text (``names``: the combatants' by id, looked up once for the whole
    plan, which is told with every declaration)."""
    target, into = names.get(a.target, a.target), names.get(a.into, a.into)
    k = a.kind
    if k == "attack":
        text = f"attack {target} with {a.weapon or 'the first weapon'}"
        if a.called:
            text += f" (called shot{': ' + a.note if a.note else ''})"
        if a.backstab:
            text += " (flank/backstab)"
    elif k == "defend":
        text = f"total {a.stance}" if a.total else a.stance
    elif k == "grapple":
        text = f"grapple {a.move} {target}"
        if a.move == "throw" and a.storeys:
            text += f" off {a.storeys} storey{'s' if a.storeys != 1 else ''}"
        if a.move == "throw" and a.into:
            text += f" into {into}"
    elif k in ("heal", "disengage"):
        text = f"{k} {target}"
    elif k == "move":
        text = f"move {a.distance}" + (", leaving melee without disengaging" if a.leave_melee else "")
    elif k == "stealth":
        text = f"stealth ({a.light} light)"
        if a.of_move:
            text = f"the move's new stealth check ({a.light} light, part of the move)"
    elif k == "check":
        text = f"check {a.stat}" + (f" ({a.note})" if a.note else "")
        if a.difficulty is not None:
            text += f" to beat {a.difficulty}"
    elif k == "free":
        text = a.note or "free action"
    elif k == "death_save":
        text = f"Death Save ({a.stat})"
    else:
        text = a.note or k.replace("_", " ")
    if a.bonus and k != "grapple":
        text += f" {a.bonus:+d}"
    if k == "grapple" and a.modifier:
        text += f" (environment {a.modifier:+d})"
    return f"{text} (free)" if a.free else text


def plan_text(state: D6State, who: str, *, locked: bool) -> str:
    plan = _planned(state)
    c = state.get(who)
    pen = multi_action_penalty(plan, c.sheet)
    steps = _plan_steps(state.names(), plan)
    count = f"{pen.counted} action{'s count' if pen.counted != 1 else ' counts'}"
    free = f"{pen.free_declared} free declared, {pen.free_allowed} allowed" if pen.free_declared else ""
    penalty = f"every roll at −{pen.dice}D" if pen.dice else "no multi-action penalty"
    if locked:  # a penalty is said once, by the lock-in's own line right after this one
        counted = f"{count} ({free})" if free else count
        return f"{c.name} locks in: {steps}." + ("" if pen.dice else f" {counted}: {penalty}.")
    # the penalty before the steps: a long plan's text is cut when shown, and the penalty is what matters
    why = f"{count}; {free}" if free else count
    return f"{c.name}'s plan so far, {penalty} at lock-in ({why}): {steps}. `/lockin` resolves it."


def _plan_steps(names: dict[str, str], plan: Sequence[PlannedAction]) -> str:
    """The plan's actions, numbered in order; a run of the same action is told once with its numbers
    (``2–4. attack Wolf with spear``)."""
    steps = []
    for first, last, text in runs([describe(names, a) for a in plan]):
        steps.append(f"{first + 1}. {text}" if last == first else f"{first + 1}–{last + 1}. {text}")
    return "; ".join(steps)


def runs(texts: Sequence[str]) -> list[tuple[int, int, str]]:
    """``texts`` with each run of equal neighbours as one: (its first index, its last index, the text)."""
    found: list[tuple[int, int, str]] = []
    for i, text in enumerate(texts):
        if found and found[-1][2] == text:
            found[-1] = (found[-1][0], i, text)
        else:
            found.append((i, i, text))
    return found


# -- building one planned action -----------------------------------------------------------------------
def _target(state: D6State, c: Combatant, action: Action, what: str) -> Combatant:
    ref = (action.target or "").strip()
    if not ref:
        raise InvalidInput(f"Name the combatant {c.name} {what} (`target`).")
    return state.get(ref)  # NotFound


def _bonus(action: Action) -> int:
    bonus = action.bonus or 0
    if not -MAX_BONUS <= bonus <= MAX_BONUS:
        raise InvalidInput(f"A bonus is from −{MAX_BONUS} to {MAX_BONUS}, not {bonus}.")
    return bonus


def _unused_notes(kind: str, action: Action) -> list[Event]:
    used = set(_USED[kind])
    if kind == "grapple":
        move = _grapple_move(action)
        if move != "throw":
            used -= {"storeys", "into"}
        if move != "takedown":
            used.discard("bonus")
    given = {
        "target": bool((action.target or "").strip()),
        "weapon": bool((action.weapon or "").strip()),
        "damage_type": bool((action.damage_type or "").strip()),
        "aim": bool((action.aim or "").strip()),
        "grip": bool((action.grip or "").strip()),
        "bonus": bool(action.bonus),
        "stance": bool((action.stance or "").strip()),
        "grapple": bool((action.grapple or "").strip()),
        "storeys": bool(action.storeys),
        "into": bool((action.into or "").strip()),
        "stat": bool((action.stat or "").strip()),
        "distance": action.distance is not None,
        "cost": action.cost is not None,
        "light": bool((action.light or "").strip()),
        "leave": bool(action.leave),
        "flank": bool(action.flank),
        "note": bool((action.note or "").strip()),
        "difficulty": bool((action.difficulty or "").strip()),
    }
    label = "/initiative reroll" if kind == "reroll" else f"/{kind}"
    return [
        Note(f"`{_OPTION_NAMES.get(option, option)}` means nothing for `{label}` in D6; it is ignored.")
        for option, present in given.items()
        if present and option not in used
    ]


def _attack(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    t = _target(state, c, action, "attacks")
    if t.id == c.id:
        raise NotAllowed(f"{c.name} cannot attack itself; choose another target.")
    if t.status == "dead":
        raise NotAllowed(f"{t.name} is already dead.")
    pin = next((g for g in state.grapples_of(c.id) if g.pinned_id() == c.id), None)
    if pin is not None and not pin.has(t.id):
        pinner = state.get(pin.other(c.id)).name
        raise NotAllowed(f"{c.name} is pinned and can only attack {pinner} (to break free).")
    weapon = pick_weapon(c.sheet, (action.weapon or "").strip())  # InvalidInput naming the weapons
    aim = (action.aim or "").strip()
    return PlannedAction(
        "attack",
        target=t.id,
        weapon=weapon.name,
        called=bool(aim),
        backstab=bool(action.flank),
        bonus=_bonus(action),
        note=aim,
    )


def _defend(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    if not (action.stance or "").strip():
        raise InvalidInput(f"Choose a stance for {c.name}: {', '.join(STANCE_CHOICES)}.")
    stance, total = parse_stance(action.stance or "")
    if stance == "block" and not c.sheet.has_shield:
        raise NotAllowed(f"{c.name} has no shield to block with; parry or dodge instead.")
    if stance == "parry" and not (any(w.melee for w in c.sheet.weapons) or c.sheet.unarmed_trained):
        raise NotAllowed(f"{c.name} needs a melee weapon (or unarmed training) to parry; dodge instead.")
    return PlannedAction("defend", stance=stance, total=total, bonus=_bonus(action))


def _grapple_move(action: Action) -> str:
    return "".join((action.grapple or "").split()).lower().replace("-", "").replace("_", "")


def _grapple(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    move = _grapple_move(action)
    if move not in GRAPPLE_MOVES:
        raise InvalidInput(f"Grapple actions: {', '.join(GRAPPLE_MOVES)}.")
    t = _target(state, c, action, f"grapples ({move})")
    if t.id == c.id:
        raise NotAllowed(f"{c.name} cannot grapple itself; choose another target.")
    if move not in grapple_moves(state, c.id, t.id):
        raise NotAllowed(_grapple_refusal(state, c.id, t.id, move))
    storeys, into, modifier = 0, "", 0
    if move == "throw":
        storeys = action.storeys or 0
        if not 0 <= storeys <= MAX_STOREYS:
            raise InvalidInput(f"Storeys are from 0 to {MAX_STOREYS}, not {storeys}.")
        into = (action.into or "").strip()
        if into.lower() in INTO_FIXED:
            into = into.lower()
        elif into:
            hit = state.get(into)  # NotFound
            if hit.id in (c.id, t.id):
                raise InvalidInput(
                    f"{t.name} cannot be thrown into {hit.name}: into `wall`, `object` or another combatant."
                )
            into = hit.id
    if move == "takedown":
        modifier = _bonus(action)
    return PlannedAction("grapple", move=move, target=t.id, storeys=storeys, into=into, modifier=modifier)


def _heal(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    t = _target(state, c, action, "heals")
    if not c.is_pc:
        raise NotAllowed("The party heal pool is for the party; the GM heals NPCs with `/gm heal`.")
    if t.status == "dead":
        raise NotAllowed(f"{t.name} is dead; no heal helps now.")
    left, _ = _heals_left(state)
    if left <= 0:
        planned = any(a.kind == "heal" for a in _planned(state))
        raise NotAllowed(
            "The party's last heal this instance is already planned this turn."
            if planned and recompute_pool(state, "")[0].heal_pool.remaining > 0
            else "The party has no heals left this instance (the GM starts a new one with `/gm instance`)."
        )
    return PlannedAction("heal", target=t.id, bonus=_bonus(action))


def _grapple_hold_refusal(state: D6State, c: Combatant, doing: str) -> None:
    held = _grapples_held(state, c)
    if held:
        raise NotAllowed(
            f"{c.name} is in a grapple with {_names(state, held)}: {doing} only after releasing or "
            "throwing (declare that first) or contesting free."
        )


def _held_refusal(state: D6State, c: Combatant, doing: str) -> None:
    _grapple_hold_refusal(state, c, doing)
    engaged = _engaged(state, c)
    if engaged:
        raise NotAllowed(
            f"{c.name} is engaged in melee with {_names(state, engaged)}: declare `/disengage` from each first "
            "(one action per enemy)."
        )


def _move(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    most = c.sheet.movement
    if action.distance is None:
        raise InvalidInput(
            f"Say how far {c.name} moves (`distance`, up to {most}; up to {most // 2} is free)."
        )
    if action.distance < 0:
        raise InvalidInput("Distance cannot be negative.")
    if action.distance > most:
        raise NotAllowed(f"{c.name} moves at most {most} in a turn.")
    leave = bool(action.leave) and action.distance > 0  # a move of 0 leaves nothing
    if action.distance > 0:
        _grapple_hold_refusal(state, c, "it can move")
        engaged = _engaged(state, c)
        if engaged and not leave:
            raise NotAllowed(
                f"{c.name} is engaged in melee with {_names(state, engaged)}: declare `/disengage` from each "
                "first (one action per enemy), or leave melee without disengaging with `/move leave:True` "
                "(each of them gets a free attack)."
            )
    light = (action.light or "normal").strip().lower()
    if light not in LIGHT_MOD:
        raise InvalidInput(f"Light is one of {', '.join(LIGHTS)}.")
    return PlannedAction("move", distance=action.distance, leave_melee=leave, light=light)


def _leave_notes(state: D6State, c: Combatant, action: Action, planned: PlannedAction) -> list[Event]:
    """What a move leaving melee will bring at lock-in, as far as it can be told now."""
    if planned.kind != "move" or not action.leave:
        return []
    if not planned.leave_melee:
        return [Note("A move of 0 leaves nothing: `leave` changes nothing.")]
    engaged = [e for e in c.engaged_with if state.has(e) and state.get(e).can_act]
    if not engaged:
        return [
            Note(
                f"{c.name} is not engaged in melee now: `leave` changes nothing unless an earlier action "
                "of the plan engages it."
            )
        ]
    parting = {a.target for a in _planned(state) if a.kind == "disengage"}
    sure = [e for e in engaged if e not in parting]
    maybe = [e for e in engaged if e in parting]

    def get(ids: list[str]) -> str:
        return f"{_names(state, ids)} {'gets' if len(ids) == 1 else 'each get'} an attack on {c.name}"

    if sure:
        said = get(sure) + (f"; {_names(state, maybe)} too if the disengage fails" if maybe else "")
    else:
        said = get(maybe) + " if the disengage fails"
    return [Note(f"Leaving melee without disengaging: at lock-in {said}. Then the engagement ends.")]


def _disengage(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    e = _target(state, c, action, "disengages from")
    if e.id == c.id:
        raise NotAllowed(f"{c.name} cannot disengage from itself.")
    if e.id not in c.engaged_with:
        engaged = [x for x in c.engaged_with if state.has(x)]
        tail = f" It is engaged with {_names(state, engaged)}." if engaged else " It is engaged with nobody."
        raise NotAllowed(f"{c.name} is not engaged with {e.name}.{tail}")
    if any(a.kind == "disengage" and a.target == e.id for a in _planned(state)):
        raise NotAllowed(f"A disengage from {e.name} is already declared this turn.")
    return PlannedAction("disengage", target=e.id)


def _stealth(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    light = (action.light or "normal").strip().lower()
    if light not in LIGHT_MOD:
        raise InvalidInput(f"Light is one of {', '.join(LIGHTS)}.")
    _held_refusal(state, c, "stealth is possible")
    return PlannedAction("stealth", light=light, bonus=_bonus(action))


def _note(action: Action, what: str) -> str:
    note = " ".join((action.note or "").split())
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"Say {what} in at most {MAX_NOTE} characters.")
    return note


def _check(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    stat = (action.stat or "").strip().lower()
    stats = (*ATTRIBUTES, *(s.name for s in c.sheet.skills))
    if stat not in stats:
        raise InvalidInput(
            f"Name what {c.name} rolls (`stat`): one of {', '.join(stats)}."
            if not stat
            else f"`{action.stat}` is not an attribute or skill of {c.name}. Choose one of: {', '.join(stats)}."
        )
    difficulty = None
    text = (action.difficulty or "").strip()
    if text:
        try:
            difficulty = int(text)
        except ValueError:
            raise InvalidInput(
                f"A D6 difficulty is a target number to beat (0 to {MAX_DIFFICULTY}), not `{text}`."
            ) from None
        if not 0 <= difficulty <= MAX_DIFFICULTY:
            raise InvalidInput(f"A D6 difficulty is from 0 to {MAX_DIFFICULTY}, not {difficulty}.")
    return PlannedAction(
        "check", stat=stat, bonus=_bonus(action), difficulty=difficulty, note=_note(action, "what it is for")
    )


def _free(state: D6State, c: Combatant, action: Action) -> PlannedAction:
    note = _note(action, "the free action")
    if not note:
        raise InvalidInput(f"Name {c.name}'s free action (`note`, e.g. `shout a warning`).")
    return PlannedAction("free", note=note)


def _death_save_stat(c: Combatant, action: Action) -> str:
    stat = (action.stat or "").strip().lower()
    if not stat:
        return "perception" if c.sheet.perception > c.sheet.charisma else "charisma"
    if stat not in DEATH_SAVE_STATS:
        raise InvalidInput("A Death Save rolls Physique with `charisma` or `perception`.")
    return stat


_BUILDERS = {
    "attack": _attack,
    "defend": _defend,
    "grapple": _grapple,
    "heal": _heal,
    "move": _move,
    "disengage": _disengage,
    "stealth": _stealth,
    "check": _check,
    "free": _free,
}


class D6Actions:
    """The actions of ``rules.encounter.System`` for the D6 campaign; mixed into ``D6System`` (see the module docstring)."""

    # -- act -----------------------------------------------------------------------------------------
    def act(self, state: D6State, action: Action, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
        kind = _kind(action.kind)
        c = _on_turn(state, action.actor)
        plan = _planned(state)
        assert state.plan is not None  # _on_turn: a running turn has a plan
        if state.plan.locked:
            raise NotAllowed(
                f"{c.name}'s turn is already locked in; nothing can be added now. End it with `/turn end`."
            )
        if c.last_gasp is not None and kind != "deathsave":
            raise NotAllowed(f"{c.name} is in Last Gasp: the only action is the Death Save (`/deathsave`).")
        if kind == "lockin":
            return self._lock_in(state, c, _unused_notes(kind, action), dice, house)
        if kind == "deathsave":
            if c.last_gasp is None:
                raise NotAllowed(f"{c.name} is not in Last Gasp; there is no Death Save to make.")
            planned = PlannedAction("death_save", stat=_death_save_stat(c, action))
            return self._declare_and_lock(state, c, planned, _unused_notes(kind, action), dice, house)
        if _whole_turn(plan):
            raise NotAllowed(
                f"{c.name}'s turn is already wholly taken (total defense or an initiative reroll): "
                "`/lockin` to resolve it."
            )
        if kind == "reroll":
            if plan:
                raise NotAllowed(
                    "Rerolling initiative takes the whole turn; it cannot join the actions already declared."
                )
            planned = PlannedAction("reroll_initiative")
            return self._declare_and_lock(state, c, planned, _unused_notes(kind, action), dice, house)
        planned = _BUILDERS[kind](state, c, action)
        notes = [*_unused_notes(kind, action), *_leave_notes(state, c, action, planned)]
        if action.lock:
            return self._declare_and_lock(state, c, planned, notes, dice, house)
        declared = declare(state, c.id, planned)  # the core's own checks (total defense alone, …)
        events: list[Event] = [*notes, *declared.events, Note(plan_text(declared.state, c.id, locked=False))]
        if planned.kind == "heal":
            left, size = _heals_left(declared.state)
            events.append(Note(f"Heal pool: {left} of {size} left after this heal (it is used at lock-in)."))
        return Outcome(declared.state, tuple(events))

    def _declare_and_lock(
        self,
        state: D6State,
        c: Combatant,
        planned: PlannedAction,
        notes: list[Event],
        dice: DiceSource,
        house: HouseRules,
    ) -> Outcome[D6State]:
        declared = declare(state, c.id, planned)
        return self._lock_in(declared.state, c, [*notes, *declared.events], dice, house)

    def _lock_in(
        self, state: D6State, c: Combatant, before: list[Event], dice: DiceSource, house: HouseRules
    ) -> Outcome[D6State]:
        if not _planned(state):
            raise NotAllowed("Declare at least one action before locking in.")
        shown = Note(plan_text(state, c.id, locked=True))
        locked = lock_in(state, c.id, dice, house)
        after = locked.state
        events: list[Event] = [*before, shown, *locked.events]
        if any(a.kind == "heal" for a in _planned(after)):
            pool = after.heal_pool
            events.append(
                Note(
                    f"Heal pool: {pool.remaining} of {pool.capacity} left this instance (instance {after.instance})."
                )
            )
        if _turn_actor(after) != c.id:
            events.append(Note(f"{c.name} can take no more turns now; the GM moves on with `/gm next`."))
        elif ends_at_lock(after, c.id, house):
            events.append(Note(f"{c.name}'s turn is done."))
            ended = gm.advance(after, c.id, dice, house)
            after = ended.state
            events.extend(ended.events)
        else:
            events.append(Note(f"{c.name}'s turn is locked in; end it with `/turn end`."))
        return Outcome(after, tuple(events))

    # -- choices -------------------------------------------------------------------------------------
    def choices(self, state: D6State, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        try:
            return self._choices(state, actor, option, action)
        except Exception:  # autocomplete never fails: no suggestions instead
            return ()

    def choice_label(self, state: D6State, actor: str | None, option: str, value: str, action: Action) -> str:
        """weapon: its damage and kind; stance: what it rolls; anything else: the value."""
        try:
            key = (option or "").strip().lower()
            if key == "stance":
                base = value.removeprefix("total-")
                effect = STANCE_EFFECTS.get(base, base)
                return f"{value} — " + (f"the whole turn on it; {effect}" if value != base else effect)
            ref = (actor or action.actor or "").strip()
            if key != "weapon" or not ref or not state.has(ref):
                return value
            w = next(w for w in state.get(ref).sheet.weapons if w.name == value)
            return f"{value} — {w.damage} {w.kind}, {w.hands}-handed"
        except Exception:  # autocomplete never fails: the bare value instead
            return value

    def _choices(self, state: D6State, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        key = (option or "").strip().lower()
        ref = (actor or action.actor or "").strip()
        me = state.get(ref) if ref and state.has(ref) else None
        if key == "stat" or key == "with":
            return DEATH_SAVE_STATS
        if key == "light":
            return LIGHTS
        if key == "weapon":
            if me is None:
                return ()
            carried = tuple(w.name for w in me.sheet.weapons)
            return carried if any(w.lower() == "unarmed" for w in carried) else (*carried, "unarmed")
        if key == "stance":
            if me is None:
                return STANCE_CHOICES
            shield = me.sheet.has_shield
            parry = any(w.melee for w in me.sheet.weapons) or me.sheet.unarmed_trained
            return tuple(
                s
                for s in STANCE_CHOICES
                if (shield or not s.endswith("block")) and (parry or not s.endswith("parry"))
            )
        if key == "grapple" or (key == "action" and _kind(action.kind) == "grapple"):
            if me is None:
                return ()
            target = (action.target or "").strip()
            if target:
                return grapple_moves(state, me.id, target) if state.has(target) else ()
            found: set[str] = set()
            for other in state.combatants:
                found |= set(grapple_moves(state, me.id, other.id))
            return tuple(m for m in GRAPPLE_MOVES if m in found)
        if key == "into":
            skip = {ref, (action.target or "").strip()}
            return (
                *INTO_FIXED,
                *(c.id for c in state.combatants if c.id not in skip and c.status != "dead"),
            )
        return ()

    # -- allowed_actions -----------------------------------------------------------------------------
    def allowed_actions(self, state: D6State, actor: str) -> tuple[str, ...]:
        try:
            c = state.get(actor)
        except RulesError:
            return ()
        if _turn_actor(state) != c.id or state.plan is None or state.plan.locked:
            return ()
        plan = _planned(state)
        if c.last_gasp is not None:
            return () if plan else ("deathsave",)
        if _whole_turn(plan):
            return ("lockin",)
        others = [o for o in state.combatants if o.id != c.id and o.status != "dead"]
        allowed: list[str] = []
        for kind in DECLARED:
            if kind == "attack" and not others:
                continue
            if kind == "grapple" and not any(grapple_moves(state, c.id, o.id) for o in others):
                continue
            if kind == "heal" and (not c.is_pc or _heals_left(state)[0] <= 0):
                continue
            if kind == "disengage" and not _engaged(state, c):
                continue
            if kind in ("move", "stealth") and (_grapples_held(state, c) or _engaged(state, c)):
                continue
            allowed.append(kind)
        allowed.append("lockin" if plan else "reroll")
        return tuple(allowed)


__all__ = ["D6Actions", "describe", "grapple_moves", "plan_text"]
