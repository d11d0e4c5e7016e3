"""The D6 campaign's events, one line each: every die (the Wild Die marked), every modifier, the pool's
readings (explode, Wild Die 1) when they happened, and the outcome."""

from __future__ import annotations

from cogs.text.common import clean
from cogs.text.events.parts import mods_text, rule, signed, who, with_dice
from cogs.text.events.registry import Names, renders
from rules.systems.d6.events import (
    ActionDeclared,
    AttackRolled,
    CarriedIn,
    DamageApplied,
    DamageRolled,
    DeathSave,
    DeathSaveOwed,
    DeathSaveSkipped,
    DefenseOverwhelmed,
    DefenseTaken,
    Died,
    Disengaged,
    FieldSet,
    FreeActionTaken,
    FreeAttackOwed,
    GrappleEnded,
    GrapplePenaltyOwed,
    GrapplePinned,
    GrappleRolled,
    GrappleThrown,
    HealApplied,
    HealPoolChanged,
    HealRolled,
    InitiativeOrder,
    InitiativeRerolled,
    InitiativeRolled,
    InitiativeTie,
    LastGaspEntered,
    LastGaspLeft,
    Moved,
    OutOfFight,
    PinBroken,
    Revealed,
    Rolled,
    SaveScore,
    ShieldHit,
    Stabilised,
    StealthCheckDue,
    StealthChecked,
    TakenDown,
    TurnEnded,
    TurnLocked,
    TurnStarted,
)
from rules.systems.d6.pool import DieCode, PoolRoll


def code_text(code: DieCode | None) -> str:
    return str(code) if code is not None else ""


def pool_rule(roll: PoolRoll | None) -> str:
    """The pool's readings (explode, wild one) when the roll shows one of them happening."""
    if roll is None:
        return ""
    notes = []
    if roll.explosions:
        notes.append(f"Wild Die exploded ({roll.explode_rule})")
    if roll.wild is not None and roll.wild.value == 1:
        notes.append(f"Wild Die 1 ({roll.wild_one_rule})")
    return f" *({'; '.join(clean(n, 60) for n in notes)})*" if notes else ""


def _mods(mods: tuple) -> str:
    shown = mods_text(mods)
    return f" ({shown})" if shown else ""


@renders(Rolled)
def rolled(e: Rolled, n: Names) -> str:
    return with_dice(
        f"🎲 {who(n, e.who)} {clean(e.what, 40)} {code_text(e.code)}{_mods(e.mods)} = **{e.total}**"
        f"{pool_rule(e.roll)}",
        e,
    )


@renders(InitiativeRolled)
def initiative_rolled(e: InitiativeRolled, n: Names) -> str:
    return with_dice(
        f"🎲 {who(n, e.who)} rolls initiative {code_text(e.code)}{_mods(e.mods)} = **{e.total}**"
        f"{pool_rule(e.roll)}",
        e,
    )


@renders(InitiativeOrder)
def initiative_order(e: InitiativeOrder, n: Names) -> str:
    order = ", ".join(
        f"{who(n, cid)} ({total})" for cid, total in list(zip(e.order, e.totals, strict=False))[:25]
    )
    return f"📋 Round {e.round} order: {order or 'nobody yet'}"


@renders(InitiativeTie)
def initiative_tie(e: InitiativeTie, n: Names) -> str:
    tied = ", ".join(who(n, cid) for cid in e.ids)
    result = ", ".join(who(n, cid) for cid in e.result)
    detail = f" ({clean(e.detail, 80)})" if e.detail else ""
    return with_dice(
        f"⚖️ {tied} tie at {e.total}; broken by {clean(e.rule, 40)}{detail}: {result}",
        e,
    )


@renders(InitiativeRerolled)
def initiative_rerolled(e: InitiativeRerolled, n: Names) -> str:
    return with_dice(
        f"🔁 {who(n, e.who)} rerolls initiative: {e.old} → **{e.new}** (from round {e.from_round})",
        e,
    )


@renders(ActionDeclared)
def action_declared(e: ActionDeclared, n: Names) -> str:
    a = e.action
    kind = a.kind.replace("_", " ")
    target = f" {who(n, a.target)}" if a.target else ""
    extra = f" {a.move}" if getattr(a, "move", "") else ""
    if a.kind == "move":
        extra = f" {a.distance}" + (", leaving melee without disengaging" if a.leave_melee else "")
    return f"📝 {who(n, e.who)} declares {kind}{extra}{target} (action {e.count})"


