"""Kaernest behind the actions of ``rules.encounter.System`` (`/attack`, `/defend`, `/move`, …): the mixin
``KaernestActions`` that ``KaernestSystem`` inherits. A thin translation onto the core (``timeline``,
``defense``).

Readings (RULES.md §2 "Time", "Attack"; COMMANDS.md "Turns and actions"):

- **Who may act.** Every action needs a begun encounter. ``attack``, ``move`` and ``defend active`` are
  *declarations*: only the combatant that owes a declaration now (``turn()``) may make them; anyone else is
  refused (``NotAllowed``) with the segment where it acts.
- **The clock runs by itself.** The Discord layer has no clock button, so after a declaration the adapter
  does what ``/turn end`` does after waiting: it rolls initiative for anyone up without one, then advances
  the clock while nobody owes a declaration (``timeline.advance``: bounded by the core's guard, and it stops as
  soon as someone owes one or nobody is on the timeline). Every landing on the way is resolved inside the
  core, active defenses and interruptions included, and all those events are returned after the
  declaration's own. A declaration passes the turn, so the turn key changes; ``turn()`` names the next
  declarer.
- **attack** declares an attack on ``target`` (never the actor itself) with ``weapon`` (default: the first
  weapon carried; it must be carried), ``grip`` ``1h``/``2h`` (default: the weapon's first grip; a grip the
  weapon lacks is refused naming the ones it has), ``damage_type`` (default: the weapon's best for that grip;
  a ``--`` cell is refused naming the types it does), ``aim`` = a called shot at that location (house rule
  ``called_shot_penalty``, −3 by default; any text, the GM interprets it), ``bonus``, ``enchantment`` (the one
  enchantment bonus to damage), ``circumstance`` (the GM's damage modifier), ``element`` (physical, energy,
  arcane: which armour rating applies) and ``speed`` (a GM-set speed; whether the member may set it is the
  Discord layer's check). It lands ``speed`` segments later (the weapon's speed for the grip unless set).
  ``weapon`` ``unarmed`` (or ``fists``) is bare hands (``arms.py``), also the default for one carrying none.
- **defend** takes a stance: ``passive``, ``active`` or ``aggressive`` (``defensive`` and ``berserk`` are
  accepted for active and aggressive). The core models the two ways of being defensive, and this follows it:
  *on one's own segment*, ``active`` declares a defend action (``declare_action(defend=True)``): the
  combatant holds an active defense until it lands, and its next action gets the defensive speed bonus
  (house rule ``defensive_speed_bonus``). Its speed is ``action.cost`` when given (GM-set), else the speed of
  the combatant's first carried weapon in its first grip (the attack it holds back; the seed gives a defensive
  posture no speed of its own), else ``DEFAULT_SPEED`` when it carries none. ``passive`` and ``aggressive``
  are only a change of posture: they do not use the turn. *At any other time* a stance is a change of
  posture (``defense.set_posture``), as the core allows: an active defense cannot be taken while one's own attack
  is under way, and an unaware combatant cannot take a stance off its segment (declaring an action on its
  segment is what ends being unaware; the GM can lift it with `/gm condition`). The posture it already has is
  refused, so a refusal never looks like a success.
- **move** declares a movement with a GM-set speed: ``action.cost`` when given, else ``DEFAULT_SPEED`` (3).
  ``distance`` has no Kaernest rule; it is only written into the description (``move 10``).
- **reroll, grapple, heal, deathsave, disengage, stealth, lockin** do not exist in Kaernest: ``NotAllowed``
  with one sentence saying what to do instead.

``choices`` never raises: ``weapon`` → the actor's carried weapons; ``grip`` → the weapon's grips (``1h``,
``2h``); ``type`` → the damage types the weapon does with that grip; ``aim`` → ``CALLED_SHOT_LOCATIONS``, a
fixed list of suggestions that the GM interprets (any other text is accepted too); ``stance`` → passive,
active, aggressive; anything else → ``()``. ``allowed_actions``: ``attack`` (when carrying a weapon),
``defend`` and ``move`` for the combatant that owes a declaration now; ``defend`` for anyone else who is up,
not unaware, in a begun encounter; else nothing.

A refused action raises a ``RulesError`` before anything is built, and states are never mutated, so a
refusal changes nothing.
"""

from __future__ import annotations

from rules.dice import DiceSource
from rules.encounter import ACTION_KINDS, Action
from rules.errors import InvalidInput, NotAllowed, RulesError
from rules.events import Outcome
from rules.systems.kaernest import arms, defense, tables, timeline
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.state import Combatant, KaernestState

