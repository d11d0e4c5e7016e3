"""Every user-facing sentence of the action commands (`/attack` … `/lockin`, `/check`, the Death Save button),
and the resolution messages built from the events' ``to_dict()`` data.

Per system, the main resolution events get their own line (``NYRA``, ``KAERNEST``, ``D6`` below): every die
(the Wild Die marked ``ᵂ``, GM-queued dice marked ``ᴳ``), every modifier, the house-rule reading the rules
used, and the outcome. Anything else falls back to ``cogs._render_encounters.event_line``. A resolution is
split into as many messages as it needs (each ≤ 2000 characters, split between lines, never inside one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cogs._render_encounters import MAX_MESSAGE, clean, event_line, fit

Line = Callable[[Mapping[str, Any], Mapping[str, str]], str | None]
MAX_MESSAGES = 4
WILD = "ᵂ"
GM = "ᴳ"


# --- small pieces ---------------------------------------------------------------------------------------


def die_text(d: Mapping[str, Any]) -> str:
    mark = ""
    if "wild" in str(d.get("label", "")).lower():
        mark += WILD
    if d.get("origin") == "gm":
        mark += GM
    return f"{d.get('value')}{mark}"


def dice_list(dice: Sequence[Mapping[str, Any]] | None) -> str:
    shown = [die_text(d) for d in dice or () if isinstance(d, Mapping)]
    return f"🎲 [{' '.join(shown)}]" if shown else ""


def signed(value: Any) -> str:
    try:
        n = int(value)
    except (TypeError, ValueError):
        return str(value)
    return f"+{n}" if n >= 0 else f"−{abs(n)}"


def mods_text(mods: Sequence[Any] | None) -> str:
    """Modifiers as ``+2 Grace, −1D wounds``; D6 ``Mod`` dicts carry a unit."""
    parts = []
    for m in mods or ():
        if not isinstance(m, Mapping):
            continue
        unit = m.get("unit", "flat")
        suffix = "D" if unit in ("D", "skill") else ""
        label = clean(str(m.get("label") or m.get("source") or ""), 40)
        note = m.get("note")
        parts.append(f"{signed(m.get('value'))}{suffix} {label}{f' ({clean(note, 40)})' if note else ''}")
    return ", ".join(parts)


def code_text(code: Any) -> str:
    if isinstance(code, Mapping):
        dice, pips = code.get("dice", 0), code.get("pips", 0)
        return f"{dice}D" + (f"+{pips}" if pips else "")
    return str(code) if code is not None else ""


def who(names: Mapping[str, str], cid: Any) -> str:
    if cid is None or cid == "":
        return "?"
    return f"**{clean(names.get(str(cid), str(cid)), 64)}**"


def rule(text: Any) -> str:
    """The house-rule reading a resolution used, in italics."""
    return f" *(rule: {clean(str(text), 60)})*" if text else ""


def with_dice(line: str, e: Mapping[str, Any]) -> str:
    shown = dice_list(e.get("dice"))
    return f"{line} {shown}".strip()


def pool_rule(roll: Any) -> str:
    """The D6 pool's readings (explode, wild one) when the roll shows one of them happening."""
    if not isinstance(roll, Mapping):
        return ""
    notes = []
    if roll.get("explosions"):
        notes.append(f"Wild Die exploded ({roll.get('explode', '')})")
    wild = roll.get("wild")
    if isinstance(wild, Mapping) and wild.get("value") == 1:
        notes.append(f"Wild Die 1 ({roll.get('wild_one_rule', '')})")
    return f" *({'; '.join(clean(n, 60) for n in notes)})*" if notes else ""


# --- Nyra -----------------------------------------------------------------------------------------------