@renders(TurnLocked)
def turn_locked(e: TurnLocked, n: Names) -> str:
    kinds = ", ".join(k.replace("_", " ") for k in e.kinds)
    pen = e.penalty_dice or 0
    return (
        f"🔒 {who(n, e.who)} locks in: {kinds}; {e.counted} counted"
        + (f", {e.free_declared} free" if e.free_declared else "")
        + (f" → **−{pen}D** on every roll" if pen else " → no multi-action penalty")
    )


@renders(AttackRolled)
def attack_rolled(e: AttackRolled, n: Names) -> str:
    save_parts = mods_text(e.save_parts)
    verdict = "**hit**" if e.hit else "**miss**"
    if e.shield_hit:
        verdict += " (on the shield)"
    line = (
        f"⚔️ {who(n, e.attacker)} attacks {who(n, e.target)} with {clean(e.weapon, 30)}"
        + (" (called shot)" if e.called else "")
        + (" (flank/backstab)" if e.flank else "")
        + f": {code_text(e.code)}{_mods(e.mods)} = {e.total} vs save {e.save} ({clean(e.save_source, 30)}"
        + (f": {save_parts}" if save_parts else "")
        + f") → {verdict}{pool_rule(e.roll)}"
    )
    if e.critical:
        line += f"; **critical** (stage {e.crit_stage})"
    if e.hit:
        line += "; " + crit_terms(e)
    return with_dice(line, e)


def crit_terms(e: AttackRolled) -> str:
    """The critical's threshold and how it was reached: ``crit at ≥ 10 (save 10 × 100 %, …, stage +2: …)``."""
    parts = mods_text(e.crit_parts)
    return (
        f"crit at ≥ {e.crit_threshold} (save {e.save} × {e.crit_percent:g} %, {e.crit_column} % column, "
        f"stage {signed(e.crit_stage)}{': ' + parts if parts else ''})"
    )


@renders(DefenseTaken)
def defense_taken(e: DefenseTaken, n: Names) -> str:
    total = "total " if e.total else ""
    code = f" {code_text(e.code)}" if e.code else ""
    return with_dice(
        f"🛡️ {who(n, e.who)} {total}{e.stance}{code}{_mods(e.mods)}: save **{e.save}** (limit {e.limit})"
        f"{pool_rule(e.roll)}",
        e,
    )


@renders(DefenseOverwhelmed)
def defense_overwhelmed(e: DefenseOverwhelmed, n: Names) -> str:
    how = "backstabbed through the parry" if e.reason == "backstab" else "parry overwhelmed"
    return f"💢 {who(n, e.who)}: {how} by {who(n, e.by)} → staggered, save **8** until the next turn"


@renders(ShieldHit)
def shield_hit(e: ShieldHit, n: Names) -> str:
    return (
        f"🛡️ {who(n, e.by)}'s {e.roll_total} lands on {who(n, e.who)}'s shield "
        f"(band {e.band_low}–{e.band_high}): a damage check for the shield (GM)"
    )


@renders(FreeAttackOwed)
def free_attack_owed(e: FreeAttackOwed, n: Names) -> str:
    return f"🗡️ {who(n, e.attacker)} gets a **free attack** on {who(n, e.target)} ({clean(e.reason, 60)})"


@renders(SaveScore)
def save_score(e: SaveScore, n: Names) -> str:
    parts = mods_text(e.parts)
    return f"🛡️ {who(n, e.who)} save {e.value} ({clean(e.source, 30)}" + (f": {parts})" if parts else ")")


@renders(DamageRolled)
def damage_rolled(e: DamageRolled, n: Names) -> str:
    scaling = f" + scaling {code_text(e.scaling_code)} {e.scaling}" if e.scaling is not None else ""
    crit = f"; critical: {clean(e.critical_effect, 60)}" if e.critical else ""
    return with_dice(
        f"💥 Damage {who(n, e.attacker)} → {who(n, e.target)} ({clean(e.weapon, 30)}, "
        f"{e.weapon_kind}): natural {code_text(e.natural_code)} {e.natural}{scaling}, armour "
        f"{e.armour}{rule(e.rule)} → **{e.amount}**{crit}",
        e,
    )


