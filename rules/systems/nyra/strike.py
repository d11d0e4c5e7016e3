"""Strikes (seed: the duel; RULES.md §1 "Strike").

The attacker declares the damage type (a type listed N/A is refused) and either a *wild strike* (Normal
check, location rolled on the target's location die) or an *aimed strike* (Difficult check at a named
location). The defender reacts with Dodge or Defense, a Normal check; the competitive check decides
(checks.contest). Equal margins follow the house ``tie_rule``: ``reroll`` (both roll again, same checks; after
``tie_reroll_limit`` re-rolls still tied, the defender wins), ``defender``, ``attacker``.

Draw order (RULES.md §0): the attacker's d10, then the defender's (not drawn when the attack already failed
or the defender has no reaction skill), again per re-roll, then the location die (wild strikes), then the
damage dice. A miss draws no damage.

A successful Defense ends the attacker's string of strikes this turn (the rest of its delay is lost); a
successful Dodge does not. A natural 10 on the strike misses; with ``track_durability`` the weapon loses
``fumble_durability_loss``; the GM is told a penalty is due.

Decided readings where RULES.md is silent:
- the reaction skill: the defender's stance (``/defend``) or the house ``default_stance``; ``higher`` takes
  the higher of Dodge and Defense, Defense on a tie (it is the stronger reaction); a defender without the
  stance's skill uses the other; with neither it cannot react (the seed's Claymore foe "has none");
- Affinity: rolls 1..1+stacks are critical successes (they always succeed, like a natural 1; never a 10);
- a strike's delay and energy are spent whatever its outcome (the swing was made);
- a skill the attacker lacks counts as 0 (only a critical success can hit);
- a branch skill on the sheet (``Swords/Claymore``) is rolled instead of its parent (``NyraSheet.weapon_skill``);
- house ``defense_needs_shield``: a defender without a shield on its sheet cannot react with Defense, so it
  reacts with Dodge when it has it (the Claymore passage: "has the dodge skill, or is wielding a shield and
  has the defense skill"), else not at all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.nyra.checks import CheckResult, Difficulty, contest, roll_check
from rules.systems.nyra.damage import apply_location_damage, roll_damage
from rules.systems.nyra.delay import require_delay, turn_is_spent
from rules.systems.nyra.energy import energy_after, require_energy
from rules.systems.nyra.events import (
    ContestRolled,
    LocationRolled,
    StanceSet,
    StrikeDeclared,
    StrikeResolved,
    VolleyEnded,
    WeaponFumbled,
)
from rules.systems.nyra.house import HouseRules
from rules.systems.nyra.state import STANCES, NyraCombat, NyraCombatant
from rules.systems.nyra.turns import finish_turn
from rules.systems.nyra.weapons import DamageType

# The range of the GM's `bonus` (the `/attack` option states each system's).
MAX_BONUS = 20
DODGE = "Dodge"
DEFENSE = "Defense"


@dataclass(frozen=True, slots=True)
class StrikeArgs:
    """``/attack``: who strikes whom, with which weapon (default: the first carried), which damage type, and
    ``aim`` (a location) for an aimed strike. ``bonus`` is a GM circumstance modifier to the attack check."""

    attacker: str
    target: str
    damage_type: str
    weapon: str | None = None
    aim: str | None = None
    bonus: int = 0


def stance_reading(defender: NyraCombatant, house: HouseRules) -> str:
    """Where the defender's stance came from, for the log: its own choice or the house default."""
    reading = (
        f"chosen: {defender.stance}" if defender.stance else f"house default_stance: {house.default_stance}"
    )
    if house.defense_needs_shield and defender.sheet.skill(DEFENSE) is not None:
        shield = defender.sheet.shield
        reading += f"; shield {shield}" if shield else "; no shield: no Defense"  # defense_needs_shield
    return reading


