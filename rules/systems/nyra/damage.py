"""Damage (seed "Effective Weapon Damage" and the duel's "3 + 4 + 2 + 3 = 12"; RULES.md §1 "Damage").

Damage = the weapon's dice for the declared type (XdY) + its flat part (F, crafting included) + the modifier
of the weapon's primary stat + traits, minus the armour on the struck location for that type, never below 0.

- Swiftness adds the primary modifier once more; Impact adds ⌊rolled dice/2⌋; Mastercraft adds
  ⌊weapon skill/2⌋ (the Carnifex: Base + 2×Primary mod + ½ rolled + ½ skill). A trait listed twice still
  applies once; only Affinity stacks (it widens the critical range, strike.py). Unknown traits are shown
  with +0.
- A critical success (house ``critical_damage``): ``double`` (default) doubles the rolled dice total, no
  re-roll, the flat part untouched; ``roll_again`` rolls the weapon dice once more and adds them (drawn
  after the damage dice); ``off`` adds nothing. Impact always halves the dice as first rolled.
"""

from __future__ import annotations

import dataclasses

from rules.dice import DiceSource, Die, roll_many
from rules.systems.nyra.bleeding import bleed_rate
from rules.systems.nyra.crafting import flat_breakdown
from rules.systems.nyra.events import CombatantDied, DamageRolled, LocationDamaged, LocationHealed, Modifier
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.modifiers import stat_modifier
from rules.systems.nyra.state import NyraCombatant
from rules.systems.nyra.weapons import DamageType, Weapon


def damage_modifiers(
    weapon: Weapon,
    damage_type: DamageType,
    primary_stat: int,
    weapon_skill: int,
    rolled_total: int,
    skill_name: str | None = None,
) -> tuple[Modifier, ...]:
    """Every flat term of a strike's damage, in the order the seed's formula names them."""
    dice = weapon.require_type(damage_type)
    parts = flat_breakdown(weapon, damage_type)
    note = " + ".join(f"{k} {v:+d}" for k, v in parts.items() if v) or "none"
    primary_mod = stat_modifier(primary_stat)
    mods = [
        Modifier("base flat damage", dice.flat, note),
        Modifier(f"{weapon.modifier} mod", primary_mod, f"{weapon.modifier} {primary_stat}"),
    ]
    if weapon.trait_stacks("Swiftness"):
        mods.append(Modifier("Swiftness", primary_mod, f"{weapon.modifier} mod once more"))
    if weapon.trait_stacks("Impact"):
        mods.append(Modifier("Impact", rolled_total // 2, f"half of the rolled {rolled_total}, rounded down"))
    if weapon.trait_stacks("Mastercraft"):
        mods.append(
            Modifier(
                "Mastercraft",
                weapon_skill // 2,
                f"half of {skill_name or weapon.skill} {weapon_skill}, rounded down",
            )
        )
    for trait in weapon.unknown_traits:
        mods.append(Modifier(trait, 0, "a trait the bot does not know: no effect"))
    return tuple(mods)


def roll_damage(
    attacker: NyraCombatant,
    weapon: Weapon,
    damage_type: DamageType,
    target: NyraCombatant,
    location: str,
    critical: bool,
    dice: DiceSource,
    house: HouseRules,
) -> DamageRolled:
    """Draw the weapon's dice (and, with ``roll_again``, the critical dice) and work out the damage dealt."""
    weapon_dice = weapon.require_type(damage_type)
    rolled = roll_many(dice, weapon_dice.count, weapon_dice.sides, "damage")
    rolled_total = sum(d.value for d in rolled)
    extra: tuple[Die, ...] = ()
    critical_bonus = 0
    if critical and house.critical_damage == "double":
        critical_bonus = rolled_total
    elif critical and house.critical_damage == "roll_again":
        extra = roll_many(dice, weapon_dice.count, weapon_dice.sides, "critical damage")
        critical_bonus = sum(d.value for d in extra)
    skill_name, skill = attacker.sheet.weapon_skill(weapon)
    mods = damage_modifiers(
        weapon, damage_type, attacker.sheet.stat(weapon.modifier), skill, rolled_total, skill_name
    )
    gross = rolled_total + critical_bonus + sum(m.value for m in mods)
    armour = target.sheet.armour_value(location, damage_type)
    armour_total = sum(v for _, v in armour)
    return DamageRolled(
        attacker=attacker.id,
        target=target.id,
        weapon=weapon.name,
        damage_type=damage_type.value,
        location=location,
        weapon_damage=str(weapon_dice),
        rolled_total=rolled_total,
        critical=critical,
        critical_rule=house.critical_damage,
        critical_bonus=critical_bonus,
        modifiers=mods,
        gross=gross,
        armour=armour,
        armour_total=armour_total,
        dealt=max(0, gross - armour_total),
        dice=rolled + extra,
    )


def apply_location_damage(
    combatant: NyraCombatant, location: str, amount: int, source: str
) -> tuple[NyraCombatant, tuple]:
    """Add ``amount`` (≥ 0) to a location; events for the new wound state and a death it causes."""
    location = combatant.sheet.table().find(location)
    was_dead = combatant.dead
    before = combatant.damage_at(location)
    state_before = combatant.wound(location)
    updated = dataclasses.replace(
        combatant, location_damage={**combatant.location_damage, location: before + max(0, amount)}
    )
    state_after = updated.wound(location)
    events: list = [
        LocationDamaged(
            combatant=combatant.id,
            location=location,
            source=source,
            amount=max(0, amount),
            damage_before=before,
            damage_after=updated.damage_at(location),
            state_before=state_before.value,
            state_after=state_after.value,
            bleeding_after=bleed_rate(state_after),
        )
    ]
    if updated.dead and not was_dead:
        events.append(CombatantDied(combatant.id, combatant.name, location))
    return updated, tuple(events)


def heal_location(
    combatant: NyraCombatant, location: str, amount: int
) -> tuple[NyraCombatant, LocationHealed]:
    """Take up to ``amount`` damage off a location (a doctor, a potion: the GM decides)."""
    location = combatant.sheet.table().find(location)
    before = combatant.damage_at(location)
    after = max(0, before - max(0, amount))
    damage = {**combatant.location_damage, location: after}
    if after == 0:
        del damage[location]
    updated = dataclasses.replace(combatant, location_damage=damage)
    return updated, LocationHealed(
        combatant.id,
        location,
        before - after,
        before,
        after,
        combatant.wound(location).value,
        updated.wound(location).value,
    )
