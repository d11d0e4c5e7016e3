"""Kaernest's events, one line each; times as players say them (``minute:segment``)."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.common import clean
from cogs.text.events.parts import mods_text, plus, roles, signed, terms, who
from cogs.text.events.passing import passes
from cogs.text.events.registry import Heading, Names, arrivals, renders
from cogs.text.events.shared import sheet_refreshed_text
from rules.events import Event
from rules.systems.kaernest.events import (
    ActionCancelled,
    ActionDeclared,
    ActionResolved,
    ActiveDefenseRolled,
    AttackInterrupted,
    AttackResolved,
    CheckRolled,
    ClockAdvanced,
    CombatantAdded,
    CombatantFieldSet,
    CombatantRemoved,
    ConditionChanged,
    DamageHealed,
    DamageRolled,
    DamageSet,
    DamageTaken,
    InitiativeRolled,
    InitiativeSet,
    InitiativeTied,
    LuckPledged,
    LuckSpent,
    PostureChanged,
    SegmentSet,
    SheetRefreshed,
    Waited,
    WoundEffectSet,
)


def at(minute: int, segment: int) -> str:
    return f"{minute}:{segment:02d}"


@renders(ActionDeclared)
def action_declared(e: ActionDeclared, n: Names) -> str:
    what = clean(e.description or e.action, 60)
    if e.target:
        grip = f", {e.grip}-handed" if e.grip else ""
        dtype = f", {e.damage_type}" if e.damage_type else ""
        called = f", a called shot at the {clean(e.called_location, 30)}" if e.called_location else ""
        element = f", {clean(e.element, 20)}" if e.element and e.element != "physical" else ""
        what = f"an attack on {who(n, e.target)} ({clean(e.weapon or '', 30)}{grip}{dtype}{element}{called})"
    # a lone term that is the speed itself says nothing more
    mods = "" if len(e.speed_modifiers) < 2 else terms(e.speed_modifiers)
    return (
        f"📣 {who(n, e.combatant)} declares {what} at {at(e.minute, e.segment)}; it lands at "
        f"**{at(e.lands_minute, e.lands_segment)}** (speed {e.speed}" + (f" = {mods}" if mods else "") + ")"
    )


def _attack_outcome(e: AttackResolved) -> str:
    if e.interrupted:
        return "is **stopped** by an active defense"
    if e.critical:
        return "**hits critically**"
    if e.critical_failure:
        return "**misses badly** (a critical failure)"
    return f"**hits** by {e.margin}" if e.hit else f"**misses** by {abs(e.margin)}"


@renders(AttackResolved)
def attack_resolved(e: AttackResolved, n: Names) -> str:
    line = (
        f"⚔️ {at(e.minute, e.segment)}: {who(n, e.attacker)}'s attack on {who(n, e.defender)} "
        f"{_attack_outcome(e)}: rolled {e.total}, needed ≤ {e.target}"
        + (f" ({terms(e.modifiers)})" if e.modifiers else "")
    )
    if e.element != "physical":
        element = clean(e.element, 20)
        line += f"; {'an' if element[:1].lower() in 'aeiou' else 'a'} {element} attack"
    ad = e.active_defense
    if ad is not None and not ad.success:  # rolled first, on its own line (ActiveDefenseRolled)
        line += "; the active defense failed, so the passive defense stood"
    second: tuple[str, tuple] = ("", ())
    if e.defense_posture == "aggressive" and len(e.dice) > 2:
        second = ("aggressive defense", e.dice[2:])
    return plus(line, roles(("to-hit", e.dice[:2]), second))


@renders(ActiveDefenseRolled)
def active_defense_rolled(e: ActiveDefenseRolled, n: Names) -> str:
    verdict = (
        f"**stops** {who(n, e.attacker)}'s attack"
        if e.success
        else "**fails**, so the passive defense stands"
    )
    return plus(
        f"🛡️ {at(e.minute, e.segment)}: {who(n, e.defender)}'s active defense {verdict}: rolled {e.total}, "
        f"needed ≤ {e.target}" + (f" ({terms(e.modifiers)})" if e.modifiers else ""),
        roles(("active defense", e.dice)),
    )


@renders(AttackInterrupted)
def attack_interrupted(e: AttackInterrupted, n: Names) -> str:
    return (
        f"↩️ {who(n, e.attacker)}'s attack on {who(n, e.defender)} is interrupted: it starts again at "
        f"{at(e.restart_minute, e.restart_segment)} with speed {e.speed} and lands at "
        f"**{at(e.lands_minute, e.lands_segment)}**"
    )


@renders(DamageRolled)
def damage_rolled(e: DamageRolled, n: Names) -> str:
    armour = clean(e.armour_name or "armour", 30)
    if e.armour_ignored:
        armour_text = ", armour ignored"
    elif e.armour:
        armour_text = f" − {e.armour} {armour}"
    else:
        armour_text = ""
    vital = " (a vital hit)" if e.vital else ""
    rolled = [d for d in e.dice if "vital" not in d.label]
    vital_dice = [d for d in e.dice if "vital" in d.label]
    return plus(
        f"💥 **{e.total}** damage to {who(n, e.defender)}{vital}: {terms(e.modifiers) or e.raw} = "
        f"{e.raw}{armour_text}",
        roles(("critical", rolled), ("vital", vital_dice)),
    )


def _condition(before: str, after: str) -> str:
    return f"now **{after}**" if after != before else f"still {after}"


@renders(DamageTaken)
def damage_taken(e: DamageTaken, n: Names) -> str:
    wound = ""
    if e.wound is not None:
        where = f" to the {clean(e.wound.location, 30)}" if e.wound.location else ""
        wound = f", **a wound**{where} ({signed(-abs(e.wound.penalty))} on every roll)"
    by_gm = " (GM)" if e.source == "gm" else ""
    return (
        f"🩸 {who(n, e.combatant)} takes {e.amount}{by_gm}{wound}: {e.total_damage} damage in all "
        f"(Health {e.health}), {_condition(e.condition_before, e.condition_after)}"
    )


@renders(DamageHealed)
def damage_healed(e: DamageHealed, n: Names) -> str:
    return (
        f"💚 {who(n, e.combatant)} heals {e.amount}: {e.total_damage} damage left, "
        f"{_condition(e.condition_before, e.condition_after)}"
    )


@renders(DamageSet)
def damage_set(e: DamageSet, n: Names) -> str:
    return (
        f"✏️ The GM sets {who(n, e.combatant)}'s damage from {e.previous} to **{e.total_damage}**: "
        f"{_condition(e.condition_before, e.condition_after)}"
    )


@renders(ClockAdvanced)
def clock_advanced(e: ClockAdvanced, n: Names) -> Heading:
    # a part of its own: what lands now is other combatants' doing, not the command's
    return Heading(f"🕰️ The clock runs on to **{at(e.minute, e.segment)}**.")


@renders(ActionResolved)
def action_resolved(e: ActionResolved, n: Names) -> str:
    return f"✅ {at(e.minute, e.segment)}: {who(n, e.combatant)}'s action lands: {clean(e.description or e.action, 60)}"


@renders(ActionCancelled)
def action_cancelled(e: ActionCancelled, n: Names) -> str:
    return f"🚫 {who(n, e.combatant)}'s {clean(e.action, 40)} is called off: {clean(e.reason, 80)}"


@renders(InitiativeRolled)
def initiative_rolled(e: InitiativeRolled, n: Names) -> str:
    roll = "the NPCs' fixed 6" if e.fixed else f"d12 {e.roll}"
    mods = terms(e.modifiers)
    capped = f" (capped from {e.uncapped})" if e.uncapped != e.initiative else ""
    return plus(
        f"🎲 {who(n, e.combatant)}: initiative **{e.initiative}**{capped} = {roll}"
        + (f" {mods}" if mods else "")
        + f"; first acts at {at(e.minute, e.segment)}",
        roles(("initiative", e.dice)),
    )


@renders(InitiativeSet)
def initiative_set(e: InitiativeSet, n: Names) -> str:
    return f"✏️ The GM sets {who(n, e.combatant)}'s initiative to **{e.initiative}** (acts at {at(e.minute, e.segment)})"


@renders(SegmentSet)
def segment_set(e: SegmentSet, n: Names) -> str:
    action = f"; its {clean(e.action, 40)} now lands then" if e.action else ""
    return f"✏️ {who(n, e.combatant)} next declares at **{at(e.minute, e.segment)}**{action}"


@renders(Waited)
def waited(e: Waited, n: Names) -> str:
    return (
        f"⏳ {who(n, e.combatant)} waits at {at(e.minute, e.segment)} and declares at "
        f"**{at(e.next_minute, e.next_segment)}**"
    )


@passes(Waited, ClockAdvanced)
def turn_passes(ended: Waited, clock: ClockAdvanced, between: Sequence[Event], n: Names) -> Heading:
    """``/turn end`` and the clock running on at once: ``⏹️ Eva's turn ends: waits a segment → the clock runs
    on to 1:08`` (who declares there is the announcement's to say: the events do not name them)."""
    again, to = at(ended.next_minute, ended.next_segment), at(clock.minute, clock.segment)
    waits = "waits a segment" if again == to else f"waits to declare at {again}"
    return Heading(f"⏹️ {who(n, ended.combatant)}'s turn ends: {waits} → the clock runs on to **{to}**")


@renders(CheckRolled)
def check_rolled(e: CheckRolled, n: Names) -> str:
    verdict = "success" if e.success else "failure"
    if e.critical:
        verdict = "critical success"
    elif e.critical_failure:
        verdict = "critical failure"
    skill = f" + {clean(e.skill, 30)}" if e.skill else ""
    return plus(
        f"🎲 {clean(e.character, 64)}: {clean(e.stat, 30)}{skill} needs ≤ {e.target} "
        f"({mods_text(e.modifiers) or 'no modifiers'}), rolled {e.total} → **{verdict}** (margin {e.margin})",
        roles(("check", e.dice)),
    )


@renders(PostureChanged)
def posture_changed(e: PostureChanged, n: Names) -> str:
    why = f" ({clean(e.reason, 60)})" if e.reason else ""
    return f"🛡️ {who(n, e.combatant)}: {e.previous} → **{e.posture}**{why}"


arrivals(CombatantAdded)


@renders(CombatantAdded)
def combatant_added(e: CombatantAdded, n: Names) -> str:
    npc = " (an NPC)" if e.npc else ""
    return f"➕ **{clean(n.get(e.combatant, e.name), 64)}**{npc} joins on the side *{clean(e.side, 40)}*"


@renders(CombatantRemoved)
def combatant_removed(e: CombatantRemoved, n: Names) -> str:
    return f"➖ **{clean(n.get(e.combatant, e.name), 64)}** leaves the fight"


@renders(CombatantFieldSet)
def combatant_field_set(e: CombatantFieldSet, n: Names) -> str:
    return (
        f"✏️ The GM sets {who(n, e.combatant)}'s {clean(e.field, 40)}: "
        f"{clean(e.previous, 40)} → **{clean(e.value, 40)}**"
    )


@renders(ConditionChanged)
def condition_changed(e: ConditionChanged, n: Names) -> str:
    how = "is now" if e.added else "is no longer"
    return f"🏷️ {who(n, e.combatant)} {how} **{clean(e.condition, 40)}**"


@renders(WoundEffectSet)
def wound_effect_set(e: WoundEffectSet, n: Names) -> str:
    where = f" (to the {clean(e.location, 30)})" if e.location else ""
    effect = clean(e.effect, 100)
    if not effect:
        return f"🩹 {who(n, e.combatant)}'s wound {e.wound}{where} no longer has an effect"
    return f"🩹 {who(n, e.combatant)}'s wound {e.wound}{where} has an effect: *{effect}*"


@renders(InitiativeTied)
def initiative_tied(e: InitiativeTied, n: Names) -> str:
    """Who goes first at a shared initiative, then why: higher Instinct, then the kept d12 roll-off."""
    names = [who(n, c) for c in e.combatants]
    if len(names) == 2:
        order = f"{names[0]} goes before {names[1]}, both at initiative {e.initiative}"
    elif len(names) > 2:
        order = f"{', '.join(names[:-1])} and {names[-1]} act in that order, all at initiative {e.initiative}"
    else:
        order = f"{''.join(names) or 'Nobody'} at initiative {e.initiative}"
    instincts = set(e.instincts)
    if any(e.rolloffs):
        rolled = ", ".join(
            f"{who(n, c)} rolled {' then '.join(str(v) for v in r)}"
            for c, r in zip(e.combatants, e.rolloffs, strict=False)
            if r
        )
        same = f"Instinct {e.instincts[0]} each" if len(instincts) == 1 else "higher Instinct first"
        why = f"{same}, then a d12 roll-off kept for the fight: {rolled}"
    else:
        why = "higher Instinct: " + ", ".join(
            f"{who(n, c)} {i}" for c, i in zip(e.combatants, e.instincts, strict=False)
        )
    return plus(
        f"⚖️ {order}: {why}",
        roles(("roll-off", e.dice)),
    )


@renders(LuckSpent)
def luck_spent(e: LuckSpent, n: Names) -> str:
    return f"🍀 {who(n, e.combatant)} spends Luck {e.luck} on initiative (used up for this fight)"


@renders(LuckPledged)
def luck_pledged(e: LuckPledged, n: Names) -> str:
    if e.pledged:
        return f"🍀 {who(n, e.combatant)} will add Luck {e.luck} to its initiative roll"
    return f"🍀 {who(n, e.combatant)} will not add its Luck to its initiative roll"


@renders(SheetRefreshed)
def sheet_refreshed(e: SheetRefreshed, n: Names) -> str:
    return sheet_refreshed_text(who(n, e.combatant), e.changes)