def reaction_skill(defender: NyraCombatant, house: HouseRules) -> tuple[str | None, int]:
    """Which skill the defender reacts with, and its value; (None, 0) when it cannot react."""
    stance = defender.stance or house.default_stance
    dodge = defender.sheet.skill(DODGE)
    defense = defender.sheet.skill(DEFENSE)
    if house.defense_needs_shield and not defender.sheet.shield:
        defense = None
    if stance == "higher":
        if dodge is None and defense is None:
            return None, 0
        if defense is not None and (dodge is None or defense >= dodge):
            return DEFENSE, defense
        return DODGE, dodge  # type: ignore[return-value]
    preferred, other = (
        ((DODGE, dodge), (DEFENSE, defense)) if stance == "dodge" else ((DEFENSE, defense), (DODGE, dodge))
    )
    if preferred[1] is not None:
        return preferred  # type: ignore[return-value]
    if other[1] is not None:
        return other  # type: ignore[return-value]
    return None, 0


def set_stance(
    state: NyraCombat, actor: str, stance: str, dice: DiceSource, house: HouseRules
) -> Outcome[NyraCombat]:
    """``/defend``: ``dodge``, ``defense``, or ``auto`` (the house default) for every later reaction."""
    combatant = state.get(actor)
    value = (stance or "").strip().lower()
    if value in {"auto", "default", "higher", ""}:
        new = None
    elif value in STANCES:
        new = value
    else:
        raise InvalidInput(f"`{stance}` is not a stance; choose dodge, defense or auto.")
    state = state.with_combatant(dataclasses.replace(combatant, stance=new))
    return Outcome(state, (StanceSet(combatant.id, new or f"auto ({house.default_stance})"),))


def strike(state: NyraCombat, args: StrikeArgs, dice: DiceSource, house: HouseRules) -> Outcome[NyraCombat]:
    """One strike, resolved completely: declaration, contest, location, damage, volley and turn end."""
    attacker = state.require_turn(args.attacker)
    if not state.turn_started:
        raise NotAllowed(f"{attacker.name}'s turn has not started yet.")
    target = state.get(args.target)
    if target.id == attacker.id:
        raise NotAllowed("A combatant cannot strike itself.")
    if target.dead:
        raise NotAllowed(f"{target.name} is already dead.")
    if state.volley_ended:
        raise NotAllowed(f"A Defense ended {attacker.name}'s strikes this turn; end the turn.")
    if not -MAX_BONUS <= args.bonus <= MAX_BONUS:
        raise InvalidInput(f"A strike bonus must be between -{MAX_BONUS} and +{MAX_BONUS}.")
    weapon = attacker.sheet.weapon(args.weapon)
    damage_type = DamageType.parse(args.damage_type)
    weapon_damage = weapon.require_type(damage_type)
    require_delay(attacker, weapon.delay, f"a strike with the {weapon.name}")
    require_energy(attacker, weapon)
    table = target.sheet.table()
    aimed_at = table.find(args.aim) if args.aim and args.aim.strip() else None
    difficulty = Difficulty.DIFFICULT if aimed_at else Difficulty.NORMAL

    delay_after = attacker.delay_pool - weapon.delay
    paid = dataclasses.replace(attacker, delay_pool=delay_after, energy=energy_after(attacker, weapon))
    events: list[Event] = [
        StrikeDeclared(
            attacker=attacker.id,
            target=target.id,
            weapon=weapon.name,
            damage_type=damage_type.value,
            weapon_damage=str(weapon_damage),
            mode="aimed" if aimed_at else "wild",
            aimed_at=aimed_at,
            difficulty=difficulty.value,
            delay_cost=weapon.delay,
            delay_before=attacker.delay_pool,
            delay_after=delay_after,
            energy_cost=weapon.energy_cost if attacker.energy is not None else 0,
            energy_before=attacker.energy,
            energy_after=paid.energy,
        )
    ]

    skill_name, skill = attacker.sheet.weapon_skill(weapon)
    critical_range = 1 + weapon.trait_stacks("Affinity")
    react_name, react_value = reaction_skill(target, house)
    result, tie_rule, attack, rounds = _contest(
        attacker,
        target,
        skill_name,
        skill,
        difficulty,
        args.bonus,
        critical_range,
        react_name,
        react_value,
        dice,
        house,
        events,
    )

    state = state.with_combatant(paid)
    reason = {
        "hit": "the strike lands",
        "miss": "the attack check failed",
        "defended": f"{target.name}'s {react_name} beat the strike",
    }[result]
    if result == "miss" and attack.critical_failure:
        reason = "a natural 10: a critical failure"
    events.append(
        StrikeResolved(attacker.id, target.id, result, reason, attack.critical_success, tie_rule, rounds)
    )

    if attack.critical_failure:
        paid, fumble = _fumble(paid, weapon.name, house)
        state = state.with_combatant(paid)
        events.append(fumble)

    if result == "defended" and react_name == DEFENSE:
        events.append(VolleyEnded(attacker.id, target.id, paid.delay_pool))
        paid = dataclasses.replace(paid, delay_pool=0)
        state = dataclasses.replace(state.with_combatant(paid), volley_ended=True)

    if result == "hit":
        if aimed_at:
            location = aimed_at
        else:
            die = dice.roll(table.die, f"{target.name} hit location")
            location = table.location_for(die.value)
            events.append(LocationRolled(target.id, table.name, die.value, location, (die,)))
        damage = roll_damage(
            paid, weapon, damage_type, target, location, attack.critical_success, dice, house
        )
        events.append(damage)
        target = state.get(target.id)
        target, hurt = apply_location_damage(target, location, damage.dealt, "strike")
        state = state.with_combatant(target)
        events.extend(hurt)

    spent = turn_is_spent(state, state.get(attacker.id), house)
    if spent:
        return finish_turn(state, spent, dice, house, tuple(events))
    return Outcome(state, tuple(events))


