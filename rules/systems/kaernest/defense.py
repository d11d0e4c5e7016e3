"""Postures and the defense they give (seed "Defense"; RULES.md §2 "Attack").

- passive (default): Reflex − the armour's Reflex penalty;
- aggressive: 1d12 − 6, rolled for each attack;
- none (unaware, asleep; and anyone unconscious or dying): 3;
- active: the defender rolls 2d12 ≤ Reflex + parry/dodge skill − 1 per defense already made since its own
  last action (− its wounds: every roll's target). Success interrupts the attack; failure leaves the
  passive defense.
Arcane armour adds to the defense against arcane attacks (the armour table's footnote).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput, NotAllowed
from rules.events import Outcome
from rules.systems.kaernest.events import ActiveDefense, PostureChanged
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import CoreRoll, Modifier, sum_of
from rules.systems.kaernest.state import POSTURES, Combatant, Element, KaernestState, Posture

NO_DEFENSE = 3
AGGRESSIVE_OFFSET = 6
_ALIASES = {"defensive": "active", "berserk": "aggressive", "unaware": "none"}


def posture_of(text: str) -> Posture:
    key = (text or "").strip().lower()
    key = _ALIASES.get(key, key)
    if key not in POSTURES:
        raise InvalidInput(f"`{text}` is not a posture. Use one of: {', '.join(POSTURES)}.")
    return key  # type: ignore[return-value]


def effective_posture(defender: Combatant) -> Posture:
    """The posture that applies: anyone unconscious or dying has none."""
    return defender.posture if defender.up else "none"


def passive_terms(defender: Combatant) -> tuple[Modifier, ...]:
    armour = defender.sheet.armour_row()
    terms = [Modifier("Reflex", defender.sheet.reflex)]
    if armour and armour.reflex_penalty:
        terms.append(Modifier(f"{armour.name} Reflex penalty", -armour.reflex_penalty))
    return tuple(terms)


def active_terms(defender: Combatant, house: HouseRules) -> tuple[Modifier, ...]:
    skill_name, skill = defender.sheet.active_defense_skill()
    terms = [Modifier("Reflex", defender.sheet.reflex), Modifier(skill_name, skill)]
    armour = defender.sheet.armour_row()
    if house.armour_penalty_on_active_defense and armour and armour.reflex_penalty:
        terms.append(Modifier(f"{armour.name} Reflex penalty", -armour.reflex_penalty))
    if defender.defenses_since_action:
        terms.append(Modifier("earlier defenses", -defender.defenses_since_action))
    if defender.wound_penalty:
        terms.append(Modifier("wounds", -defender.wound_penalty))
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class Defense:
    """What the defender puts up against one attack. ``terms`` make up ``value``; ``interrupted`` when an
    active defense succeeded; ``defender`` is the defender afterwards (its defense count updated)."""

    posture: Posture
    terms: tuple[Modifier, ...]
    active: ActiveDefense | None
    interrupted: bool
    defender: Combatant
    dice: tuple[Die, ...]

    @property
    def value(self) -> int:
        return sum_of(self.terms)


def defend(defender: Combatant, element: Element, dice: DiceSource, house: HouseRules) -> Defense:
    """Roll (if the posture rolls) and compute the defense against one incoming attack."""
    posture = effective_posture(defender)
    arcane: tuple[Modifier, ...] = ()
    armour = defender.sheet.armour_row()
    if element == "arcane" and armour and armour.arcane:
        arcane = (Modifier(f"{armour.name} arcane", armour.arcane),)
    if posture == "none":
        return Defense(posture, (Modifier("no defense", NO_DEFENSE), *arcane), None, False, defender, ())
    if posture == "aggressive":
        die = dice.roll(12, "aggressive defense")
        terms = (Modifier("aggressive d12", die.value), Modifier("aggressive", -AGGRESSIVE_OFFSET), *arcane)
        return Defense(posture, terms, None, False, defender, (die,))
    if posture == "active":
        terms = active_terms(defender, house)
        rolled = CoreRoll(sum_of(terms), (dice.roll(12, "active defense"), dice.roll(12, "active defense")))
        active = ActiveDefense(terms, rolled.target, rolled.total, rolled.margin, rolled.success)
        after = dataclasses.replace(defender, defenses_since_action=defender.defenses_since_action + 1)
        return Defense(
            posture, (*passive_terms(defender), *arcane), active, rolled.success, after, rolled.dice
        )
    return Defense(posture, (*passive_terms(defender), *arcane), None, False, defender, ())


def set_posture(state: KaernestState, combatant_id: str, posture_text: str) -> Outcome[KaernestState]:
    """``/defend``: change posture. Active defense is a defensive posture: it cannot be taken while the
    combatant's own attack is under way (seed: remaining defensive means not attacking)."""
    combatant = state.get(combatant_id)
    posture = posture_of(posture_text)
    if not combatant.up:
        raise NotAllowed(f"{combatant.name} is {combatant.condition} and has no posture to choose.")
    if posture == "active" and combatant.pending is not None and combatant.pending.kind == "attack":
        raise NotAllowed(
            f"{combatant.name} is attacking; a defensive posture is taken instead of attacking. "
            "Declare a `defend` action on your next segment."
        )
    if posture == combatant.posture:
        return Outcome(state, ())
    changed = dataclasses.replace(
        combatant, posture=posture, held_defensive=combatant.held_defensive and posture == "active"
    )
    return Outcome(state.replace(changed), (PostureChanged(combatant.id, combatant.posture, posture),))
