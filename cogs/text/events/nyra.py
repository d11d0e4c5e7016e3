"""Nyra's events, one line each: every die, every modifier, the house-rule reading used, and the outcome."""

from __future__ import annotations

from cogs.text.common import clean
from cogs.text.events.parts import die_text, mods_text, rule, signed, who, with_dice
from cogs.text.events.registry import Names, renders
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


def check_text(c: CheckResult) -> str:
    parts = [f"{clean(c.skill_name, 30)} {c.skill}"]
    if c.bonus:
        parts.append(f"bonus {signed(c.bonus)}")
    head = " ".join(parts) + f" ({c.difficulty.value})"
    verdict = "success" if c.success else "failure"
    if c.critical_success:
        verdict = "critical success"
    elif c.critical_failure:
        verdict = "critical failure"
    return f"{head} → need ≤ {c.effective}, rolled {die_text(c.die)}: {verdict} (margin {c.margin})"


@renders(StrikeDeclared)
def strike_declared(e: StrikeDeclared, n: Names) -> str:
    aim = f" aimed at the {clean(e.aimed_at, 30)}" if e.aimed_at else " (wild strike)"
    energy = (
        f"; energy {e.energy_before} → {e.energy_after}"
        if e.energy_cost and e.energy_before is not None
        else ""
    )
    return (
        f"🗡️ {who(n, e.attacker)} strikes {who(n, e.target)} with {clean(e.weapon, 40)} "
        f"({e.damage_type}, {e.weapon_damage}){aim}; difficulty {e.difficulty}; "
        f"delay {e.delay_before} → {e.delay_after} (cost {e.delay_cost}){energy}"
    )


@renders(ContestRolled)
def contest_rolled(e: ContestRolled, n: Names) -> str:
    line = f"⚔️ Contest round {e.round}: {who(n, e.attacker)} {check_text(e.attack)}"
    if e.reaction is not None:
        line += f"; {who(n, e.target)} {check_text(e.reaction)}"
    else:
        line += f"; {who(n, e.target)} does not react"
    return f"{line} → {clean(e.result, 40)}{rule(e.stance_rule)}"


@renders(StrikeResolved)
def strike_resolved(e: StrikeResolved, n: Names) -> str:
    crit = " (critical)" if e.critical else ""
    return (
        f"➡️ Strike on {who(n, e.target)}: **{clean(e.result, 30)}**{crit} — "
        f"{clean(e.reason, 120)}{rule(e.tie_rule)}"
    )


@renders(WeaponFumbled)
def weapon_fumbled(e: WeaponFumbled, n: Names) -> str:
    wear = (
        f"; {clean(e.weapon, 40)} loses {e.loss} durability ({e.durability_before} → {e.durability_after})"
        if e.tracked
        else ""
    )
    penalty = "; the GM decides a fumble penalty" if e.penalty_due else ""
    return f"🤦 {who(n, e.attacker)} fumbles with {clean(e.weapon, 40)} and misses{wear}{penalty}"


@renders(LocationRolled)
def location_rolled(e: LocationRolled, n: Names) -> str:
    return with_dice(
        f"🎯 Location ({clean(e.table, 20)} table, {e.roll}): **{clean(e.location, 30)}**",
        e,
    )


@renders(DamageRolled)
def damage_rolled(e: DamageRolled, n: Names) -> str:
    armour = ", ".join(f"{clean(name, 30)} {value}" for name, value in e.armour)
    mods = mods_text(e.modifiers)
    crit = f", critical {signed(e.critical_bonus)}{rule(e.critical_rule)}" if e.critical else ""
    line = (
        f"💥 Damage {e.weapon_damage} rolled {e.rolled_total}{crit}"
        + (f", {mods}" if mods else "")
        + f" = {e.gross}; armour {armour or 'none'} (−{e.armour_total}) → "
        f"**{e.dealt}** to the {clean(e.location, 30)}"
    )
    return with_dice(line, e)


@renders(LocationDamaged)
def location_damaged(e: LocationDamaged, n: Names) -> str:
    bleed = f", bleeding {e.bleeding_after}" if e.bleeding_after else ""
    return (
        f"🩸 {who(n, e.combatant)} {clean(e.location, 30)}: +{e.amount} "
        f"({e.damage_before} → {e.damage_after}), {e.state_before} → **{e.state_after}**{bleed}"
    )


@renders(LocationHealed)
def location_healed(e: LocationHealed, n: Names) -> str:
    return (
        f"💚 {who(n, e.combatant)}'s {clean(e.location, 30)} heals {e.amount} "
        f"({e.damage_before} → {e.damage_after}), {e.state_before} → **{e.state_after}**"
    )


@renders(TurnEnded)
def turn_ended(e: TurnEnded, n: Names) -> str:
    lost = f" ({e.delay_lost} delay unused)" if e.delay_lost else ""
    return f"⏹️ {who(n, e.combatant)}'s turn ends: {clean(e.reason, 80)}{lost}"


@renders(TurnStarted)
def turn_started(e: TurnStarted, n: Names) -> str:
    bleed = f", bleeding {e.bleeding}" if e.bleeding else ""
    return f"▶️ Phase {e.phase}: {who(n, e.combatant)}'s turn, delay {e.delay_pool}{bleed}"


@renders(PhaseStarted)
def phase_started(e: PhaseStarted, n: Names) -> str:
    return f"🔄 Phase {e.phase} begins."


@renders(SequenceRolled)
def sequence_rolled(e: SequenceRolled, n: Names) -> str:
    return with_dice(f"🎲 {who(n, e.combatant)} has no Sequence on the sheet and rolls **{e.sequence}**", e)


@renders(OrderSet)
def order_set(e: OrderSet, n: Names) -> str:
    order = ", ".join(f"{who(n, o.combatant)} ({o.sequence})" for o in e.order[:25])
    return with_dice(f"📋 The order of play: {order or 'nobody yet'}", e)


@renders(CombatantJoined)
def combatant_joined(e: CombatantJoined, n: Names) -> str:
    return f"➕ **{clean(n.get(e.combatant, e.name), 64)}** joins at place {e.position} in the order"


@renders(VolleyEnded)
def volley_ended(e: VolleyEnded, n: Names) -> str:
    return (
        f"🛡️ The Defense of {who(n, e.target)} ends {who(n, e.attacker)}'s volley (delay lost {e.delay_lost})"
    )


@renders(DelaySpent)
def delay_spent(e: DelaySpent, n: Names) -> str:
    return (
        f"⏱️ {who(n, e.combatant)}: {clean(e.action, 40)}, delay "
        f"{e.delay_before} → {e.delay_after} (cost {e.cost})"
    )


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
    return f"📝 {who(n, e.combatant)} fights with its edited sheet: " + "; ".join(
        clean(c, 60) for c in e.changes[:12]
    )