@renders(DamageApplied)
def damage_applied(e: DamageApplied, n: Names) -> str:
    return f"🩸 {who(n, e.target)} takes {e.amount}: HP {e.hp_before} → **{e.hp_after}**"


@renders(HealApplied)
def heal_applied(e: HealApplied, n: Names) -> str:
    return (
        f"💚 {who(n, e.target)} healed {e.applied} of {e.amount} "
        f"({clean(e.source, 30)}): HP {e.hp_before} → **{e.hp_after}**"
    )


@renders(HealRolled)
def heal_rolled(e: HealRolled, n: Names) -> str:
    return with_dice(
        f"🩹 {who(n, e.healer)} heals {who(n, e.target)}: {code_text(e.code)}{_mods(e.mods)}"
        f" = {e.total} → {e.heal_dice} healing dice{pool_rule(e.roll)}",
        e,
    )


@renders(HealPoolChanged)
def heal_pool_changed(e: HealPoolChanged, n: Names) -> str:
    return f"🧺 Heal pool {e.before} → {e.after}: {e.remaining} left ({clean(e.reason, 60)})"


@renders(LastGaspEntered)
def last_gasp_entered(e: LastGaspEntered, n: Names) -> str:
    return f"🕯️ {who(n, e.who)} falls into **Last Gasp** (HP {e.hp})"


@renders(LastGaspLeft)
def last_gasp_left(e: LastGaspLeft, n: Names) -> str:
    return f"🌅 {who(n, e.who)} leaves Last Gasp (HP {e.hp}): {clean(e.reason, 60)}"


@renders(Stabilised)
def stabilised(e: Stabilised, n: Names) -> str:
    return f"🌿 {who(n, e.who)} is **stabilised** (HP {e.hp})"


@renders(Died)
def died(e: Died, n: Names) -> str:
    return f"☠️ {who(n, e.who)} **dies** (HP {e.hp}, limit {e.limit})"


@renders(OutOfFight)
def out_of_fight(e: OutOfFight, n: Names) -> str:
    return f"✖️ {who(n, e.who)} is out of the fight (HP {e.hp})"


@renders(DeathSave)
def death_save(e: DeathSave, n: Names) -> str:
    effect = f" ({e.effect_total})" if e.effect_total else ""
    stored = f"; stored healing {e.stored_healing}" if e.stored_healing else ""
    return with_dice(
        f"💀 {who(n, e.who)} Death Save {e.turn} (Physique with {clean(e.stat, 20)}): "
        f"{code_text(e.code)}{_mods(e.mods)} = {e.total} → {clean(e.band, 30)}: **{clean(e.effect, 60)}**"
        f"{effect}{stored}{pool_rule(e.roll)}",
        e,
    )


@renders(GrappleRolled)
def grapple_rolled(e: GrappleRolled, n: Names) -> str:
    return with_dice(
        f"🤼 {who(n, e.actor)} {e.move} vs {who(n, e.other)}: {e.actor_total}{_mods(e.actor_mods)}"
        f" vs {e.other_total}{_mods(e.other_mods)}"
        f" → {clean(e.result, 30)}, shift {signed(e.shift)}, counter **{e.counter}**",
        e,
    )


@renders(GrappleThrown)
def grapple_thrown(e: GrappleThrown, n: Names) -> str:
    into = ""
    if e.into:
        into = f" into {who(n, e.into) if e.into.isdecimal() else clean(e.into, 30)}"
    storeys = f" off {e.storeys} storeys" if e.storeys else ""
    capped = " (capped)" if e.capped else ""
    return with_dice(
        f"🌀 {who(n, e.thrower)} throws {who(n, e.thrown)}{storeys}{into}: {e.dice_count}D{capped} "
        f"rolled {e.rolled} → **{e.amount}** damage{pool_rule(e.roll)}",
        e,
    )


@renders(GrapplePinned)
def grapple_pinned(e: GrapplePinned, n: Names) -> str:
    return f"📌 {who(n, e.pinner)} pins {who(n, e.pinned)} (broken by {e.break_at} damage)"


@renders(PinBroken)
def pin_broken(e: PinBroken, n: Names) -> str:
    return (
        f"💢 {who(n, e.pinned)} breaks {who(n, e.pinner)}'s pin ({e.damage} damage of "
        f"{e.needed} needed); counter {e.counter}"
    )


