"""Every user-facing sentence and embed of the encounter feature (tracker, log, turn announcements, refusals).

Nothing here talks to Discord except building ``discord.Embed`` objects; functions take plain values (views,
event dicts) and return text or embeds that respect Discord's limits (message 2000, embed description 4096,
field value 1024, ≤ 25 fields, 6000 in total). Long content is summarised ("… and 3 more"), never cut in the
middle of a number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import discord

from cogs.text.common import MAX_MESSAGE, MAX_NOTE, clean, mention, number, system_title
from rules.encounter import CombatantView, TrackerView, Traits, TurnStatus
from rules.errors import RulesError
from rules.systems.registry import get_system

MAX_DESCRIPTION = 4096
MAX_FIELD = 1024
MAX_EMBED_TOTAL = 6000
MAX_FIELDS = 25


# --- replies to a change of the encounter


def turn_ended(name: str) -> str:
    return f"⏭️ **{clean(name)}** ended the turn."


def fight_begins() -> str:
    return "⚔️ The fight begins! Initiative:"


def nobody_owes(label: str) -> str:
    return f"⏳ {clean(label)}: nobody owes an action now; the GM moves on with `/gm next`."


def gm_moved_on(holder: str | None) -> str:
    return "⏭️ The GM moved on" + (f" from **{clean(holder)}**." if holder else ".")


def gm_dealt(name: str, amount: int) -> str:
    return f"🩸 The GM dealt {amount} damage to **{clean(name)}**."


def gm_healed(name: str, amount: int) -> str:
    return f"💚 The GM healed **{clean(name)}** by {amount}."


def gm_wrote_wound(name: str, wound: int) -> str:
    return f"🩹 The GM wrote what **{clean(name)}**'s wound {wound} does."


def gm_set_field(name: str, field: str) -> str:
    return f"✏️ The GM set **{clean(name)}**'s {clean(field, 40)}."


def gm_condition(name: str, condition: str, *, remove: bool) -> str:
    return f"🏷️ **{clean(name)}** is {'no longer' if remove else 'now'} {clean(condition, 40)}."


def new_instance_begins() -> str:
    return "🔄 A new instance begins."


def fit(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` within ``limit`` characters: whole lines kept, the rest summarised."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        tail = f"\n… and {len(lines) - i} more lines"
        if used + len(line) + 1 + len(tail) > limit:
            if not out:  # one huge line: cut at a word boundary
                cut = line[: limit - 1].rsplit(" ", 1)[0]
                return cut + "…"
            return "\n".join(out) + tail
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)


# --- refusals (``cogs.text.errors`` words the change path's errors with these; cogs raise them too) ----


def no_encounter() -> str:
    return "There is no open encounter here. A GM opens one with `/encounter start`."


def no_system() -> str:
    return "This channel has no rule system yet. A GM sets one with `/gm system`, then `/encounter start`."


def encounter_open(name: str) -> str:
    return (
        f"An encounter is already open here (**{clean(name)}**). "
        "Finish it with `/encounter end` first, or start the new one in a thread."
    )


def stale_encounter() -> str:
    return "Someone else changed the encounter at the same moment; try again."


def not_running() -> str:
    return "The fight has not begun yet. The GM begins it with `/encounter begin`."


def already_running() -> str:
    return "The fight has already begun."


def unknown_combatant(text: str, names: Sequence[str]) -> str:
    listed = ", ".join(clean(n, 40) for n in names[:20]) or "nobody yet"
    return f"No combatant here is called `{clean(text, 64)}`. In this encounter: {listed}."


def ambiguous_combatant(text: str, names: Sequence[str]) -> str:
    listed = ", ".join(f"**{clean(n, 40)}**" for n in names[:20])
    return f"`{clean(text, 64)}` could mean several combatants; which one: {listed}?"


def bad_name(reason: str) -> str:
    return f"That name cannot be used: {reason}."


def duplicate_name(name: str) -> str:
    return f"A combatant called **{clean(name)}** is already in this encounter. Choose another name."


def out_of_range(option: str, low: int, high: int, value: int) -> str:
    return f"`{option}` must be from {low} to {high}, not {value}."


def already_joined(name: str) -> str:
    return f"**{clean(name)}** is already in this encounter."


def no_character(name: str | None) -> str:
    if name:
        return (
            f"You have no character called `{clean(name, 64)}` in this server. "
            "Create one with `/character create`, or pick one from the list."
        )
    return "You have no character in this system yet. Create one with `/character create` first."


def character_other_system(name: str, system: str, wanted: str) -> str:
    return (
        f"**{clean(name)}** is a {system_title(system)} character, but this encounter plays "
        f"{system_title(wanted)}. Join with a {system_title(wanted)} character."
    )


def which_character(names: Sequence[str]) -> str:
    listed = ", ".join(f"**{clean(n, 40)}**" for n in names[:20])
    return f"You have several characters here; which one? Pass `character`: {listed}."


def unknown_template(text: str, templates: Sequence[str]) -> str:
    listed = ", ".join(templates[:25])
    return (
        f"There is no creature template `{clean(text, 64)}` and you have no saved sheet of that name. "
        f"Templates: {listed}."
    )


def no_template_or_sheet(name: str, templates: Sequence[str]) -> str:
    listed = ", ".join(templates[:25])
    return (
        f"You have no saved sheet called `{clean(name, 64)}`. Pass a `template` (one of: {listed}) "
        "or create the sheet with `/character create` first."
    )


def not_your_combatant() -> str:
    return (
        "You do not control a combatant in this encounter. Join with `/encounter join` first "
        "(a GM ends another combatant's turn with `as`, or moves on with `/gm next`)."
    )


def not_your_turn(current: str | None) -> str:
    if current:
        return f"It is not your turn: it is **{clean(current)}**'s. Wait for your turn to be announced."
    return "Nobody owes an action right now; the GM moves on with `/gm next`."


def as_needs_gm() -> str:
    return "Only a GM may act for another combatant with `as`."


def turn_began_after_sent(current: str) -> str:
    return (
        f"⏳ **{clean(current)}**'s turn began after you sent `/turn end`, so it was not ended: "
        "your command was meant for the turn before. Send `/turn end` again to end this one."
    )


def stale_button() -> str:
    return "🙂 That turn is already over, so this button no longer does anything. See `/encounter status`."


def not_your_button(name: str) -> str:
    return f"🙂 That button is for whoever controls **{clean(name)}**; it is not your turn to end."


def undo_too_far(available: int) -> str:
    if available == 0:
        return "There is nothing to undo since the encounter started."
    return f"Only {available} change(s) can be undone since the encounter started."


def encounter_gone() -> str:
    return "That encounter is no longer stored."


# --- replies --------------------------------------------------------------------------------------------


def started(name: str, system: str, user_id: int) -> str:
    return (
        f"⚔️ {mention(user_id)} opened the encounter **{clean(name)}** ({system_title(system)}). "
        "Players join with `/encounter join`; the GM adds NPCs with `/encounter add` and starts with "
        "`/encounter begin`."
    )


def joined(names: Sequence[str], side: str) -> str:
    who = ", ".join(f"**{clean(n)}**" for n in names)
    return f"➕ {who} joined the encounter (side *{clean(side, 64)}*)."


def removed(name: str) -> str:
    return f"➖ **{clean(name)}** left the encounter."


def ended(name: str, tracker: TrackerView, log_rows: int) -> str:
    lines = [f"🏁 The encounter **{clean(name)}** is over."]
    when = clock_label(tracker)
    if when:
        lines.append(f"It lasted until {when}; {log_rows} changes are in `/encounter log`.")
    for row in tracker.order[:30]:
        lines.append(f"• {clean(row.name, 64)}: {health_text(row, numbers=row.is_pc)}")
    if len(tracker.order) > 30:
        lines.append(f"… and {len(tracker.order) - 30} more")
    return fit("\n".join(lines))


def numbers_need_gm() -> str:
    return "Only a GM can show NPC numbers; `/encounter status` without `numbers` shows the tracker."


def undone(
    summaries: Sequence[str],
    tracker: TrackerView | None = None,
    turn: TurnStatus | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    """What was undone, then where that leaves the encounter: whose turn, and the tracker's notes (a D6
    plan left by the undo says so: "plan so far (not locked in): attack T")."""
    lines = [f"↩️ Undid {len(summaries)} change(s), newest first:"]
    lines += [f"• {clean(s, 200)}" for s in summaries]
    if turn is not None and turn.actors:
        who = (names or {}).get(turn.actors[0], turn.actors[0])
        lines.append(f"Now: {clean(turn.label)}, **{clean(who)}**'s turn.")
    for note in tracker.notes if tracker is not None else ():
        lines.append(f"• {clean(_plan_left_open(note), MAX_NOTE)}")
    return fit("\n".join(lines))


def _plan_left_open(note: str) -> str:
    """A tracker note, where it is a plan not locked in (``plan: …``, ``plan (−1D each): …``) said so."""
    if note.startswith("plan:"):
        return "plan so far (not locked in):" + note.removeprefix("plan:")
    if note.startswith("plan (") and not note.startswith("plan (locked"):
        return "plan so far (not locked in, " + note.removeprefix("plan (")
    return note


def new_instance(lines: Sequence[str]) -> str:
    body = "\n".join(f"• {clean(line, 200)}" for line in lines)
    return fit(f"🔄 A new instance begins (the heal pool is refilled; HP stay as they are):\n{body}")


def instance_status(lines: Sequence[str]) -> str:
    body = "\n".join(f"• {clean(line, 200)}" for line in lines)
    return fit(f"{no_encounter()} The channel's instance, for the next one:\n{body}")


def _round_word(system: str) -> str:
    try:
        return get_system(system).traits.round_word
    except RulesError:
        return "round"


def clock_label(tracker: TrackerView) -> str:
    if tracker.minute is not None:
        segment = f", segment {tracker.segment}" if tracker.segment is not None else ""
        return f"minute {tracker.minute}{segment}"
    if tracker.round is not None:
        return f"{_round_word(tracker.system)} {tracker.round}"
    return ""


def turn_announcement(
    turn: TurnStatus, name: str, owner_id: int | None, happened: Sequence[str] = (), now: str = ""
) -> str:
    """Whose turn, what just happened to them, and what they can do now."""
    if owner_id:
        head = f"🔔 {clean(turn.label)}: {mention(owner_id)}, it is **{clean(name)}**'s turn."
    else:
        head = f"🔔 {clean(turn.label)}: it is **{clean(name)}**'s turn (an NPC, played by the GM)."
    lines = [head]
    if happened:
        lines += ["Just now:", *(f"› {line}" for line in happened)]
    if now:
        lines.append(now)
    return fit("\n".join(lines))


HINT_LAST_GASP = "🕯️ In Last Gasp the only thing to do is the Death Save: press **Death Save** below."
HINT_DECLARE_THEN_LOCK = (
    "Now: `/attack target:` (and `/defend stance:` …) plan the turn; `/lockin` resolves it and "
    "ends the turn (one action: add `lock:true`)."
)
HINT_TIMELINE = (
    "Now: `/attack target:` declares an attack that lands after its speed, `/defend stance:` "
    "sets your defense, `/turn end` waits one segment."
)
HINT_PLAIN = "Now: `/attack target:` strikes, `/move` moves, `/turn end` ends the turn."
TURN_HINTS = frozenset({HINT_LAST_GASP, HINT_DECLARE_THEN_LOCK, HINT_TIMELINE, HINT_PLAIN})


def turn_choices(traits: Traits, *, last_gasp: bool) -> str:
    """The two or three commands that apply on a turn, with their key option (from the system's traits)."""
    if last_gasp:
        return HINT_LAST_GASP
    if traits.declares_then_locks:
        return HINT_DECLARE_THEN_LOCK
    if traits.segment_timeline:
        return HINT_TIMELINE
    return HINT_PLAIN


def passed_announcement(content: str) -> str:
    """A turn announcement as it reads once its turn has passed: without the line saying what to do now."""
    return "\n".join(line for line in content.split("\n") if line not in TURN_HINTS)


# --- the tracker ----------------------------------------------------------------------------------------


def health_text(row: CombatantView, *, numbers: bool) -> str:
    parts: list[str] = []
    if numbers and row.hp is not None:
        hp = number(row.hp)
        parts.append(f"HP {hp}/{number(row.hp_max)}" if row.hp_max is not None else f"HP {hp}")
    if numbers and row.damage is not None:
        parts.append(f"damage {row.damage}")
    if row.wounds:
        parts.append(f"{row.wounds} wound{'s' if row.wounds != 1 else ''}")
    if row.health:
        parts.append(row.health)
    return ", ".join(parts) or "—"


DOWN_WORDS = frozenset({"down", "out", "last gasp", "stabilised", "unconscious", "dying"})


def standing(row: CombatantView) -> str:
    """``dead``, ``down`` (out of the fight for now) or ``""`` (standing), from the tracker's state word."""
    word = (row.health or "").casefold()
    if word == "dead":
        return "dead"
    return "down" if word in DOWN_WORDS or not row.active else ""


def attack_the_fallen(name: str, state: str, note: str) -> str:
    if state == "dead":
        return f"**{clean(name)}** is dead; there is nothing left to attack."
    extra = f" {note}" if note else ""
    return f"**{clean(name)}** is down.{extra} To attack anyway, repeat the command with `confirm:true`."


def tracker_line(row: CombatantView, current: bool, numbers_for_npcs: bool = False) -> str:
    marker = "▶️" if current else ("▫️" if row.active else "✖️")
    init = f"`{row.initiative:>3}` " if row.initiative is not None else ""
    npc = "" if row.is_pc else " *(NPC)*"
    parts = [health_text(row, numbers=row.is_pc or numbers_for_npcs)]
    hurt = [loc for loc in row.locations if loc.damage or loc.state not in ("unhurt", "")]
    if hurt:
        parts.append(" ".join(f"{clean(loc.location, 20)} {loc.damage} ({loc.state})" for loc in hurt[:8]))
    if row.conditions:
        parts.append(", ".join(clean(c, 40) for c in row.conditions[:8]))
    if row.last_gasp_round is not None:
        parts.append(f"Last Gasp turn {row.last_gasp_round}")
    if row.stored_healing:
        parts.append(f"stored healing {row.stored_healing}")
    if row.next_segment:
        parts.append(f"next {row.next_segment}")
    if row.pending:
        parts.append(clean(row.pending, 80))
    return f"{marker} {init}**{clean(row.name, 64)}**{npc} · {' · '.join(parts)}"


_TIME = re.compile(r"(\d+):(\d{2})")


def _when(row: CombatantView) -> tuple[int, int]:
    """When a row next does something on a segment timeline (minutes count up, segments down)."""
    times = [m for text in (row.pending or "", row.next_segment or "") for m in _TIME.findall(text)]
    if not times:
        return (10**9, 0)
    return min((int(minute), -int(segment)) for minute, segment in times)


def in_play_order(tracker: TrackerView) -> tuple[CombatantView, ...]:
    """The tracker's rows as they come up: on a segment timeline by the time of each one's next action or
    landing (pending actions by the segment they land on), else as the system orders them."""
    try:
        timeline = get_system(tracker.system).traits.segment_timeline
    except RulesError:
        timeline = False
    if not timeline:
        return tracker.order
    return tuple(sorted(tracker.order, key=lambda row: (not row.active, _when(row))))


def tracker_embed(
    name: str, tracker: TrackerView, turn: TurnStatus, status: str, *, npc_numbers: bool = False
) -> discord.Embed:
    """The tracker as one embed within Discord's limits. NPC HP is a state word unless ``npc_numbers``."""
    title = f"⚔️ {clean(name, 100)} — {system_title(tracker.system)}"
    head = []
    if status == "ended":
        head.append("**Ended.**")
    elif not tracker.begun:
        head.append("**Setup** — the GM begins the fight with `/encounter begin`.")
    else:
        head.append(f"**{clean(turn.label, 100)}**")
    names = {row.id: row.name for row in tracker.order}
    if tracker.current and status != "ended":
        head.append("Turn: " + ", ".join(f"**{clean(names.get(c, c), 64)}**" for c in tracker.current))
    lines: list[str] = []
    budget = MAX_DESCRIPTION - 200 - sum(len(h) + 1 for h in head)
    rows = in_play_order(tracker)
    for i, row in enumerate(rows):
        line = tracker_line(row, row.id in tracker.current and status != "ended", npc_numbers)
        if budget - len(line) - 1 < 0:
            lines.append(f"… and {len(rows) - i} more combatants")
            break
        lines.append(line)
        budget -= len(line) + 1
    if not tracker.order:
        lines.append("Nobody yet: players `/encounter join`, the GM `/encounter add`s NPCs.")
    embed = discord.Embed(title=title[:256], description="\n".join([*head, "", *lines])[:MAX_DESCRIPTION])
    total = len(embed.title or "") + len(embed.description or "")
    fields: list[tuple[str, str]] = []
    if tracker.grapples:
        glines = []
        for g in tracker.grapples:
            a, b = names.get(g.a, g.a), names.get(g.b, g.b)
            lead = a if g.counter > 0 else b if g.counter < 0 else "nobody"
            pinned = f", {clean(names.get(g.pinned, g.pinned), 40)} pinned" if g.pinned else ""
            glines.append(
                f"{clean(a, 40)} ↔ {clean(b, 40)}: counter {g.counter:+d} (toward {clean(lead, 40)}){pinned}"
            )
        fields.append(("Grapples", fit("\n".join(glines), MAX_FIELD)))
    if tracker.heal_pool is not None:
        pool = tracker.heal_pool
        fields.append(
            (
                "Heal pool",
                f"{pool.left} of {pool.size} heals left (used {pool.used}), instance {pool.instance}",
            )
        )
    if tracker.notes:
        fields.append(("Notes", fit("\n".join(f"• {clean(n, 300)}" for n in tracker.notes), MAX_FIELD)))
    for fname, value in fields[:MAX_FIELDS]:
        if total + len(fname) + len(value) > MAX_EMBED_TOTAL - 100:
            break
        embed.add_field(name=fname, value=value or "—", inline=False)
        total += len(fname) + len(value)
    return embed
