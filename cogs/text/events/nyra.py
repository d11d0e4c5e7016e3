"""Nyra's events, one line each: every die, every modifier, the house-rule reading used, and the outcome."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.common import clean
from cogs.text.events.parts import die_text, house, plus, roles, signed, terms, who
from cogs.text.events.passing import passes
from cogs.text.events.registry import Names, renders
from cogs.text.events.shared import sheet_refreshed_text
from rules.events import Event
from rules.systems.nyra.checks import CheckResult
from rules.systems.nyra.events import (
    CheckMade,
    CombatantDied,
    CombatantJoined,
    ContestRolled,
    DamageRolled,
    DelaySpent,
    FieldSet,
    LocationDamaged,
    LocationHealed,
    LocationRolled,
    OrderSet,
    PhaseStarted,
    SequenceRolled,
    SheetRefreshed,
    StanceSet,
    StrikeDeclared,
    StrikeResolved,
    TurnEnded,
    TurnStarted,
    VolleyEnded,
    WeaponFumbled,
)
from rules.systems.nyra.weapons import DamageType


def type_name(code: str) -> str:
    try:
        return DamageType(str(code).upper()).word
    except ValueError:
        return clean(str(code), 20)


def verdict(c: CheckResult) -> str:
    if c.critical_success:
        return "a critical success"
    if c.critical_failure:
        return "a critical failure"
    return f"succeeds by {c.margin}" if c.success else f"fails by {abs(c.margin)}"


def check_text(c: CheckResult) -> str:
    """A roll-under d10: the skill, what it needed, the die and how it came out."""
    bonus = f" {signed(c.bonus)} bonus" if c.bonus else ""
    difficulty = "" if c.difficulty.value == "normal" else f" ({c.difficulty.value})"
    return (
        f"{clean(c.skill_name, 30)} {c.skill}{bonus}{difficulty} needs ≤ {c.effective}, "
        f"rolled {die_text(c.die)}: {verdict(c)}"
    )


@renders(StrikeDeclared)
def strike_declared(e: StrikeDeclared, n: Names) -> str:
    aim = f"an aimed strike at the {clean(e.aimed_at, 30)}" if e.aimed_at else "a wild strike"
    energy = (
        f", energy {e.energy_before} → {e.energy_after}"
        if e.energy_cost and e.energy_before is not None
        else ""
    )
    hard = "" if e.difficulty == "normal" else f" ({clean(e.difficulty, 20)})"
    return (
        f"🗡️ {who(n, e.attacker)} strikes at {who(n, e.target)} with the {clean(e.weapon, 40)} — "
        f"{aim}{hard}, {type_name(e.damage_type)} {e.weapon_damage}; delay {e.delay_before} → "
        f"{e.delay_after}{energy}"
    )


@renders(ContestRolled)
def contest_rolled(e: ContestRolled, n: Names) -> str:
    again = f" (roll {e.round})" if e.round > 1 else ""
    line = f"⚔️ To hit{again}: {who(n, e.attacker)}'s {check_text(e.attack)}"
    # the house defense_needs_shield took a shieldless defender's Defense away (strike.stance_reading)
    no_shield = "no shield: no Defense" in e.stance_rule
    if e.reaction is not None:
        line += f"; {who(n, e.target)}'s {check_text(e.reaction)}"
        if no_shield:
            line += " (no shield, so no Defense)" + house("defense_needs_shield")
        elif e.stance_rule.startswith("house"):
            stance = e.stance_rule.split(";", 1)[0].rsplit(":", 1)[-1].strip()
            line += house("default_stance " + stance)
    elif e.attack.success:
        line += f"; {who(n, e.target)} cannot react"
        if no_shield:
            line += " (no shield, so no Defense, and no Dodge)" + house("defense_needs_shield")
    return line


@renders(StrikeResolved)
def strike_resolved(e: StrikeResolved, n: Names) -> str:
    outcome = {"hit": "hits", "miss": "misses", "defended": "is defended by"}.get(
        e.result, clean(e.result, 30)
    )
    crit = " — a critical hit" if e.critical else ""
    return (
        f"➡️ {who(n, e.attacker)} **{outcome}** {who(n, e.target)}{crit}: {clean(e.reason, 120)}"
        f"{house(f'tie_rule {e.tie_rule}') if e.tie_rule else ''}"
    )


@renders(WeaponFumbled)
def weapon_fumbled(e: WeaponFumbled, n: Names) -> str:
    wear = (
        f"; the {clean(e.weapon, 40)} loses {e.loss} durability ({e.durability_before} → {e.durability_after})"
        if e.tracked
        else ""
    )
    penalty = "; the GM decides a fumble penalty" if e.penalty_due else ""
    return f"🤦 {who(n, e.attacker)} fumbles with the {clean(e.weapon, 40)} and misses{wear}{penalty}"


@renders(LocationRolled)
def location_rolled(e: LocationRolled, n: Names) -> str:
    return plus(
        f"🎯 It lands on the **{clean(e.location, 30)}** ({clean(e.table, 20)} table, {e.roll})",
        roles(("location", e.dice)),
    )


def _dice_count(code: str) -> int:
    head = str(code).lower().split("d", 1)[0]
    return int(head) if head.isdecimal() else 1


@renders(DamageRolled)
def damage_rolled(e: DamageRolled, n: Names) -> str:
    armour = " + ".join(f"{clean(name, 30)} {value}" for name, value in e.armour)
    mods = terms(e.modifiers)
    count = _dice_count(e.weapon_damage)
    crit = f" {signed(e.critical_bonus)} critical" if e.critical else ""
    sum_text = f"{e.weapon_damage} rolled {e.rolled_total}{crit}" + (f" {mods}" if mods else "")
    armour_text = f" − armour {e.armour_total} ({armour})" if e.armour_total else " (no armour)"
    return plus(
        f"💥 **{e.dealt}** {type_name(e.damage_type)} damage to {who(n, e.target)}'s {clean(e.location, 30)}: "
        f"{sum_text} = {e.gross}{armour_text}{house(f'critical_damage {e.critical_rule}') if e.critical else ''}",
        roles(("damage", e.dice[:count]), ("critical", e.dice[count:])),
    )


@renders(LocationDamaged)
def location_damaged(e: LocationDamaged, n: Names) -> str:
    bleed = f", bleeding {e.bleeding_after} a phase" if e.bleeding_after else ""
    state = (
        f"now **{clean(e.state_after, 20)}**"
        if e.state_after != e.state_before
        else f"still {clean(e.state_after, 20)}"
    )
    why = {"bleeding": " from bleeding", "gm": " from the GM"}.get(e.source, "")
    return (
        f"🩸 {who(n, e.combatant)}'s {clean(e.location, 30)} takes {e.amount}{why} "
        f"({e.damage_after} in all): {state}{bleed}"
    )


@renders(LocationHealed)
def location_healed(e: LocationHealed, n: Names) -> str:
    state = (
        f"now **{clean(e.state_after, 20)}**"
        if e.state_after != e.state_before
        else f"still {clean(e.state_after, 20)}"
    )
    return (
        f"💚 {who(n, e.combatant)}'s {clean(e.location, 30)} heals {e.amount} "
        f"({e.damage_after} damage left): {state}"
    )


TURN_END_REASONS = {
    "player": "ends the turn",
    "gm": "'s turn is ended by the GM",
    "delay spent": "has spent the delay: the turn ends",
    "nothing affordable": "cannot afford another action: the turn ends",
    "defense ended the volley": "'s turn ends (the Defense ended the volley)",
    "dead": "'s turn ends (dead)",
    "removed": "'s turn ends (left the fight)",
}


@renders(TurnEnded)
def turn_ended(e: TurnEnded, n: Names) -> str:
    lost = f" ({e.delay_lost} delay unused)" if e.delay_lost else ""
    said = TURN_END_REASONS.get(e.reason, f"'s turn ends ({clean(e.reason, 60)})")
    space = "" if said.startswith("'") else " "
    return f"⏹️ {who(n, e.combatant)}{space}{said}{lost}"


@renders(TurnStarted)
def turn_started(e: TurnStarted, n: Names) -> str:
    bleed = f"; bleeding {e.bleeding} a phase" if e.bleeding else ""
    return f"▶️ Phase {e.phase}: {who(n, e.combatant)}'s turn, with {e.delay_pool} delay to spend{bleed}"


@renders(PhaseStarted)
def phase_started(e: PhaseStarted, n: Names) -> str:
    return f"🔄 Phase {e.phase} begins."


@passes(TurnEnded, TurnStarted, absorbs=(PhaseStarted,))
def turn_passes(ended: TurnEnded, started: TurnStarted, between: Sequence[Event], n: Names) -> str:
    """``⏹️ Vale's turn ends → Phase 2 begins: Orn's turn, with 8 delay to spend`` (the delay left unused is
    lost either way; a reason other than the player's own is kept)."""
    said = "'s turn ends" if ended.reason == "player" else TURN_END_REASONS.get(ended.reason)
    said = said or f"'s turn ends ({clean(ended.reason, 60)})"
    space = "" if said.startswith("'") else " "
    began = " begins" if any(isinstance(e, PhaseStarted) for e in between) else ""
    bleed = f"; bleeding {started.bleeding} a phase" if started.bleeding else ""
    return (
        f"⏹️ {who(n, ended.combatant)}{space}{said} → Phase {started.phase}{began}: "
        f"{who(n, started.combatant)}'s turn, with {started.delay_pool} delay to spend{bleed}"
    )


@renders(SequenceRolled)
def sequence_rolled(e: SequenceRolled, n: Names) -> str:
    return plus(
        f"🎲 {who(n, e.combatant)} has no Sequence on the sheet: rolled **{e.sequence}**",
        roles(("Sequence", e.dice)),
    )


@renders(OrderSet)
def order_set(e: OrderSet, n: Names) -> str:
    """Highest Sequence first; where Sequences tie, AGI decides (then the kept roll-offs), and says so."""
    counts: dict[int, int] = {}
    for o in e.order:
        counts[o.sequence] = counts.get(o.sequence, 0) + 1
    parts = []
    for o in e.order[:25]:
        tie = ""
        if counts[o.sequence] > 1:
            tie = f", AGI {o.agi}" + (f", roll-off {' '.join(map(str, o.rolloff))}" if o.rolloff else "")
        parts.append(f"{who(n, o.combatant)} (Sequence {o.sequence}{tie})")
    return plus(
        f"📋 Order of play, highest Sequence first: {', '.join(parts) or 'nobody yet'}",
        roles(("roll-off", e.dice)),
    )


@renders(CombatantJoined)
def combatant_joined(e: CombatantJoined, n: Names) -> str:
    return f"➕ **{clean(n.get(e.combatant, e.name), 64)}** takes place {e.position + 1} in the order"


@renders(VolleyEnded)
def volley_ended(e: VolleyEnded, n: Names) -> str:
    return (
        f"🛡️ {who(n, e.target)}'s Defense stops {who(n, e.attacker)}'s volley: "
        f"the {e.delay_lost} delay left is lost"
    )


@renders(DelaySpent)
def delay_spent(e: DelaySpent, n: Names) -> str:
    return f"⏱️ {who(n, e.combatant)} spends {e.cost} delay on {clean(e.action, 40)} ({e.delay_after} left)"


@renders(StanceSet)
def stance_set(e: StanceSet, n: Names) -> str:
    return f"🛡️ {who(n, e.combatant)} stands ready to **{clean(e.stance, 20)}**"


@renders(CombatantDied)
def combatant_died(e: CombatantDied, n: Names) -> str:
    return f"☠️ {who(n, e.combatant)} dies (a fatal wound to the {clean(e.location, 30)})"


@renders(FieldSet)
def field_set(e: FieldSet, n: Names) -> str:
    return f"✏️ The GM sets {who(n, e.combatant)}'s {clean(e.field, 40)}: {clean(e.before, 40)} → **{clean(e.after, 40)}**"


@renders(CheckMade)
def check_made(e: CheckMade, n: Names) -> str:
    return f"🎲 {clean(e.character, 64)}: {check_text(e.check)}"


@renders(SheetRefreshed)
def sheet_refreshed(e: SheetRefreshed, n: Names) -> str:
    return sheet_refreshed_text(who(n, e.combatant), e.changes)