@renders(TakenDown)
def taken_down(e: TakenDown, n: Names) -> str:
    return with_dice(
        f"⬇️ {who(n, e.leader)} takes {who(n, e.target)} down ({clean(e.mode, 30)}): rolled "
        f"{e.rolled} {signed(e.modifier)} → **{e.amount}**; counter {e.counter}{pool_rule(e.roll)}",
        e,
    )


@renders(GrappleEnded)
def grapple_ended(e: GrappleEnded, n: Names) -> str:
    return f"🔓 Grapple {who(n, e.a)} ↔ {who(n, e.b)} ends ({clean(e.reason, 60)})"


@renders(GrapplePenaltyOwed)
def grapple_penalty_owed(e: GrapplePenaltyOwed, n: Names) -> str:
    return (
        f"⚠️ {who(n, e.who)} attacked while ahead in the grapple: {signed(-abs(e.penalty))} on the next "
        f"grapple roll against {who(n, e.other)}"
    )


@renders(Moved)
def moved(e: Moved, n: Names) -> str:
    return f"🏃 {who(n, e.who)} moves {e.distance}" + (" (free)" if e.free else "")


@renders(Disengaged)
def disengaged(e: Disengaged, n: Names) -> str:
    return with_dice(
        f"↪️ {who(n, e.who)} disengages from {who(n, e.enemy)}: {e.own_total} vs "
        f"{e.enemy_total} → **{'success' if e.success else 'failure'}**",
        e,
    )


@renders(StealthChecked)
def stealth_checked(e: StealthChecked, n: Names) -> str:
    against = ", ".join(
        f"{who(n, cid)} {acumen} ({'unseen' if hidden else 'seen'})" for cid, acumen, hidden in e.against
    )
    return with_dice(
        f"🫥 {who(n, e.who)} stealth {code_text(e.code)}{_mods(e.mods)} = {e.total}"
        + (f" vs {against}" if against else ""),
        e,
    )


@renders(StealthCheckDue)
def stealth_check_due(e: StealthCheckDue, n: Names) -> str:
    return f"🫥 {who(n, e.who)} moved while hidden: a new stealth check is due (`/stealth`)"


@renders(Revealed)
def revealed(e: Revealed, n: Names) -> str:
    return f"👁️ {who(n, e.who)} is seen again ({clean(e.reason, 60)})"


@renders(FieldSet)
def field_set(e: FieldSet, n: Names) -> str:
    return f"✏️ The GM sets {who(n, e.who)}'s {clean(e.field, 40)}: {clean(e.before, 40)} → **{clean(e.after, 40)}**"


@renders(TurnEnded)
def turn_ended(e: TurnEnded, n: Names) -> str:
    return f"⏹️ {who(n, e.who)}'s turn ends (round {e.round})"


@renders(TurnStarted)
def turn_started(e: TurnStarted, n: Names) -> str:
    return f"▶️ Round {e.round}: {who(n, e.who)}'s turn"


@renders(DeathSaveOwed)
def death_save_owed(e: DeathSaveOwed, n: Names) -> str:
    malus = f" at −{e.malus}D (bleeding out)" if e.malus else ""
    return f"💀 {who(n, e.who)} is in Last Gasp: turn {e.turn} owes its Death Save{malus} (`/deathsave`)"


@renders(DeathSaveSkipped)
def death_save_skipped(e: DeathSaveSkipped, n: Names) -> str:
    return f"⏭️ The {clean(e.by, 20)} skips {who(n, e.who)}'s Death Save; Last Gasp turn {e.turn} still counts"


@renders(FreeActionTaken)
def free_action_taken(e: FreeActionTaken, n: Names) -> str:
    return f"💬 {who(n, e.who)}: {clean(e.what, 80)} (free action)"


@renders(CarriedIn)
def carried_in(e: CarriedIn, n: Names) -> str:
    if e.dead:
        state = "dead"
    elif e.last_gasp_round is not None:
        down = "stabilised" if e.stabilised else f"Last Gasp turn {e.last_gasp_round}"
        state = f"{down}, stored healing {e.stored_healing}"
    else:
        state = "up"
    return f"🧭 {who(n, e.who)} enters as instance {e.instance} left them: HP {e.hp}/{e.hp_max}, {state}"