def _contest(
    attacker: NyraCombatant,
    target: NyraCombatant,
    skill_name: str,
    skill: int,
    difficulty: Difficulty,
    bonus: int,
    critical_range: int,
    react_name: str | None,
    react_value: int,
    dice: DiceSource,
    house: HouseRules,
    events: list[Event],
) -> tuple[str, str | None, CheckResult, int]:
    """Roll rounds of the competitive check until it is decided; append a ContestRolled per round."""
    round_no = 0
    tied = False
    while True:
        round_no += 1
        attack = roll_check(
            skill_name,
            skill,
            difficulty,
            dice,
            bonus=bonus,
            critical_range=critical_range,
            label=f"{attacker.name} {skill_name}",
        )
        reaction = None
        if attack.success and react_name is not None:
            reaction = roll_check(
                react_name, react_value, Difficulty.NORMAL, dice, label=f"{target.name} {react_name}"
            )
        result = contest(attack, reaction)
        dice_drawn = attack.dice + (reaction.dice if reaction else ())
        events.append(
            ContestRolled(
                attacker.id,
                target.id,
                round_no,
                attack,
                react_name,
                stance_reading(target, house),
                reaction,
                result,
                dice_drawn,
            )
        )
        if result != "tie":
            return result, ("reroll" if tied else None), attack, round_no
        if house.tie_rule == "attacker":
            return "hit", "attacker", attack, round_no
        if house.tie_rule == "defender":
            return "defended", "defender", attack, round_no
        if round_no > house.tie_reroll_limit:
            return "defended", "reroll (limit reached: defender)", attack, round_no
        tied = True


def _fumble(attacker: NyraCombatant, weapon: str, house: HouseRules) -> tuple[NyraCombatant, WeaponFumbled]:
    before = attacker.durability.get(weapon)
    tracked = house.track_durability and before is not None
    if not tracked:
        return attacker, WeaponFumbled(attacker.id, weapon, False, 0, before, before)
    after = max(0, before - house.fumble_durability_loss)  # type: ignore[operator]
    updated = dataclasses.replace(attacker, durability={**attacker.durability, weapon: after})
    return updated, WeaponFumbled(attacker.id, weapon, True, before - after, before, after)  # type: ignore[operator]
