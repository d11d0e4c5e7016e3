"""Nyra behind the actions of ``rules.encounter.System`` (`/attack`, `/defend`, `/move` and the kinds Nyra lacks).

``NyraActions`` is a mixin of ``NyraSystem``: it translates an ``Action`` into the Nyra core (``strike``,
``set_stance``, ``actions.other_action``) and checks up front what the core would only refuse later or less
clearly, so a refusal always comes before any die is drawn and changes nothing. The flow the Discord layer
relies on:

- ``attack`` resolves at once against the defender's stance (nobody waits for the defender): a wild strike
  without ``aim``, an aimed strike at ``aim`` (one of the target's locations). ``type`` may be left out only
  when the weapon has exactly one damage type that is not N/A; ``weapon`` defaults to the actor's first one;
  ``bonus`` is added to the effective skill. The strike's delay is spent; when nothing affordable is left
  (house ``auto_end_turn``) or a successful Defense ended the volley, the core ends the turn by itself and
  starts the next living combatant's (delay reset, bleeding applied): the events then hold ``TurnEnded`` and
  ``TurnStarted``, and ``turn(state).key`` has changed. ``grip`` means nothing in Nyra (a ``Note`` says so).
- ``defend`` sets the standing reaction stance (``dodge``, ``defense`` or ``auto`` = the house default). It
  is not an action on one's turn, so it is allowed at any time, before the fight too; that the member owns
  the combatant is the Discord layer's check.
- ``move`` spends ``cost`` delay (a GM's override; that only a GM passes it is the Discord layer's check),
  else the channel's house ``move_cost`` (default 0: free, still recorded as a ``DelaySpent`` of 0), on
  one's own started turn. Nyra has no distances: ``distance`` only labels the move in the log.
- ``grapple``, ``heal``, ``deathsave``, ``disengage``, ``stealth``, ``reroll`` and ``lockin`` do not exist in
  Nyra and are refused with ``NotAllowed``.
"""

from __future__ import annotations

from typing import Any

from rules.dice import DiceSource
from rules.encounter import ACTION_KINDS, Action
from rules.errors import InvalidInput, NotAllowed, NotFound, RulesError
from rules.events import Note, Outcome
from rules.systems.nyra import actions as other_actions
from rules.systems.nyra import strike as strikes
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.state import STANCES, NyraCombat, NyraCombatant
from rules.systems.nyra.weapons import DamageType, Weapon

# RULES.md §4: a sheet edited during the fight reaches the combatant at the start of its next turn.
LATER_EDITS = (
    "A weapon added to the character during the fight is carried from the start of {name}'s next turn."
)

# The kinds Nyra has no rule for: one sentence each, saying what to do instead.
NOT_IN_NYRA: dict[str, str] = {
    "grapple": "There is no grappling in Nyra; describe the hold to the GM, who can rule on it with a `/check`.",
    "heal": "There is no heal pool in Nyra; wounds are treated by the GM with `/gm heal`.",
    "deathsave": "There are no death saves in Nyra; only a fatal wound to the Head or Chest kills.",
    "disengage": "There is no disengage roll in Nyra; use `/move`, whose delay cost the GM sets.",
    "stealth": "There is no stealth action in Nyra; the GM may ask for a skill `/check` instead.",
    "reroll": "There is no initiative re-roll in Nyra; the order is fixed by Sequence for the whole fight.",
    "lockin": "There is no lock-in in Nyra; every `/attack` and `/move` resolves at once.",
}

ON_TURN: tuple[str, ...] = ("attack", "move", "defend")
OFF_TURN: tuple[str, ...] = ("defend",)
MAX_DISTANCE = 10_000


def _kind(text: str | None) -> str:
    return "".join((text or "").split()).lower().replace("-", "").replace("_", "")


def _types_text(weapon: Weapon) -> str:
    return ", ".join(f"{t.value} ({t.word})" for t in weapon.available_types)


def _on_turn(state: NyraCombat, ref: str) -> NyraCombatant:
    """The actor, holding the current, started turn (NotFound / NotAllowed otherwise)."""
    actor = state.require_turn(ref)
    if not state.turn_started:
        raise NotAllowed(f"{actor.name}'s turn has not started yet; the GM starts it with `/gm next`.")
    return actor


def _damage_type(weapon: Weapon, text: str | None) -> DamageType:
    """The declared type (``C``, ``cleaving`` or an autocomplete label ``C (Cleaving)``), or the weapon's only
    available one when none is declared. N/A types are refused naming the available ones."""
    key = (text or "").split("(")[0].strip()
    if not key:
        available = weapon.available_types
        if len(available) == 1:
            return available[0]
        raise InvalidInput(f"Choose a damage type for the {weapon.name}: {_types_text(weapon)}.")
    damage_type = DamageType.parse(key)
    weapon.require_type(damage_type)
    return damage_type


def _aim(target: NyraCombatant, text: str | None) -> str | None:
    """The table's spelling of the aimed location, None for a wild strike."""
    if text is None or not text.strip():
        return None
    table = target.sheet.table()
    try:
        return table.find(text)
    except NotFound:
        raise NotFound(
            f"{target.name} has no location `{text.strip()}`. Aim at one of: {', '.join(table.locations)}."
        ) from None


STANCE_EFFECTS = {
    "dodge": "react with Dodge",
    "defense": "react with Defense; a success ends the attacker's volley",
    "auto": "the house default_stance decides",
}


