"""The D6 campaign's events, one line each: every die (the Wild Die marked), every modifier, the pool's
readings (explode, Wild Die 1) when they happened, and the outcome."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.common import clean
from cogs.text.events.parts import house, mods_text, named, plus, roles, signed, terms, who
from cogs.text.events.passing import passes
from cogs.text.events.registry import Names, renders
from rules.dice import Die
from rules.events import Event
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
    """The pool's house readings, named only when the roll shows one of them changing the result."""
    if roll is None:
        return ""
    notes = []
    if roll.explosions and roll.explode_rule:
        notes.append(f"explode {roll.explode_rule}")
    if roll.wild is not None and roll.wild.value == 1 and roll.wild_one_rule:
        notes.append(f"wild_one {roll.wild_one_rule}")
    return house(", ".join(notes)) if notes else ""


def pool_dice(role: str, roll: PoolRoll | None) -> tuple[str, tuple[Die, ...]]:
    """A pool's dice under its role, the Wild Die (and its explosions) marked ``ᵂ``."""
    return (role, roll.dice if roll is not None else ())


def wild_text(roll: PoolRoll | None) -> str:
    """What the Wild Die did, in words, when it did something."""
    if roll is None or roll.wild is None:
        return ""
    if roll.explosions:
        chain = " + ".join(str(d.value) for d in (roll.wild, *roll.explosions))
        return f"; the Wild Die exploded ({chain})"
    if roll.wild.value == 1:
        dropped = f", dropping {' '.join(str(d.value) for d in roll.dropped)}" if roll.dropped else ""
        return f"; the Wild Die came up 1{dropped}" + (" (a complication)" if roll.complication else "")
    return ""


def _mods(mods: tuple) -> str:
    shown = mods_text(mods)
    return f" ({shown})" if shown else ""


def _code(code: DieCode | None, mods: tuple) -> str:
    """A pool and its modifiers inside one pair of parentheses: ``3D+1: +3D Perception, −1 dim light``."""
    shown = mods_text(mods)
    return code_text(code) + (f": {shown}" if shown else "")


def hp(value: int) -> str:
    """HP as players write it, below zero with a real minus sign."""
    return signed(value) if value < 0 else str(value)


@renders(Rolled)
def rolled(e: Rolled, n: Names) -> str:
    # A planned check's ``what`` is "stat (note)": the sentence shows the note, the dice only the stat.
    stat = e.what.split(" (", 1)[0]
    return plus(
        f"🎲 {who(n, e.who)} {clean(e.what, 40)}: **{e.total}** ({_code(e.code, e.mods)})"
        f"{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice(clean(stat, 40), e.roll)) if e.roll else roles(("dice", e.dice)),
    )


@renders(InitiativeRolled)
def initiative_rolled(e: InitiativeRolled, n: Names) -> str:
    return plus(
        f"🎲 {who(n, e.who)}: initiative **{e.total}** ({_code(e.code, e.mods)})"
        f"{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice("initiative", e.roll)) if e.roll else roles(("initiative", e.dice)),
    )


@renders(InitiativeOrder)
def initiative_order(e: InitiativeOrder, n: Names) -> str:
    order = ", ".join(
        f"{who(n, cid)} {total}" for cid, total in list(zip(e.order, e.totals, strict=False))[:25]
    )
    return f"📋 Round {e.round}, highest first: {order or 'nobody yet'}"


@renders(InitiativeTie)
def initiative_tie(e: InitiativeTie, n: Names) -> str:
    tied = " and ".join(who(n, cid) for cid in e.ids)
    first, *rest = [who(n, cid) for cid in e.result] or ["nobody"]
    result = f"{first} first" + "".join(f", then {r}" for r in rest)
    detail = f" ({clean(e.detail, 80)})" if e.detail else ""
    return plus(
        f"⚖️ {tied} tie at {e.total}; the tie rule *{clean(e.rule, 40)}*{detail} puts {result}",
        roles(("roll-off", e.dice)),
    )