# A GM-set speed when none is given: `/move` without `cost`, or an active defense without a weapon.
DEFAULT_SPEED = 3
STANCES: tuple[str, ...] = ("passive", "active", "aggressive")
STANCE_EFFECTS = {
    "passive": "defense = Reflex − the armour's penalty",
    "active": "roll 2d12 ≤ Reflex + Parry/Dodge; success interrupts the attack",
    "aggressive": "defense 1d12 − 6, rolled for each attack",
}
# Suggestions for `aim` (a called shot): the seed names no locations, the GM interprets the one chosen.
CALLED_SHOT_LOCATIONS: tuple[str, ...] = (
    "head",
    "eyes",
    "neck",
    "chest",
    "abdomen",
    "arms",
    "hands",
    "legs",
    "feet",
)
DECLARATIONS: tuple[str, ...] = ("attack", "defend", "move")
MAX_DISTANCE = 10_000

_NOT_IN_KAERNEST: dict[str, str] = {
    "reroll": (
        "Kaernest initiative is rolled once per combat (again only after a knockout); "
        "the GM can change it with `/gm set initiative`."
    ),
    "grapple": "Kaernest has no grappling rules: describe the hold and the GM sets a `/move` speed or a `/check`.",
    "heal": "Kaernest has no heal pool in combat: the GM restores damage with `/gm heal`.",
    "deathsave": "Kaernest has no death saves: past 5×Health a combatant is dying until the GM heals it.",
    "disengage": "Kaernest has no disengage roll: leaving a fight is a `/move` with the speed the GM sets.",
    "stealth": "Kaernest has no stealth action: ask the GM for a `/check` (Instinct, or a skill).",
    "lockin": "Kaernest has no lock-in: `/attack`, `/defend active` and `/move` are declared at once on your segment.",
}


def _owes_declaration(state: KaernestState, actor_id: str) -> bool:
    current = timeline.on_turn(state)
    return current is not None and current.id == actor_id


def _stance(text: str | None) -> str:
    if not (text or "").strip():
        raise InvalidInput(f"Choose a stance: {', '.join(STANCES)}.")
    posture = defense.posture_of(text or "")
    if posture not in STANCES:
        raise InvalidInput(
            f"`{text}` is not a stance you can take: use {', '.join(STANCES)} "
            "(the GM sets a combatant unaware with `/gm condition`)."
        )
    return posture


def _defend_speed(actor: Combatant) -> int:
    """An active defense held instead of attacking lasts as long as the attack it holds back."""
    if not actor.sheet.weapons:
        return DEFAULT_SPEED
    weapon = actor.sheet.weapon(actor.sheet.weapons[0])
    return weapon.speed(weapon.default_grip())


def _move_description(distance: int | None) -> str:
    if distance is None or distance == 0:
        return "move"
    if isinstance(distance, bool) or not isinstance(distance, int) or not 0 <= distance <= MAX_DISTANCE:
        raise InvalidInput(f"`distance` must be a whole number from 0 to {MAX_DISTANCE}, not {distance!r}.")
    return f"move {distance}"