class NyraActions:
    """The actions of ``rules.encounter.System`` for Nyra; mixed into ``NyraSystem``."""

    # -- act -----------------------------------------------------------------------------------------
    def act(self, state: NyraCombat, action: Action, dice: DiceSource, house: HouseRules) -> Outcome[Any]:
        kind = _kind(action.kind)
        if kind in NOT_IN_NYRA:
            raise NotAllowed(NOT_IN_NYRA[kind])
        if kind == "attack":
            return self._attack(state, action, dice, house)
        if kind == "defend":
            return self._defend(state, action, dice, house)
        if kind == "move":
            return self._move(state, action, dice, house)
        raise InvalidInput(f"Unknown action `{action.kind}`. Actions: {', '.join(ACTION_KINDS)}.")

    def _attack(
        self, state: NyraCombat, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[NyraCombat]:
        attacker = _on_turn(state, action.actor)
        if action.target is None or not action.target.strip():
            raise InvalidInput(f"Name the combatant {attacker.name} attacks (`target`).")
        target = state.get(action.target)
        if target.id == attacker.id:
            raise NotAllowed(f"{attacker.name} cannot attack itself; choose another target.")
        try:
            weapon = attacker.sheet.weapon(action.weapon)  # NotFound naming the weapons carried
        except NotFound as err:
            # The player may just have added it to the character: say when it reaches the fight.
            raise NotFound(f"{err.reason} {LATER_EDITS.format(name=attacker.name)}") from err
        damage_type = _damage_type(weapon, action.damage_type)
        aimed_at = _aim(target, action.aim)
        args = strikes.StrikeArgs(
            attacker=attacker.id,
            target=target.id,
            damage_type=damage_type.value,
            weapon=weapon.name,
            aim=aimed_at,
            bonus=action.bonus,
        )
        out = strikes.strike(state, args, dice, house)
        if action.grip:
            note = Note("Nyra has no one- or two-handed grips; `grip` changes nothing.")
            return Outcome(out.state, (note, *out.events))
        return out

    def _defend(
        self, state: NyraCombat, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[NyraCombat]:
        combatant = state.get(action.actor)
        if action.stance is None or not action.stance.strip():
            raise InvalidInput(f"Choose a stance for {combatant.name}: dodge, defense or auto.")
        return strikes.set_stance(state, combatant.id, action.stance, dice, house)

    def _move(
        self, state: NyraCombat, action: Action, dice: DiceSource, house: HouseRules
    ) -> Outcome[NyraCombat]:
        actor = _on_turn(state, action.actor)
        label = "move"
        if action.distance is not None:
            if not 0 <= action.distance <= MAX_DISTANCE:
                raise InvalidInput(f"A move's distance must be 0..{MAX_DISTANCE}.")
            label = f"move {action.distance}"
        cost = house.move_cost if action.cost is None else action.cost
        return other_actions.other_action(state, other_actions.ActionArgs(actor.id, cost, label), dice, house)

    # -- choices -------------------------------------------------------------------------------------
    def choices(self, state: NyraCombat, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        """weapon: the actor's weapons; type: the chosen (or first) weapon's available damage types; aim: the
        target's locations; stance: dodge, defense, auto. Anything else, or any problem: ()."""
        try:
            return self._choices(state, actor, option, action)
        except (RulesError, AttributeError, TypeError, ValueError, LookupError):
            return ()

    def _choices(self, state: NyraCombat, actor: str | None, option: str, action: Action) -> tuple[str, ...]:
        key = _kind(option)
        if key == "stance":
            return (*STANCES, "auto")
        if key in {"weapon", "type", "damagetype"}:
            ref = actor or action.actor
            if not ref:
                return ()
            sheet = state.get(ref).sheet
            if key == "weapon":
                return tuple(w.name for w in sheet.weapons)
            return tuple(t.value for t in sheet.weapon(action.weapon).available_types)
        if key == "aim":
            if not action.target:
                return ()
            return state.get(action.target).sheet.table().locations
        return ()

    def choice_label(
        self, state: NyraCombat, actor: str | None, option: str, value: str, action: Action
    ) -> str:
        """type: its word and the weapon's dice for it; weapon: its dice per type and delay; stance: what it
        does."""
        try:
            key = _kind(option)
            if key == "stance":
                return f"{value} — {STANCE_EFFECTS.get(value, value)}"
            ref = actor or action.actor
            if key not in {"weapon", "type", "damagetype"} or not ref:
                return value
            sheet = state.get(ref).sheet
            if key == "weapon":
                w = sheet.weapon(value)
                dice = ", ".join(f"{t.value} {w.damage_for(t)}" for t in w.available_types)
                return f"{value} — {dice}; delay {w.delay}"
            t = DamageType(value)
            return f"{value} — {t.word} {sheet.weapon(action.weapon).damage_for(t)}"
        except (RulesError, AttributeError, TypeError, ValueError, LookupError):
            return value

    # -- allowed_actions -----------------------------------------------------------------------------
    def allowed_actions(self, state: NyraCombat, actor: str) -> tuple[str, ...]:
        """attack, move and defend on one's own started turn; only defend (the standing stance) otherwise.
        A name that is no combatant here is allowed nothing."""
        try:
            combatant = state.get(actor)
        except RulesError:
            return ()
        on_turn = (
            state.begun and state.turn_started and state.current_id == combatant.id and not combatant.dead
        )
        return ON_TURN if on_turn else OFF_TURN


__all__ = ["NOT_IN_NYRA", "NyraActions"]