def _nyra_check(c: Mapping[str, Any] | None) -> str:
    if not isinstance(c, Mapping):
        return "—"
    die = c.get("die") or {}
    parts = [f"{clean(c.get('skill_name', ''), 30)} {c.get('skill')}"]
    if c.get("bonus"):
        parts.append(f"bonus {signed(c.get('bonus'))}")
    difficulty = c.get("difficulty")
    head = " ".join(parts) + (f" ({difficulty})" if difficulty else "")
    verdict = "success" if c.get("success") else "failure"
    if c.get("critical_success"):
        verdict = "critical success"
    elif c.get("critical_failure"):
        verdict = "critical failure"
    return (
        f"{head} → need ≤ {c.get('effective')}, rolled {die_text(die)}: {verdict} (margin {c.get('margin')})"
    )


def nyra_declared(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    aim = f" aimed at the {clean(e['aimed_at'], 30)}" if e.get("aimed_at") else " (wild strike)"
    return (
        f"🗡️ {who(n, e.get('attacker'))} strikes {who(n, e.get('target'))} with {clean(e.get('weapon', ''), 40)} "
        f"({e.get('damage_type')}, {e.get('weapon_damage')}){aim}; difficulty {e.get('difficulty')}; "
        f"delay {e.get('delay_before')} → {e.get('delay_after')} (cost {e.get('delay_cost')})"
    )


def nyra_contest(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    line = f"⚔️ Contest round {e.get('round')}: {who(n, e.get('attacker'))} {_nyra_check(e.get('attack'))}"
    if e.get("reaction") is not None:
        line += f"; {who(n, e.get('target'))} {_nyra_check(e.get('reaction'))}"
    else:
        line += f"; {who(n, e.get('target'))} does not react"
    return f"{line} → {clean(str(e.get('result', '')), 40)}{rule(e.get('stance_rule'))}"


def nyra_resolved(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    crit = " (critical)" if e.get("critical") else ""
    return (
        f"➡️ Strike on {who(n, e.get('target'))}: **{clean(str(e.get('result', '')), 30)}**{crit} — "
        f"{clean(str(e.get('reason', '')), 120)}{rule(e.get('tie_rule'))}"
    )


def nyra_location(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return with_dice(
        f"🎯 Location ({clean(str(e.get('table', '')), 20)} table, {e.get('roll')}): **{clean(str(e.get('location', '')), 30)}**",
        e,
    )


def nyra_damage(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    armour = ", ".join(f"{clean(str(a[0]), 30)} {a[1]}" for a in e.get("armour") or () if len(a) == 2)
    mods = mods_text(e.get("modifiers"))
    crit = (
        f", critical {signed(e.get('critical_bonus'))}{rule(e.get('critical_rule'))}"
        if e.get("critical")
        else ""
    )
    line = (
        f"💥 Damage {e.get('weapon_damage')} rolled {e.get('rolled_total')}{crit}"
        + (f", {mods}" if mods else "")
        + f" = {e.get('gross')}; armour {armour or 'none'} (−{e.get('armour_total')}) → "
        f"**{e.get('dealt')}** to the {clean(str(e.get('location', '')), 30)}"
    )
    return with_dice(line, e)


def nyra_location_damaged(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    bleed = f", bleeding {e.get('bleeding_after')}" if e.get("bleeding_after") else ""
    return (
        f"🩸 {who(n, e.get('combatant'))} {clean(str(e.get('location', '')), 30)}: +{e.get('amount')} "
        f"({e.get('damage_before')} → {e.get('damage_after')}), {e.get('state_before')} → **{e.get('state_after')}**{bleed}"
    )


def nyra_turn_ended(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    lost = f" ({e.get('delay_lost')} delay unused)" if e.get("delay_lost") else ""
    return f"⏹️ {who(n, e.get('combatant'))}'s turn ends: {clean(str(e.get('reason', '')), 80)}{lost}"


def nyra_turn_started(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    bleed = f", bleeding {e.get('bleeding')}" if e.get("bleeding") else ""
    return (
        f"▶️ Phase {e.get('phase')}: {who(n, e.get('combatant'))}'s turn, delay {e.get('delay_pool')}{bleed}"
    )


def nyra_volley(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🛡️ The Defense of {who(n, e.get('target'))} ends {who(n, e.get('attacker'))}'s volley (delay lost {e.get('delay_lost')})"


def nyra_delay(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"⏱️ {who(n, e.get('combatant'))}: {clean(str(e.get('action', '')), 40)}, delay "
        f"{e.get('delay_before')} → {e.get('delay_after')} (cost {e.get('cost')})"
    )


def nyra_stance(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🛡️ {who(n, e.get('combatant'))} stands ready to **{clean(str(e.get('stance', '')), 20)}**"


def nyra_died(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"☠️ {who(n, e.get('combatant'))} dies (a fatal wound to the {clean(str(e.get('location', '')), 30)})"
    )


def nyra_check(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🎲 {clean(str(e.get('character', '')), 64)}: {_nyra_check(e.get('check'))}"


NYRA: dict[str, Line] = {
    "StrikeDeclared": nyra_declared,
    "ContestRolled": nyra_contest,
    "StrikeResolved": nyra_resolved,
    "LocationRolled": nyra_location,
    "DamageRolled": nyra_damage,
    "LocationDamaged": nyra_location_damaged,
    "TurnEnded": nyra_turn_ended,
    "TurnStarted": nyra_turn_started,
    "VolleyEnded": nyra_volley,
    "DelaySpent": nyra_delay,
    "StanceSet": nyra_stance,
    "CombatantDied": nyra_died,
    "CheckMade": nyra_check,
}


# --- Kaernest -------------------------------------------------------------------------------------------


def _at(minute: Any, segment: Any) -> str:
    return f"{minute}:{int(segment):02d}" if isinstance(segment, int) else f"{minute}:{segment}"


def k_declared(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    what = clean(str(e.get("description") or e.get("action") or ""), 60)
    if e.get("target"):
        grip = f", {e.get('grip')}h" if e.get("grip") else ""
        dtype = f", {e.get('damage_type')}" if e.get("damage_type") else ""
        called = f", called shot at {clean(e['called_location'], 30)}" if e.get("called_location") else ""
        what = f"an attack on {who(n, e.get('target'))} ({clean(str(e.get('weapon') or ''), 30)}{grip}{dtype}{called})"
    mods = mods_text(e.get("speed_modifiers"))
    return (
        f"📣 {who(n, e.get('combatant'))} declares {what} at {_at(e.get('minute'), e.get('segment'))}: "
        f"speed {e.get('speed')}"
        + (f" ({mods})" if mods else "")
        + f", lands at **{_at(e.get('lands_minute'), e.get('lands_segment'))}**"
    )


def k_attack(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    verdict = "**hit**" if e.get("hit") else "**miss**"
    if e.get("critical"):
        verdict = "**critical hit**"
    elif e.get("critical_failure"):
        verdict = "**critical failure**"
    line = (
        f"⚔️ {_at(e.get('minute'), e.get('segment'))} {who(n, e.get('attacker'))} attacks {who(n, e.get('defender'))}: "
        f"target {e.get('target')} ({mods_text(e.get('modifiers')) or 'no modifiers'}; defense {e.get('defense')} "
        f"{clean(str(e.get('defense_posture', '')), 20)}), rolled {e.get('total')} → {verdict} (margin {e.get('margin')})"
    )
    ad = e.get("active_defense")
    if isinstance(ad, Mapping):
        line += (
            f"; active defense target {ad.get('target')} ({mods_text(ad.get('modifiers'))}), rolled {ad.get('total')}: "
            + ("success" if ad.get("success") else "failure")
        )
    if e.get("interrupted"):
        line += " (interrupted)"
    return with_dice(line, e)


def k_active_defense(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    verdict = "success (interrupted)" if e.get("success") else "failure: passive defense"
    return with_dice(
        f"🛡️ {_at(e.get('minute'), e.get('segment'))} {who(n, e.get('defender'))}'s active defense against "
        f"{who(n, e.get('attacker'))}: active defense target {e.get('target')} ({mods_text(e.get('modifiers'))}), "
        f"rolled {e.get('total')} → **{verdict}**",
        e,
    )


def k_interrupted(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"↩️ {who(n, e.get('attacker'))}'s attack on {who(n, e.get('defender'))} is interrupted: it restarts at "
        f"{_at(e.get('restart_minute'), e.get('restart_segment'))} (speed {e.get('speed')}) and lands at "
        f"**{_at(e.get('lands_minute'), e.get('lands_segment'))}**"
    )


def k_damage(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    armour = clean(str(e.get("armour_name") or "armour"), 30)
    armour_text = "armour ignored" if e.get("armour_ignored") else f"{armour} −{e.get('armour')}"
    vital = " (vital)" if e.get("vital") else ""
    return with_dice(
        f"💥 Damage to {who(n, e.get('defender'))}: {e.get('raw')} ({mods_text(e.get('modifiers')) or 'rolled'}), "
        f"{armour_text}{vital} → **{e.get('total')}**",
        e,
    )


def k_taken(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    wound = " and a wound" if e.get("wound") else ""
    return (
        f"🩸 {who(n, e.get('combatant'))} takes {e.get('amount')} (total {e.get('total_damage')}, Health "
        f"{e.get('health')}){wound}: {e.get('condition_before')} → **{e.get('condition_after')}**"
    )


def k_clock(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🕰️ Clock {_at(e.get('from_minute'), e.get('from_segment'))} → {_at(e.get('minute'), e.get('segment'))}"


def k_resolved(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"✅ {_at(e.get('minute'), e.get('segment'))} {who(n, e.get('combatant'))}: {clean(str(e.get('description') or e.get('action')), 60)} done"


def k_initiative(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    mods = mods_text(e.get("modifiers"))
    return with_dice(
        f"🎲 {who(n, e.get('combatant'))} initiative {e.get('roll')}"
        + (f" {mods}" if mods else "")
        + f" = **{e.get('initiative')}** (acts at {_at(e.get('minute'), e.get('segment'))})",
        e,
    )


def k_check(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    verdict = "success" if e.get("success") else "failure"
    if e.get("critical"):
        verdict = "critical success"
    elif e.get("critical_failure"):
        verdict = "critical failure"
    skill = f" + {clean(e['skill'], 30)}" if e.get("skill") else ""
    return with_dice(
        f"🎲 {clean(str(e.get('character', '')), 64)}: {clean(str(e.get('stat', '')), 30)}{skill}, target "
        f"{e.get('target')} ({mods_text(e.get('modifiers')) or 'no modifiers'}), rolled {e.get('total')} → "
        f"**{verdict}** (margin {e.get('margin')})",
        e,
    )


def k_posture(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    why = f" ({clean(e['reason'], 60)})" if e.get("reason") else ""
    return f"🛡️ {who(n, e.get('combatant'))}: {e.get('previous')} → **{e.get('posture')}**{why}"


KAERNEST: dict[str, Line] = {
    "ActionDeclared": k_declared,
    "AttackResolved": k_attack,
    "AttackInterrupted": k_interrupted,
    "ActiveDefenseRolled": k_active_defense,
    "DamageRolled": k_damage,
    "DamageTaken": k_taken,
    "ClockAdvanced": k_clock,
    "ActionResolved": k_resolved,
    "InitiativeRolled": k_initiative,
    "CheckRolled": k_check,
    "PostureChanged": k_posture,
}


# --- D6 -------------------------------------------------------------------------------------------------


def d6_rolled(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    mods = mods_text(e.get("mods"))
    return with_dice(
        f"🎲 {who(n, e.get('who'))} {clean(str(e.get('what', '')), 40)} {code_text(e.get('code'))}"
        + (f" ({mods})" if mods else "")
        + f" = **{e.get('total')}**{pool_rule(e.get('roll'))}",
        e,
    )


def d6_declared(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    a = e.get("action") or {}
    kind = str(a.get("kind", "")).replace("_", " ")
    target = f" {who(n, a.get('target'))}" if a.get("target") else ""
    extra = f" {a.get('move')}" if a.get("move") else ""
    if kind == "move":
        extra = f" {a.get('distance')}" + (
            ", leaving melee without disengaging" if a.get("leave_melee") else ""
        )
    return f"📝 {who(n, e.get('who'))} declares {kind}{extra}{target} (action {e.get('count')})"


def d6_locked(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    kinds = ", ".join(str(k).replace("_", " ") for k in e.get("kinds") or ())
    pen = e.get("penalty_dice") or 0
    return (
        f"🔒 {who(n, e.get('who'))} locks in: {kinds}; {e.get('counted')} counted"
        + (f", {e.get('free_declared')} free" if e.get("free_declared") else "")
        + (f" → **−{pen}D** on every roll" if pen else " → no multi-action penalty")
    )


def d6_attack(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    mods = mods_text(e.get("mods"))
    save_parts = mods_text(e.get("save_parts"))
    verdict = "**hit**" if e.get("hit") else "**miss**"
    if e.get("shield_hit"):
        verdict += " (on the shield)"
    line = (
        f"⚔️ {who(n, e.get('attacker'))} attacks {who(n, e.get('target'))} with {clean(str(e.get('weapon', '')), 30)}"
        + (" (called shot)" if e.get("called") else "")
        + f": {code_text(e.get('code'))}"
        + (f" ({mods})" if mods else "")
        + f" = {e.get('total')} vs save {e.get('save')} ({clean(str(e.get('save_source', '')), 30)}"
        + (f": {save_parts}" if save_parts else "")
        + f") → {verdict}{pool_rule(e.get('roll'))}"
    )
    if e.get("critical"):
        line += f"; **critical** (stage {e.get('crit_stage')})"
    return with_dice(line, e)


def d6_defense(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    total = "total " if e.get("total") else ""
    mods = mods_text(e.get("mods"))
    code = f" {code_text(e.get('code'))}" if e.get("code") else ""
    return with_dice(
        f"🛡️ {who(n, e.get('who'))} {total}{e.get('stance')}{code}"
        + (f" ({mods})" if mods else "")
        + f": save **{e.get('save')}** (limit {e.get('limit')}){pool_rule(e.get('roll'))}",
        e,
    )


def d6_overwhelmed(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    how = "backstabbed through the parry" if e.get("reason") == "backstab" else "parry overwhelmed"
    return (
        f"💢 {who(n, e.get('who'))}: {how} by {who(n, e.get('by'))} → staggered, save **8** until "
        "the next turn"
    )


def d6_shield_hit(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"🛡️ {who(n, e.get('by'))}'s {e.get('roll_total')} lands on {who(n, e.get('who'))}'s shield "
        f"(band {e.get('band_low')}–{e.get('band_high')}): a damage check for the shield (GM)"
    )


def d6_free_attack(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"🗡️ {who(n, e.get('attacker'))} gets a **free attack** on {who(n, e.get('target'))} "
        f"({clean(str(e.get('reason', '')), 60)})"
    )


def d6_save(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    parts = mods_text(e.get("parts"))
    return f"🛡️ {who(n, e.get('who'))} save {e.get('value')} ({clean(str(e.get('source', '')), 30)}" + (
        f": {parts})" if parts else ")"
    )


def d6_damage(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    scaling = (
        f" + scaling {code_text(e.get('scaling_code'))} {e.get('scaling')}"
        if e.get("scaling") is not None
        else ""
    )
    crit = f"; critical: {clean(str(e.get('critical_effect') or ''), 60)}" if e.get("critical") else ""
    return with_dice(
        f"💥 Damage {who(n, e.get('attacker'))} → {who(n, e.get('target'))} ({clean(str(e.get('weapon', '')), 30)}, "
        f"{e.get('weapon_kind')}): natural {code_text(e.get('natural_code'))} {e.get('natural')}{scaling}, armour "
        f"{e.get('armour')}{rule(e.get('rule'))} → **{e.get('amount')}**{crit}",
        e,
    )


def d6_applied(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🩸 {who(n, e.get('target'))} takes {e.get('amount')}: HP {e.get('hp_before')} → **{e.get('hp_after')}**"


def d6_healed(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"💚 {who(n, e.get('target'))} healed {e.get('applied')} of {e.get('amount')} "
        f"({clean(str(e.get('source', '')), 30)}): HP {e.get('hp_before')} → **{e.get('hp_after')}**"
    )


def d6_heal_rolled(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    mods = mods_text(e.get("mods"))
    return with_dice(
        f"🩹 {who(n, e.get('healer'))} heals {who(n, e.get('target'))}: {code_text(e.get('code'))}"
        + (f" ({mods})" if mods else "")
        + f" = {e.get('total')} → {e.get('heal_dice')} healing dice{pool_rule(e.get('roll'))}",
        e,
    )


def d6_pool(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🧺 Heal pool {e.get('before')} → {e.get('after')}: {e.get('remaining')} left ({clean(str(e.get('reason', '')), 60)})"


def d6_lg_in(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🕯️ {who(n, e.get('who'))} falls into **Last Gasp** (HP {e.get('hp')})"


def d6_lg_out(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🌅 {who(n, e.get('who'))} leaves Last Gasp (HP {e.get('hp')}): {clean(str(e.get('reason', '')), 60)}"


def d6_stabilised(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🌿 {who(n, e.get('who'))} is **stabilised** (HP {e.get('hp')})"


def d6_died(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"☠️ {who(n, e.get('who'))} **dies** (HP {e.get('hp')}, limit {e.get('limit')})"


def d6_out(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"✖️ {who(n, e.get('who'))} is out of the fight (HP {e.get('hp')})"


def d6_death_save(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    mods = mods_text(e.get("mods"))
    effect = f" ({e.get('effect_total')})" if e.get("effect_total") else ""
    stored = f"; stored healing {e.get('stored_healing')}" if e.get("stored_healing") else ""
    return with_dice(
        f"💀 {who(n, e.get('who'))} Death Save {e.get('turn')} (Physique with {clean(str(e.get('stat', '')), 20)}): "
        f"{code_text(e.get('code'))}"
        + (f" ({mods})" if mods else "")
        + f" = {e.get('total')} → {clean(str(e.get('band', '')), 30)}: **{clean(str(e.get('effect', '')), 60)}**"
        f"{effect}{stored}{pool_rule(e.get('roll'))}",
        e,
    )


def d6_grapple(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    am, om = mods_text(e.get("actor_mods")), mods_text(e.get("other_mods"))
    return with_dice(
        f"🤼 {who(n, e.get('actor'))} {e.get('move')} vs {who(n, e.get('other'))}: {e.get('actor_total')}"
        + (f" ({am})" if am else "")
        + f" vs {e.get('other_total')}"
        + (f" ({om})" if om else "")
        + f" → {clean(str(e.get('result', '')), 30)}, shift {signed(e.get('shift'))}, counter **{e.get('counter')}**",
        e,
    )


def d6_thrown(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    into = (
        f" into {who(n, e.get('into')) if str(e.get('into')).isdecimal() else clean(str(e.get('into')), 30)}"
        if e.get("into")
        else ""
    )
    storeys = f" off {e.get('storeys')} storeys" if e.get("storeys") else ""
    capped = " (capped)" if e.get("capped") else ""
    return with_dice(
        f"🌀 {who(n, e.get('thrower'))} throws {who(n, e.get('thrown'))}{storeys}{into}: {e.get('dice_count')}D{capped} "
        f"rolled {e.get('rolled')} → **{e.get('amount')}** damage",
        e,
    )


def d6_pinned(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"📌 {who(n, e.get('pinner'))} pins {who(n, e.get('pinned'))} (broken by {e.get('break_at')} damage)"
    )


def d6_pin_broken(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"💢 {who(n, e.get('pinned'))} breaks {who(n, e.get('pinner'))}'s pin ({e.get('damage')} damage of "
        f"{e.get('needed')} needed); counter {e.get('counter')}"
    )


def d6_takedown(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return with_dice(
        f"⬇️ {who(n, e.get('leader'))} takes {who(n, e.get('target'))} down ({clean(str(e.get('mode', '')), 30)}): rolled "
        f"{e.get('rolled')} {signed(e.get('modifier'))} → **{e.get('amount')}**; counter {e.get('counter')}",
        e,
    )


def d6_grapple_ended(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return (
        f"🔓 Grapple {who(n, e.get('a'))} ↔ {who(n, e.get('b'))} ends ({clean(str(e.get('reason', '')), 60)})"
    )


def d6_moved(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"🏃 {who(n, e.get('who'))} moves {e.get('distance')}" + (" (free)" if e.get("free") else "")


def d6_disengaged(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return with_dice(
        f"↪️ {who(n, e.get('who'))} disengages from {who(n, e.get('enemy'))}: {e.get('own_total')} vs "
        f"{e.get('enemy_total')} → **{'success' if e.get('success') else 'failure'}**",
        e,
    )


def d6_stealth(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    against = ", ".join(
        f"{who(n, a[0])} {a[1]} ({'unseen' if a[2] else 'seen'})"
        for a in e.get("against") or ()
        if len(a) == 3
    )
    mods = mods_text(e.get("mods"))
    return with_dice(
        f"🫥 {who(n, e.get('who'))} stealth {code_text(e.get('code'))}"
        + (f" ({mods})" if mods else "")
        + f" = {e.get('total')}"
        + (f" vs {against}" if against else ""),
        e,
    )


def d6_rerolled(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return with_dice(
        f"🔁 {who(n, e.get('who'))} rerolls initiative: {e.get('old')} → **{e.get('new')}** (from round {e.get('from_round')})",
        e,
    )


def d6_turn_ended(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"⏹️ {who(n, e.get('who'))}'s turn ends (round {e.get('round')})"


def d6_turn_started(e: Mapping[str, Any], n: Mapping[str, str]) -> str:
    return f"▶️ Round {e.get('round')}: {who(n, e.get('who'))}'s turn"


D6: dict[str, Line] = {
    "Rolled": d6_rolled,
    "ActionDeclared": d6_declared,
    "TurnLocked": d6_locked,
    "AttackRolled": d6_attack,
    "DefenseTaken": d6_defense,
    "DefenseOverwhelmed": d6_overwhelmed,
    "ShieldHit": d6_shield_hit,
    "FreeAttackOwed": d6_free_attack,
    "SaveScore": d6_save,
    "DamageRolled": d6_damage,
    "DamageApplied": d6_applied,
    "HealApplied": d6_healed,
    "HealRolled": d6_heal_rolled,
    "HealPoolChanged": d6_pool,
    "LastGaspEntered": d6_lg_in,
    "LastGaspLeft": d6_lg_out,
    "Stabilised": d6_stabilised,
    "Died": d6_died,
    "OutOfFight": d6_out,
    "DeathSave": d6_death_save,
    "GrappleRolled": d6_grapple,
    "GrappleThrown": d6_thrown,
    "GrapplePinned": d6_pinned,
    "PinBroken": d6_pin_broken,
    "TakenDown": d6_takedown,
    "GrappleEnded": d6_grapple_ended,
    "Moved": d6_moved,
    "Disengaged": d6_disengaged,
    "StealthChecked": d6_stealth,
    "InitiativeRerolled": d6_rerolled,
    "TurnEnded": d6_turn_ended,
    "TurnStarted": d6_turn_started,
}

RENDERERS: dict[str, dict[str, Line]] = {"nyra": NYRA, "kaernest": KAERNEST, "d6": D6}


def event_text(system: str, event: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """One event as one line: the system's renderer, else the generic ``event_line`` (dice marked too)."""
    kind = str(event.get("kind", ""))
    render = RENDERERS.get(system, {}).get(kind)
    if render is not None:
        try:
            line = render(event, names)
            if line:
                return line
        except Exception:  # a renderer must never lose the result: fall back to the generic line
            pass
    if kind == "Note":
        return "📎 " + event_line(event, names)
    generic = event_line({k: v for k, v in event.items() if k != "dice"}, names)
    return with_dice(generic, event)


def resolution_lines(system: str, events: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[str]:
    return [event_text(system, e, names) for e in events]


def split_messages(title: str, lines: Sequence[str], limit: int = MAX_MESSAGE) -> list[str]:
    """``title`` then ``lines`` in as few messages as fit (each ≤ ``limit``), split between lines only; a
    single too-long line is summarised by ``fit``. At most ``MAX_MESSAGES`` messages; the rest is summarised."""
    messages: list[str] = []
    current = title
    for i, raw in enumerate(lines):
        line = fit(raw, limit - 50)
        if len(current) + 1 + len(line) <= limit:
            current = f"{current}\n{line}" if current else line
            continue
        messages.append(current)
        if len(messages) == MAX_MESSAGES - 1:
            rest = list(lines[i:])
            tail = fit("\n".join(fit(r, limit - 50) for r in rest), limit - 60)
            messages.append(
                tail + ("\n(see `/encounter log` for everything)" if tail.endswith("more lines") else "")
            )
            return messages
        current = line
    if current:
        messages.append(current)
    return messages


# --- titles and refusals --------------------------------------------------------------------------------

TITLES = {
    "attack": "⚔️ **{actor}** attacks {target}",
    "defend": "🛡️ **{actor}** takes a stance",
    "grapple": "🤼 **{actor}** grapples {target}",
    "heal": "🩹 **{actor}** heals {target}",
    "deathsave": "💀 **{actor}** makes a Death Save",
    "move": "🏃 **{actor}** moves",
    "disengage": "↪️ **{actor}** disengages from {target}",
    "stealth": "🫥 **{actor}** tries to hide",
    "reroll": "🔁 **{actor}** rerolls initiative",
    "lockin": "🔒 **{actor}** locks in the turn",
}


def action_title(kind: str, actor: str, target: str | None, *, gm: bool) -> str:
    text = TITLES.get(kind, "**{actor}** acts").format(
        actor=clean(actor, 64), target=f"**{clean(target, 64)}**" if target else "—"
    )
    return text + (" *(GM)*" if gm else "")


def declared_title(actor: str) -> str:
    return f"📝 Declared for **{clean(actor, 64)}** (nothing rolled yet; `/lockin` resolves the plan):"


def summary(kind: str, actor: str, target: str | None, detail: str = "") -> str:
    label = "initiative reroll" if kind == "reroll" else kind
    text = f"{actor}: {label}" + (f" {target}" if target else "") + (f" ({detail})" if detail else "")
    return text[:300]


def leave_ignored() -> str:
    return "`leave` is for D6 (leaving melee without disengaging); it changes nothing here."


def check_title(character: str, stat: str) -> str:
    return f"🎲 **{clean(character, 64)}** checks {clean(stat, 40)}"


def check_no_system() -> str:
    return "Which system? This channel has no rule system yet (a GM sets one with `/gm system`)."


def bonus_range(low: int, high: int, value: int) -> str:
    return f"`bonus` must be from {low} to {high}, not {value}."


def not_yours(name: str) -> str:
    return f"**{clean(name, 64)}** is not your combatant; only its player (or a GM with `as`) acts for it."


def gm_options_only(options: Sequence[str], system: str, *, check: bool = False) -> str:
    named = ", ".join(f"`{o}`" for o in options)
    ask = "who can roll the check with it" if check else "who can act for you with `as`"
    return (
        f"In {system} {named} {'is' if len(options) == 1 else 'are'} the GM's to give (RULES.md §4), not the "
        f"player's; leave it out, or ask your GM, {ask}."
    )


def luck_title(name: str, off: bool) -> str:
    if off:
        return f"🍀 **{clean(name, 64)}** keeps its Luck out of its initiative roll."
    return f"🍀 **{clean(name, 64)}** will add its Luck to its initiative roll."
