"""The roster and the GM's direct changes in a Kaernest encounter (COMMANDS.md ``/encounter add``,
``/encounter remove``, ``/gm damage``, ``/gm heal``; RULES.md §2 "Health" for what damage does).
"""

from __future__ import annotations

import dataclasses

from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.kaernest import health
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest.events import (
    CombatantAdded,
    CombatantFieldSet,
    CombatantRemoved,
    ConditionChanged,
    DamageSet,
    WoundEffectSet,
)
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import POSTURES, Combatant, KaernestState, Posture

MAX_ID = 64
MAX_EFFECT = 500
MAX_CONDITION = 40
MAX_CONDITIONS = 12
# Words that are not free conditions: health follows from damage, postures have their own command.
_NOT_CONDITIONS = {"up", "unhurt", "wounded", "unconscious", "dying", "unaware", *POSTURES}


def add_combatant(
    state: KaernestState,
    combatant_id: str,
    sheet: Sheet,
    *,
    side: str = "party",
    posture: Posture = "passive",
) -> Outcome[KaernestState]:
    """Enter a combatant (last in entry order). It gets its place on the timeline from initiative."""
    if not combatant_id or len(combatant_id) > MAX_ID:
        raise InvalidInput(f"A combatant id of 1 to {MAX_ID} characters, please.")
    if state.has(combatant_id):
        raise NotAllowed(f"`{combatant_id}` is already in this encounter.")
    sheets.validate(sheet)
    combatant = Combatant(
        id=combatant_id, sheet=sheet, entry=state.next_entry, side=side or "party", posture=posture
    )
    new = dataclasses.replace(state, combatants=(*state.combatants, combatant))
    return Outcome(new, (CombatantAdded(combatant.id, sheet.name, combatant.side, sheet.npc),))


def remove_combatant(state: KaernestState, combatant_id: str) -> Outcome[KaernestState]:
    """Attacks already aimed at it are cancelled when they land (``attack.resolve_attack``)."""
    gone = state.get(combatant_id)
    new = dataclasses.replace(state, combatants=tuple(c for c in state.combatants if c.id != combatant_id))
    return Outcome(new, (CombatantRemoved(gone.id, gone.name),))


def gm_damage(
    state: KaernestState, combatant_id: str, amount: int, house: HouseRules, *, location: str | None = None
) -> Outcome[KaernestState]:
    """``/gm damage``: one hit of ``amount`` after armour (a wound if over 1.5×Health)."""
    target = state.get(combatant_id)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidInput("Damage is a whole number.")
    hurt, events = health.take_damage(
        target, amount, state.tick, house, location=(location or "").strip() or None, source="gm"
    )
    return Outcome(state.replace(hurt), tuple(events))


def gm_heal(state: KaernestState, combatant_id: str, amount: int) -> Outcome[KaernestState]:
    """``/gm heal``. A combatant that comes back up rolls initiative again (seed)."""
    target = state.get(combatant_id)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidInput("Healing is a whole number.")
    healed, events = health.heal(target, amount)
    return Outcome(state.replace(healed), tuple(events))


def set_wound_effect(
    state: KaernestState, combatant_id: str, wound: int, effect: str
) -> Outcome[KaernestState]:
    """The GM writes the specific effect of a (called-shot) wound; ``wound`` counts from 1."""
    target = state.get(combatant_id)
    if not 1 <= wound <= len(target.wounds):
        raise InvalidInput(f"{target.name} has {len(target.wounds)} wound(s); pick one from 1.")
    if len(effect) > MAX_EFFECT:
        raise InvalidInput(f"An effect is at most {MAX_EFFECT} characters.")
    wounds = list(target.wounds)
    wounds[wound - 1] = dataclasses.replace(wounds[wound - 1], effect=effect.strip())
    updated = dataclasses.replace(target, wounds=tuple(wounds))
    events: tuple[Event, ...] = (
        WoundEffectSet(target.id, wound, wounds[wound - 1].location, effect.strip()),
    )
    return Outcome(state.replace(updated), events)


def set_damage(state: KaernestState, combatant_id: str, total: int) -> Outcome[KaernestState]:
    """``/gm set damage``: correct the accumulated damage to ``total`` (not a hit: no wound is made).
    Going down loses the action under way and the place on the timeline, as any knockout does; coming
    back up leaves the combatant without initiative until it is rolled again."""
    target = state.get(combatant_id)
    if isinstance(total, bool) or not isinstance(total, int) or not 0 <= total <= health.MAX_DAMAGE:
        raise InvalidInput(f"Damage is a whole number from 0 to {health.MAX_DAMAGE}, not {total!r}.")
    updated = dataclasses.replace(target, damage=total)
    events: list[Event] = [DamageSet(target.id, target.damage, total, target.condition, updated.condition)]
    if target.up and not updated.up:
        updated, cancelled = health.knocked_out(updated)
        events.extend(cancelled)
    return Outcome(state.replace(updated), tuple(events))


def set_luck(state: KaernestState, combatant_id: str, luck: int) -> Outcome[KaernestState]:
    """``/gm set luck``: the Luck on the combatant's sheet in this encounter (spent or regained)."""
    target = state.get(combatant_id)
    sheet = sheets.validate(dataclasses.replace(target.sheet, luck=luck))
    updated = dataclasses.replace(target, sheet=sheet)
    event = CombatantFieldSet(target.id, "luck", str(target.sheet.luck), str(luck))
    return Outcome(state.replace(updated), (event,))


def set_side(state: KaernestState, combatant_id: str, side: str) -> Outcome[KaernestState]:
    """``/gm set side``: the side is a free label (Kaernest has no rule that reads it)."""
    target = state.get(combatant_id)
    text = (side or "").strip()
    if not text or len(text) > MAX_ID:
        raise InvalidInput(f"A side of 1 to {MAX_ID} characters, please.")
    event = CombatantFieldSet(target.id, "side", target.side, text)
    return Outcome(state.replace(dataclasses.replace(target, side=text)), (event,))


def set_condition(
    state: KaernestState, combatant_id: str, condition: str, *, remove: bool = False
) -> Outcome[KaernestState]:
    """``/gm condition``: add or remove a free condition (``prone``, ``blinded``). Kaernest gives these
    no rule effect; they are shown so the GM can apply modifiers. Postures and health words are refused."""
    target = state.get(combatant_id)
    word = " ".join((condition or "").split()).lower()
    if not word or len(word) > MAX_CONDITION:
        raise InvalidInput(f"A condition of 1 to {MAX_CONDITION} characters, please.")
    if word in _NOT_CONDITIONS:
        raise InvalidInput(
            f"`{word}` is not a free condition: postures are set with `/defend`, and health follows "
            "from damage (`/gm damage`, `/gm heal`)."
        )
    if remove:
        if word not in target.conditions:
            raise NotAllowed(f"{target.name} is not {word}.")
        kept = tuple(c for c in target.conditions if c != word)
    else:
        if word in target.conditions:
            raise NotAllowed(f"{target.name} is already {word}.")
        if len(target.conditions) >= MAX_CONDITIONS:
            raise NotAllowed(f"{target.name} already has {MAX_CONDITIONS} conditions; remove one first.")
        kept = (*target.conditions, word)
    updated = dataclasses.replace(target, conditions=kept)
    return Outcome(state.replace(updated), (ConditionChanged(target.id, word, not remove),))
