"""An attack landing (seed "Attack", "Active Defense"; RULES.md §2 "Attack").

Target = weapon skill + Grace + 3 (a simple action) + modifiers − called-shot penalty − wound penalties
− the defender's defense (+ arcane armour against arcane attacks). The roll succeeds when 2d12 ≤ target;
exactly the target is a critical (+1d12 damage). Draw order (RULES.md §0 and §4): an active defense's 2d12
first (``ActiveDefenseRolled``), then the attack's 2d12 (not drawn when the defense interrupted: they could
change nothing), then an aggressive defense's d12, then damage dice only on a hit.
A successful active defense interrupts: the attack restarts on the next segment with speed + 1, and the
attacker's next declaration moves with it.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource
from rules.events import Event, Outcome
from rules.systems.kaernest import arms, clock, health, tables
from rules.systems.kaernest.damage import roll_damage
from rules.systems.kaernest.defense import defend, effective_posture
from rules.systems.kaernest.events import (
    ActionCancelled,
    ActiveDefenseRolled,
    AttackInterrupted,
    AttackResolved,
    DamageRolled,
)
from rules.systems.kaernest.house import HouseRules
from rules.systems.kaernest.roll import CoreRoll, Modifier, sum_of
from rules.systems.kaernest.state import Combatant, KaernestState, PendingAction


def attack_terms(attacker: Combatant, action: PendingAction, house: HouseRules) -> tuple[Modifier, ...]:
    """The attacker's side of the target: everything but the defense."""
    weapon = arms.weapon_of(attacker.sheet, action.weapon, house)
    skill_name = action.skill or weapon.skill
    terms = [
        Modifier(skill_name, attacker.sheet.skill(skill_name)),
        Modifier("Grace", attacker.sheet.grace),
        Modifier("simple action", house.simple_action_bonus),
    ]
    if action.bonus:
        terms.append(Modifier("bonus", action.bonus))
    if action.called_location:
        terms.append(Modifier(f"called shot ({action.called_location})", -house.called_shot_penalty))
    if attacker.wound_penalty:
        terms.append(Modifier("wounds", -attacker.wound_penalty))
    return tuple(terms)


def _finish(attacker: Combatant, tick: int) -> Combatant:
    """The action is over; the attacker declares its next action right here (RULES.md §2)."""
    return dataclasses.replace(attacker, pending=None, ready_tick=tick)


def _interrupted(
    state: KaernestState,
    attacker: Combatant,
    defender: Combatant,
    action: PendingAction,
    now: int,
    house: HouseRules,
    events: list[Event],
) -> Outcome[KaernestState]:
    """Restart on the next segment with speed + 1; the attacker's next declaration follows the new landing."""
    restart = now + 1
    speed = action.speed + house.interrupt_speed_penalty
    lands = clock.lands_at(restart, speed)
    again = dataclasses.replace(
        action, declared_tick=restart, speed=speed, lands_tick=lands, restarts=action.restarts + 1
    )
    attacker = dataclasses.replace(attacker, pending=again, ready_tick=lands)
    events.append(
        AttackInterrupted(
            attacker.id,
            defender.id,
            clock.minute_of(restart),
            clock.segment_of(restart),
            speed,
            (Modifier("speed", action.speed), Modifier("interrupted", house.interrupt_speed_penalty)),
            clock.minute_of(lands),
            clock.segment_of(lands),
        )
    )
    return Outcome(state.replace(attacker, defender), tuple(events))


def resolve_attack(
    state: KaernestState, attacker_id: str, dice: DiceSource, house: HouseRules
) -> Outcome[KaernestState]:
    """Resolve the attack of ``attacker_id`` that lands now (``state.tick``)."""
    now = state.tick
    attacker = state.get(attacker_id)
    action = attacker.pending
    assert action is not None and action.kind == "attack" and action.lands_tick == now
    if not state.has(action.target or "") or action.target == attacker_id:
        cancelled = ActionCancelled(attacker.id, "attack", "the target has left the encounter")
        return Outcome(state.replace(_finish(attacker, now)), (cancelled,))
    defender = state.get(action.target or "")
    weapon = arms.weapon_of(attacker.sheet, action.weapon, house)
    grip: tables.Grip = action.grip  # type: ignore[assignment]
    own = attack_terms(attacker, action, house)
    events: list[Event] = []
    active = effective_posture(defender) == "active"
    if active:
        defense = defend(defender, action.element, dice, house)
        ad = defense.active
        assert ad is not None
        events.append(
            ActiveDefenseRolled(
                defender.id,
                attacker.id,
                clock.minute_of(now),
                clock.segment_of(now),
                ad.modifiers,
                ad.target,
                ad.total,
                ad.margin,
                ad.success,
                defense.dice,
            )
        )
        if defense.interrupted:
            return _interrupted(state, attacker, defense.defender, action, now, house, events)
    attack_dice = (dice.roll(12, "attack"), dice.roll(12, "attack"))
    if not active:
        defense = defend(defender, action.element, dice, house)  # an aggressive d12 comes after the attack's
    # A failed active defense leaves the passive defense standing, and the term says which one it is.
    posture = "passive" if defense.active is not None else defense.posture
    terms = (*own, Modifier(f"{defender.name}'s defense ({posture})", -defense.value))
    rolled = CoreRoll(sum_of(terms), attack_dice)
    hit = rolled.success
    resolved = AttackResolved(
        attacker=attacker.id,
        defender=defender.id,
        weapon=weapon.name,
        grip=grip,
        damage_type=action.damage_type or "",
        element=action.element,
        called_location=action.called_location,
        minute=clock.minute_of(now),
        segment=clock.segment_of(now),
        defense_posture=defense.posture,
        defense=defense.value,
        modifiers=terms,
        target=rolled.target,
        total=rolled.total,
        margin=rolled.margin,
        hit=hit,
        critical=hit and rolled.critical,
        critical_failure=rolled.critical_failure,
        interrupted=False,  # an interrupted attack draws no dice and has no AttackResolved
        active_defense=defense.active,
        # The active defense's dice are in its own event, drawn before these.
        dice=attack_dice + (() if active else defense.dice),
    )
    events.append(resolved)
    defender = defense.defender
    attacker = _finish(attacker, now)
    if hit:
        rolled_damage = roll_damage(
            attacker.sheet,
            weapon,
            action.damage_type,  # type: ignore[arg-type]
            grip,
            margin=rolled.margin,
            critical=rolled.critical,
            element=action.element,
            armour=defender.sheet.armour_row(),
            dice=dice,
            enchantment=action.enchantment,
            circumstance=action.circumstance,
        )
        events.append(
            DamageRolled(
                attacker.id,
                defender.id,
                rolled_damage.terms,
                rolled_damage.raw,
                rolled_damage.armour_name,
                rolled_damage.armour,
                rolled_damage.armour_ignored,
                rolled_damage.vital,
                rolled_damage.total,
                rolled_damage.dice,
            )
        )
        defender, taken = health.take_damage(
            defender, rolled_damage.total, now, house, location=action.called_location
        )
        events.extend(taken)
    return Outcome(state.replace(attacker, defender), tuple(events))