@renders(InitiativeRerolled)
def initiative_rerolled(e: InitiativeRerolled, n: Names) -> str:
    return plus(
        f"🔁 {who(n, e.who)} rerolls initiative: {e.old} → **{e.new}** (from round {e.from_round})"
        f"{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice("initiative", e.roll)) if e.roll else roles(("initiative", e.dice)),
    )


@renders(ActionDeclared)
def action_declared(e: ActionDeclared, n: Names) -> str:
    a = e.action
    kind = a.kind.replace("_", " ")
    target = f" on {who(n, a.target)}" if a.target else ""
    extra = f" ({a.move})" if getattr(a, "move", "") else ""
    if a.kind == "move":
        extra = f" of {a.distance}" + (", leaving melee without disengaging" if a.leave_melee else "")
    elif a.kind == "check":
        extra = f" {clean(a.stat, 30)}" + (f" ({clean(a.note, 60)})" if a.note else "")
    elif a.kind == "free":
        kind, extra = "free action", f": {clean(a.note, 60)}" if a.note else ""
    elif a.kind == "stealth" and a.of_move:
        kind = "the move's new stealth check"
    return f"📝 {who(n, e.who)} plans action {e.count}: {kind}{extra}{target}"


@renders(TurnLocked)
def turn_locked(e: TurnLocked, n: Names) -> str:
    pen = e.penalty_dice or 0
    if not pen:
        return ""  # the plan just shown already says there is no penalty
    # the plan just shown lists the actions: this line says what they cost
    free = f" ({e.free_declared} free declared, {e.free_allowed} allowed)" if e.free_declared else ""
    return (
        f"🔒 {who(n, e.who)}: {e.counted} actions count{free}, so **−{pen}D** on every roll this turn "
        "(the multi-action penalty)"
    )


def _critical(e: AttackRolled) -> str:
    parts = terms(e.crit_parts)
    return (
        f"; **a critical hit** — stage {e.crit_stage}" + (f" ({parts})" if parts else "") + f": "
        f"{e.crit_percent:g}% of the save, so {e.crit_threshold} or more is critical"
    )


@renders(AttackRolled)
def attack_rolled(e: AttackRolled, n: Names) -> str:
    save_parts = terms(e.save_parts)
    if len(e.save_parts) == 1 and e.save_parts[0].label == e.save_source:
        save_parts = ""  # the save is that one part: say it once
    outcome = "**hits**" if e.hit else "**misses**"
    if e.shield_hit:
        outcome = "**hits the shield**"
    line = (
        f"⚔️ {who(n, e.attacker)} {outcome} {who(n, e.target)}"
        + (" with a called shot" if e.called else "")
        + f" ({clean(e.weapon, 30)}{', flank/backstab' if e.flank else ''}): rolled {e.total} ({_code(e.code, e.mods)}) against save "
        f"{e.save} ({clean(e.save_source, 30)}" + (f": {save_parts}" if save_parts else "") + ")"
        f"{wild_text(e.roll)}{pool_rule(e.roll)}"
    )
    if e.critical:
        line += _critical(e)
    elif e.hit:
        line += "; " + crit_terms(e)
    return plus(line, roles(pool_dice("to-hit", e.roll)) if e.roll else roles(("to-hit", e.dice)))


def crit_terms(e: AttackRolled) -> str:
    """A hit that was not critical: the threshold it missed, and the stage's terms."""
    parts = terms(e.crit_parts)
    return (
        f"a critical needed {e.crit_threshold} or more ({e.crit_percent:g}% of the save, the "
        f"{e.crit_column}% column, stage {signed(e.crit_stage)}" + (f": {parts}" if parts else "") + ")"
    )