class KaernestActions:
    """The actions of ``rules.encounter.System`` for Kaernest (see the module docstring for every reading)."""

    # -- act -----------------------------------------------------------------------------------------
    def act(
        self, state: KaernestState, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        kind = (action.kind or "").strip().lower()
        if kind in _NOT_IN_KAERNEST:
            raise NotAllowed(_NOT_IN_KAERNEST[kind])
        if kind not in DECLARATIONS:
            raise InvalidInput(f"`{action.kind}` is not an action. Actions: {', '.join(ACTION_KINDS)}.")
        if not state.begun:
            raise NotAllowed("The encounter has not begun yet: the GM starts it with `/encounter begin`.")
        state.get(action.actor)  # NotFound for someone outside the encounter
        if kind == "attack":
            return self._act_attack(state, action, dice, house)
        if kind == "defend":
            return self._act_defend(state, action, dice, house)
        return self._act_move(state, action, dice, house)

    def _act_attack(
        self, state: KaernestState, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        if not (action.target or "").strip():
            raise InvalidInput("Name the target of the attack.")
        out = timeline.declare_attack(
            state,
            action.actor,
            action.target,  # type: ignore[arg-type]
            dice,
            house,
            weapon=(action.weapon or "").strip() or None,
            grip=None if action.grip is None or not str(action.grip).strip() else action.grip,
            damage_type=(action.damage_type or "").strip() or None,
            called_location=action.aim,
            bonus=action.bonus,
            enchantment=action.enchantment,
            circumstance=action.circumstance,
            element=(action.element or "physical").strip().lower() or "physical",
            speed=action.speed,
        )
        return self._run_clock(out, dice, house)

    def _act_defend(
        self, state: KaernestState, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        stance = _stance(action.stance)
        actor = state.get(action.actor)
        if not actor.up:
            raise NotAllowed(f"{actor.name} is {actor.condition} and cannot act.")
        on_turn = _owes_declaration(state, actor.id)
        if on_turn and stance == "active":
            speed = _defend_speed(actor) if action.cost is None else action.cost
            out = timeline.declare_action(
                state, actor.id, speed, dice, house, description="active defense", defend=True
            )
            return self._run_clock(out, dice, house)
        if not on_turn and actor.posture == "none":
            raise NotAllowed(
                f"{actor.name} is unaware and cannot take a stance before its segment "
                "(the GM can lift it with `/gm condition unaware remove`)."
            )
        if actor.posture == stance:
            raise NotAllowed(f"{actor.name} is already {stance}.")
        return defense.set_posture(state, actor.id, stance)

    def _act_move(
        self, state: KaernestState, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        description = _move_description(action.distance)
        speed = DEFAULT_SPEED if action.cost is None else action.cost
        out = timeline.declare_action(state, action.actor, speed, dice, house, description=description)
        return self._run_clock(out, dice, house)

    def _run_clock(
        self, declared: Outcome[KaernestState], dice: DiceSource, house: HouseRules
    ) -> Outcome[KaernestState]:
        """After a declaration the clock runs exactly as after `/turn end` (``KaernestSystem._settle``)."""
        return self._settle(declared.state, list(declared.events), dice, house)  # type: ignore[attr-defined]

    # -- choices -------------------------------------------------------------------------------------
    def choices(
        self, state: KaernestState, actor: str | None, option: str, action: Action
    ) -> tuple[str, ...]:
        try:
            return self._choices(state, actor, option, action)
        except (RulesError, LookupError, ValueError, TypeError, AttributeError):
            return ()  # autocomplete never fails: no suggestions instead

    def choice_label(
        self, state: KaernestState, actor: str | None, option: str, value: str, action: Action
    ) -> str:
        """weapon: speed and damage per grip; stance: the defense it gives; type/grip: the value."""
        try:
            key = (option or "").strip().lower()
            if key == "stance":
                return f"{value} — {STANCE_EFFECTS.get(value, value)}"
            if key != "weapon":
                return value
            w = tables.weapon(value)
            grips = []
            for g in w.grips:
                dealt = ", ".join(
                    f"{kind} +{dict(pairs)[g]}" for kind, pairs in w.damages if g in dict(pairs)
                )
                grips.append(f"{g}h speed {dict(w.speeds)[g]}, {dealt}")
            return f"{value} — {'; '.join(grips)}"
        except (RulesError, LookupError, ValueError, TypeError, AttributeError):
            return value

    def _choices(
        self, state: KaernestState, actor: str | None, option: str, action: Action
    ) -> tuple[str, ...]:
        key = (option or "").strip().lower()
        if key == "stance":
            return STANCES
        if key == "aim":
            return CALLED_SHOT_LOCATIONS
        if key not in ("weapon", "grip", "type", "damage_type"):
            return ()
        carried = state.get(actor).sheet.weapons if actor and state.has(actor) else ()
        if key == "weapon":
            return tuple(carried)
        named = (action.weapon or "").strip() or (carried[0] if carried else "")
        if not named:
            return ("1h", "2h") if key == "grip" else ()
        sheet = state.get(actor).sheet if actor and state.has(actor) else None
        if arms.is_unarmed(named):
            weapon = arms.unarmed(DEFAULT_SPEED)  # the speed does not matter for grips and types
        else:
            weapon = sheet.weapon(named) if sheet else tables.weapon(named)
        if key == "grip":
            return tuple(f"{g}h" for g in weapon.grips)
        typed = "" if action.grip is None else str(action.grip).strip()
        grip = tables.grip_of(typed) if typed else weapon.default_grip()
        return tuple(kind for kind, pairs in weapon.damages if grip in dict(pairs))

    # -- allowed_actions -----------------------------------------------------------------------------
    def allowed_actions(self, state: KaernestState, actor: str) -> tuple[str, ...]:
        if not state.begun or not state.has(actor):
            return ()
        combatant = state.get(actor)
        if not combatant.up:
            return ()
        if _owes_declaration(state, actor):
            return DECLARATIONS  # bare hands need no weapon (arms.py)
        if combatant.posture == "none":
            return ()
        return ("defend",)
