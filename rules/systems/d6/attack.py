"""Attacks (seed "Attacking", "Defending", "Criticals", the pin's break-free; RULES.md §3 "Attack").

The to-hit roll is the weapon's attribute + the weapon's skill dice, minus the turn's multi-action dice,
−2D when dual wielding untrained, plus bonuses. It hits when it is **higher** than the save (tie: the
defender). A called shot adds the house bonus to the save. ``backstab`` is the attacker's flank/backstab flag (RULES.md
§3 "Other", §4): +2 critical stage (the stealth stage, not added twice) and it overwhelms a parry (save 8).
A roll in a block's band hits the shield
(a ``ShieldHit`` event for the GM's damage check). Critical: a hit reaching the threshold. Draw order: the
attack roll, then damage (not drawn after a miss). An attack from hiding counts as from stealth (+2 stage)
and reveals the attacker. A pinned attacker may only attack its pinner; damage dealt to the pinner that adds
up to a quarter of its max HP breaks the pin (counter −3). Attacking normally while ahead in a grapple owes
−2/−5/−10 on the next grapple roll in that pair.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource
from rules.errors import NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import base_code, roll_check, turn_mods
from rules.systems.d6.critical import column, crit_stage, percent, threshold
from rules.systems.d6.damage import roll_damage
from rules.systems.d6.events import (
    AttackRolled,
    DefenseOverwhelmed,
    GrapplePenaltyOwed,
    Mod,
    PinBroken,
    Revealed,
    ShieldHit,
)
from rules.systems.d6.health import apply_damage
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.save import is_pinned, save_against
from rules.systems.d6.sheet import Sheet, Weapon
from rules.systems.d6.state import D6State

UNARMED = Weapon("unarmed", DieCode(1), "agility", "blunt", 1)
ATTACKED_WHILE_AHEAD = {1: -2, 2: -5, 3: -10}


def pick_weapon(sheet: Sheet, name: str = "") -> Weapon:
    if name:
        if name.strip().lower() == "unarmed" and not any(w.name.lower() == "unarmed" for w in sheet.weapons):
            return UNARMED
        return sheet.weapon(name)
    return sheet.weapons[0] if sheet.weapons else UNARMED


def attack(
    state: D6State,
    attacker: str,
    target: str,
    dice: DiceSource,
    house: HouseRules,
    *,
    weapon: str = "",
    called: bool = False,
    backstab: bool = False,
    dual_wield: bool = False,
    bonus: int = 0,
    bonus_dice: int = 0,
    penalty_dice: int = 0,
    gm_stage: int = 0,
    magic_scaling: DieCode | None = None,
    ignore_armour: bool = False,
    free_attack: bool = False,
) -> Outcome[D6State]:
    """Resolve one attack: roll, save, shield band, critical, damage, and what they change."""
    a = state.get(attacker)
    t = state.get(target)
    if attacker == target:
        raise NotAllowed("A combatant cannot attack itself.")
    if not a.can_act:
        raise NotAllowed(f"{a.name} cannot attack now.")
    if t.status == "dead":
        raise NotAllowed(f"{t.name} is already dead.")
    pin = next((g for g in state.grapples_of(attacker) if g.pinned_id() == attacker), None)
    if pin is not None and not pin.has(target):
        raise NotAllowed(f"{a.name} is pinned and can only attack {state.get(pin.other(attacker)).name}.")
    w = pick_weapon(a.sheet, weapon)
    code, shown = base_code(a.sheet, w.attribute, w.skill)
    mods: list[Mod] = list(turn_mods(penalty_dice))
    if dual_wield and not a.sheet.dual_wield_trained:
        mods.append(Mod("dual wielding (untrained)", -2, "D"))
    if bonus_dice:
        mods.append(Mod("bonus dice", bonus_dice, "D"))
    if bonus:
        mods.append(Mod("bonus", bonus))
    from_stealth = target in a.hidden_from
    save = save_against(
        state,
        target,
        attacker,
        ranged=w.ranged,
        backstab=backstab or from_stealth,
        called_bonus=house.called_shot_bonus if called else 0,
    )
    result = roll_check(code, mods, dice, house, f"{attacker} attack")
    hit = result.total > save.value
    shield = bool(save.band and not hit and save.band[0] <= result.total <= save.band[1])
    stage = crit_stage(
        a.sheet,
        w,
        t.sheet,
        from_stealth=from_stealth,
        flank=backstab,
        target_staggered=save.staggered,
        target_total_defense=save.total_defense,
        gm=gm_stage,
    )
    col = column(w)
    limit = threshold(save.value, stage.stage, col)
    critical = hit and result.total >= limit
    events: list[Event] = [
        AttackRolled(
            attacker,
            target,
            w.name,
            result.code,
            result.total,
            save.value,
            save.source,
            hit,
            shield,
            called,
            critical,
            stage.stage,
            float(percent(stage.stage, col)),
            limit,
            shown + tuple(mods),
            save.parts,
            stage.parts,
            result.roll,
            flank=backstab,
            crit_column=col,
            dice=result.roll.dice,
        )
    ]
    if shield:
        assert save.band is not None
        events.append(ShieldHit(target, attacker, result.total, save.band[0], save.band[1]))
    # What the defense used up.
    d = state.get(target).defense
    if save.overwhelms:
        state = state.update(target, overwhelmed=True, defense=None)
        events.append(DefenseOverwhelmed(target, attacker, save.overwhelms))
    elif d is not None and save.uses == "parry" and attacker not in d.met:
        state = state.update(target, defense=dataclasses.replace(d, met=(*d.met, attacker)))
    elif d is not None and save.uses == "dodge":
        state = state.update(target, defense=dataclasses.replace(d, met=(*d.met, attacker)))
    # Attacking reveals; melee engages.
    if a.hidden_from:
        state = state.update(attacker, hidden_from=())
        events.append(Revealed(attacker, "attacked"))
    if not w.ranged:
        state = _engage(state, attacker, target)
    # Attacking normally while ahead in a grapple.
    if not free_attack:
        for g in state.grapples_of(attacker):
            ahead = g.toward(attacker)
            if ahead > 0:
                penalty = ATTACKED_WHILE_AHEAD[ahead]
                state = state.put_grapple(g.with_penalty(attacker, penalty))
                events.append(GrapplePenaltyOwed(attacker, g.other(attacker), penalty))
    if hit:
        dmg = roll_damage(
            attacker,
            target,
            w,
            a.sheet.physique,
            t.sheet.armour_ar,
            dice,
            house,
            critical=critical,
            magic_scaling=magic_scaling,
            ignore_armour=ignore_armour,
        )
        events.append(dmg)
        state, more = apply_damage(state, target, dmg.amount, f"{w.name} of {attacker}", house)
        events += more
        if pin is not None and pin.has(target) and is_pinned(state, attacker):
            state, more = _pin_damage(state, attacker, target, dmg.amount)
            events += more
    return Outcome(state, tuple(events))


def _engage(state: D6State, a: str, b: str) -> D6State:
    ca, cb = state.get(a), state.get(b)
    if cb.status != "active" or cb.last_gasp is not None:
        return state
    if b not in ca.engaged_with:
        state = state.update(a, engaged_with=(*ca.engaged_with, b))
    if a not in cb.engaged_with:
        state = state.update(b, engaged_with=(*cb.engaged_with, a))
    return state


def _pin_damage(state: D6State, pinned: str, pinner: str, amount: int) -> tuple[D6State, list[Event]]:
    g = state.grapple(pinned, pinner)
    assert g is not None
    total = g.pin_damage + amount
    hp_max = state.get(pinner).sheet.hp_max
    needed = -(-hp_max // 4)  # "adding up to a quarter": 4 × damage ≥ max HP
    if total * 4 >= hp_max:
        g = dataclasses.replace(g.shifted(pinner, -3), pinned=False, pin_damage=0)
        state = state.put_grapple(g)
        return state, [PinBroken(pinner, pinned, total, needed, g.toward(pinner))]
    return state.put_grapple(dataclasses.replace(g, pin_damage=total)), []