@renders(DefenseTaken)
def defense_taken(e: DefenseTaken, n: Names) -> str:
    total = "total " if e.total else ""
    code = f" ({_code(e.code, e.mods)})" if e.code else ""
    return plus(
        f"🛡️ {who(n, e.who)} takes a {total}{e.stance}: save **{e.save}**{code}, at most {e.limit} "
        f"defences{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice("defence", e.roll)) if e.roll else "",
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
    return f"🛡️ {who(n, e.who)}'s save is {e.value} ({clean(e.source, 30)}" + (f": {parts})" if parts else ")")


@renders(DamageRolled)
def damage_rolled(e: DamageRolled, n: Names) -> str:
    natural = e.natural_roll.dice if e.natural_roll is not None else ()
    scaling_dice = e.dice[len(natural) :]
    scaling = f" + scaling {code_text(e.scaling_code)} {e.scaling}" if e.scaling is not None else ""
    effect = CRITICAL_WORDS.get(e.critical_effect, e.critical_effect.replace("_", " "))
    crit = f"; critical: {clean(effect, 60)}" if e.critical else ""
    return plus(
        f"💥 **{e.amount}** damage to {who(n, e.target)} ({clean(e.weapon, 30)}, {e.weapon_kind}): "
        f"natural {code_text(e.natural_code)} {e.natural}{scaling} against armour {e.armour} — "
        f"{clean(e.rule, 90)}{crit}",
        roles(("natural", natural), ("scaling", scaling_dice)),
    )


CRITICAL_WORDS = {
    "double_natural_dice": "the natural dice doubled",
    "double_damage": "the damage doubled",
    "none": "no extra effect",
}


@renders(DamageApplied)
def damage_applied(e: DamageApplied, n: Names) -> str:
    if not e.amount:
        return f"🩸 {who(n, e.target)} takes no damage (HP {hp(e.hp_after)})"
    return f"🩸 {who(n, e.target)} takes {e.amount}: HP {hp(e.hp_before)} → **{hp(e.hp_after)}**"


@renders(HealApplied)
def heal_applied(e: HealApplied, n: Names) -> str:
    capped = f"; {e.amount} rolled, HP is at its maximum" if e.applied < e.amount else ""
    return (
        f"💚 {who(n, e.target)} heals {e.applied} ({named(e.source, n, 40)}{capped}): "
        f"HP {hp(e.hp_before)} → **{hp(e.hp_after)}**"
    )


@renders(HealRolled)
def heal_rolled(e: HealRolled, n: Names) -> str:
    return plus(
        f"🩹 {who(n, e.healer)} tends {who(n, e.target)}: heal roll {e.total} ({_code(e.code, e.mods)}) "
        f"gives **{e.heal_dice} healing dice**{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice("heal roll", e.roll), pool_dice("healing", e.heal_roll)),
    )


@renders(HealPoolChanged)
def heal_pool_changed(e: HealPoolChanged, n: Names) -> str:
    size = f"{e.after} heal" if e.after == 1 else f"{e.after} heals"
    change = "grows to" if e.after > e.before else "shrinks to" if e.after < e.before else "holds"
    return (
        f"🧺 The party's heal pool {change} {size} ({named(e.reason, n, 60)}): "
        f"**{e.remaining}** left this instance"
    )


@renders(LastGaspEntered)
def last_gasp_entered(e: LastGaspEntered, n: Names) -> str:
    return f"🕯️ {who(n, e.who)} falls into **Last Gasp** (HP {hp(e.hp)})"


@renders(LastGaspLeft)
def last_gasp_left(e: LastGaspLeft, n: Names) -> str:
    return f"🌅 {who(n, e.who)} is out of Last Gasp (HP {hp(e.hp)}): {named(e.reason, n, 60)}"


@renders(Stabilised)
def stabilised(e: Stabilised, n: Names) -> str:
    return f"🌿 {who(n, e.who)} is **stabilised** (HP {hp(e.hp)})"


@renders(Died)
def died(e: Died, n: Names) -> str:
    return f"☠️ {who(n, e.who)} **dies** (HP {hp(e.hp)}, at or below {hp(e.limit)})"


@renders(OutOfFight)
def out_of_fight(e: OutOfFight, n: Names) -> str:
    return f"✖️ {who(n, e.who)} is out of the fight (HP {hp(e.hp)})"


@renders(DeathSave)
def death_save(e: DeathSave, n: Names) -> str:
    effect = f" (rolled {e.effect_total})" if e.effect_total else ""
    stored = f"; stored healing now {e.stored_healing}" if e.stored_healing else ""
    return plus(
        f"💀 {who(n, e.who)}'s Death Save {e.turn}: **{clean(e.effect, 60)}**{effect} — rolled {e.total} "
        f"(Physique with {clean(e.stat, 20).capitalize()}, {_code(e.code, e.mods)}): {clean(e.band, 30)}"
        f"{stored}{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(pool_dice("Death Save", e.roll), pool_dice("effect", e.effect_roll)),
    )


@renders(GrappleRolled)
def grapple_rolled(e: GrappleRolled, n: Names) -> str:
    move = "grabs" if e.move == "start" else "contests the grapple with"
    if e.shift > 0:
        won = " (won by 10 or more)" if e.shift > 1 else ""
        said = f"{who(n, e.actor)} **gains {e.shift}**{won}"
    elif e.shift < 0:
        said = f"{who(n, e.other)} **reverses it and gains {abs(e.shift)}**"
    else:
        said = "**no change**"
    lead = who(n, e.actor) if e.counter > 0 else who(n, e.other) if e.counter < 0 else "nobody"
    return plus(
        f"🤼 {who(n, e.actor)} {move} {who(n, e.other)}: {e.actor_total}{_mods(e.actor_mods)} against "
        f"{e.other_total}{_mods(e.other_mods)} → {said}; counter {abs(e.counter)} toward {lead}",
        roles(
            pool_dice(n.get(e.actor, "actor"), e.actor_roll), pool_dice(n.get(e.other, "other"), e.other_roll)
        ),
    )


@renders(GrappleThrown)
def grapple_thrown(e: GrappleThrown, n: Names) -> str:
    into = ""
    if e.into:
        into = f" into {who(n, e.into) if e.into.isdecimal() else clean(e.into, 30)}"
    storeys = f" off {e.storeys} {'storey' if e.storeys == 1 else 'storeys'}" if e.storeys else ""
    capped = " (capped)" if e.capped else ""
    return plus(
        f"🌀 {who(n, e.thrower)} throws {who(n, e.thrown)}{storeys}{into}: {e.dice_count}D{capped} "
        f"rolled {e.rolled} → **{e.amount}** damage{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(("damage", e.dice)),
    )


@renders(GrapplePinned)
def grapple_pinned(e: GrapplePinned, n: Names) -> str:
    return f"📌 {who(n, e.pinner)} pins {who(n, e.pinned)} (broken by {e.break_at} damage)"


@renders(PinBroken)
def pin_broken(e: PinBroken, n: Names) -> str:
    return (
        f"💢 {who(n, e.pinned)} breaks {who(n, e.pinner)}'s pin ({e.damage} damage, "
        f"{e.needed} needed); counter {e.counter}"
    )


@renders(TakenDown)
def taken_down(e: TakenDown, n: Names) -> str:
    return plus(
        f"⬇️ {who(n, e.leader)} takes {who(n, e.target)} down ({clean(e.mode, 30)}): rolled "
        f"{e.rolled}{f' {signed(e.modifier)}' if e.modifier else ''} → **{e.amount}**; counter {e.counter}"
        f"{wild_text(e.roll)}{pool_rule(e.roll)}",
        roles(("takedown", e.dice)),
    )


@renders(GrappleEnded)
def grapple_ended(e: GrappleEnded, n: Names) -> str:
    return f"🔓 The grapple of {who(n, e.a)} and {who(n, e.b)} ends: {named(e.reason, n, 60)}"


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
    own = e.own_roll.dice if e.own_roll is not None else ()
    enemy = e.enemy_roll.dice if e.enemy_roll is not None else ()
    if not own and not enemy:
        own = e.dice
    return plus(
        f"↪️ {who(n, e.who)} disengages from {who(n, e.enemy)}: {e.own_total}{_mods(e.mods)} vs "
        f"{e.enemy_total} → **{'success' if e.success else 'failure'}**",
        roles((n.get(e.who, "own"), own), (n.get(e.enemy, "enemy"), enemy)),
    )


@renders(StealthChecked)
def stealth_checked(e: StealthChecked, n: Names) -> str:
    against = ", ".join(
        f"{who(n, cid)} {acumen} ({'unseen' if hidden else 'seen'})" for cid, acumen, hidden in e.against
    )
    unseen = [cid for cid, _, hidden in e.against if hidden]
    if not e.against:
        outcome = ""
    elif not unseen:
        outcome = " → **seen**: not hidden"
    elif len(unseen) == len(e.against):
        outcome = " → **hidden**"
    else:
        outcome = " → **hidden** from " + ", ".join(who(n, cid) for cid in unseen) + " only"
    own = e.roll.dice if e.roll is not None else ()
    return plus(
        f"🫥 {who(n, e.who)} stealth {code_text(e.code)}{_mods(e.mods)} = {e.total}"
        + (f" vs {against}" if against else "")
        + outcome,
        # the mover's pool, then each opponent's Acumen in the order listed
        roles(("stealth", own), ("Acumen", e.dice[len(own) :])) if own else roles(("stealth", e.dice)),
    )


@renders(StealthCheckDue)
def stealth_check_due(e: StealthCheckDue, n: Names) -> str:
    return f"🫥 {who(n, e.who)} moved while hidden: a new stealth check is due (`/stealth`)"


@renders(Revealed)
def revealed(e: Revealed, n: Names) -> str:
    return f"👁️ {who(n, e.who)} is seen again ({clean(e.reason, 60)})"


@renders(FieldSet)
def field_set(e: FieldSet, n: Names) -> str:
    field = FIELD_WORDS.get(e.field, e.field.replace("_", " "))
    return f"✏️ The GM sets {who(n, e.who)}'s {clean(field, 40)}: {clean(e.before, 40)} → **{clean(e.after, 40)}**"


FIELD_WORDS = {"hp": "HP", "hp_max": "maximum HP"}


@renders(TurnEnded)
def turn_ended(e: TurnEnded, n: Names) -> str:
    return f"⏹️ {who(n, e.who)}'s turn ends (round {e.round})"


@renders(TurnStarted)
def turn_started(e: TurnStarted, n: Names) -> str:
    return f"▶️ Round {e.round}: {who(n, e.who)}'s turn"


@passes(TurnEnded, TurnStarted, keeps=(InitiativeOrder,), actor="who", done_note="'s turn is done.")
def turn_passes(ended: TurnEnded, started: TurnStarted, between: Sequence[Event], n: Names) -> str:
    return f"⏹️ {who(n, ended.who)}'s turn ends → Round {started.round}: {who(n, started.who)}'s turn"


@renders(DeathSaveOwed)
def death_save_owed(e: DeathSaveOwed, n: Names) -> str:
    malus = f" at −{e.malus}D (bleeding out)" if e.malus else ""
    return f"💀 {who(n, e.who)} is in Last Gasp: turn {e.turn} owes its Death Save{malus}: `/deathsave`"


@renders(DeathSaveSkipped)
def death_save_skipped(e: DeathSaveSkipped, n: Names) -> str:
    return f"⏭️ The {clean(e.by, 20)} skips {who(n, e.who)}'s Death Save; Last Gasp turn {e.turn} still counts"


@renders(FreeActionTaken)
def free_action_taken(e: FreeActionTaken, n: Names) -> str:
    return f"💬 {who(n, e.who)}: {clean(e.what, 80)} (free action)"


@renders(CarriedIn)
def carried_in(e: CarriedIn, n: Names) -> str:
    state = ""
    if e.dead:
        state = ", dead"
    elif e.last_gasp_round is not None:
        turns = f"{e.last_gasp_round} turn{'s' if e.last_gasp_round != 1 else ''} so far"
        down = "stabilised" if e.stabilised else f"in Last Gasp ({turns})"
        state = f", {down}, stored healing {e.stored_healing}"
    return f"🧭 {who(n, e.who)} comes in as instance {e.instance} left them: HP {hp(e.hp)}/{e.hp_max}{state}"
