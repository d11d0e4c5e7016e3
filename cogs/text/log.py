"""``/encounter log``: the stored log rows (newest first), each with its events and dice, in pages.

Stored rows hold the events' ``to_dict()`` data, not the event objects, so this is the technical record:
each event's kind in words and all its fields (combatant ids shown as names), never cut inside a value; a
long log is paged (``page``). The lines players see during play
come from ``cogs.text.events``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import discord

from cogs.text.common import clean, mention, note_text
from cogs.text.encounters import MAX_DESCRIPTION, MAX_EMBED_TOTAL

# --- a log row's summary: what the change did, in one line (the cogs and the shell's changes are given these)


def opened_summary(name: str) -> str:
    return f"Encounter {name} opened"


def undo_summary(summaries: Sequence[str]) -> str:
    """``summaries``: the undone changes' own, newest first."""
    return f"Undid {len(summaries)} change(s): " + "; ".join(summaries)


def skipped_summary(name: str) -> str:
    return f"{name}'s turn was skipped (no answer to the reminders)"


def turn_ended_summary(name: str, *, by_gm: bool) -> str:
    return f"{name} ended the turn" + (" (GM)" if by_gm else "")


def joined_summary(name: str, side: str, *, luck: bool) -> str:
    return f"{name} joined ({side})" + (", spending Luck on initiative" if luck else "")


def added_summary(names: Sequence[str], side: str) -> str:
    return f"GM added {', '.join(names)} ({side})"


def removed_summary(name: str) -> str:
    return f"GM removed {name}"


def began_summary(attackers: str | None, surprise: int) -> str:
    return "The fight began" + (f" ({attackers} attacked, surprise {surprise:+d})" if attackers else "")


def ended_summary() -> str:
    return "The encounter ended"


def luck_summary(name: str, *, off: bool) -> str:
    return f"{name} {'takes back' if off else 'spends'} Luck on initiative"


def gm_next_summary(holder: str | None) -> str:
    return "GM moved on" + (f" from {holder}" if holder else "")


def gm_damage_summary(name: str, amount: int, location: str | None) -> str:
    return f"GM: {amount} damage to {name}" + (f" to the {location}" if location else "")


def gm_heal_summary(name: str, amount: int, location: str | None) -> str:
    return f"GM: healed {name} by {amount}" + (f" on the {location}" if location else "")


def gm_wound_summary(name: str, wound: int, effect: str) -> str:
    return f"GM: {name}'s wound {wound}: {effect}"


def gm_set_summary(name: str, field: str, value: str) -> str:
    return f"GM: set {name}'s {field} to {value}"


def gm_condition_summary(name: str, condition: str, *, remove: bool) -> str:
    return f"GM {'removed' if remove else 'added'} {condition} on {name}"


def new_instance_summary() -> str:
    return "GM started a new instance"


# Event fields that hold combatant ids (shown as names).
ID_KEYS = frozenset(
    {
        "who",
        "cid",
        "id",
        "ids",
        "target",
        "actor",
        "attacker",
        "defender",
        "combatant",
        "a",
        "b",
        "winner",
        "loser",
        "by",
        "healer",
        "pinned",
        "holder",
        "order",
    }
)
HIDDEN_KEYS = frozenset({"dice", "roll", "kind"})


def _words(kind: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower()


def _item(value: Any, names: Mapping[str, str]) -> str | None:
    """One list item: a plain value, or for a record its name (or its combatant id shown as a name)."""
    if isinstance(value, dict):
        if value.get("name"):
            return str(value["name"])
        for key in ("combatant", "who", "id", "cid", "target"):
            if value.get(key) is not None:
                return names.get(str(value[key]), str(value[key]))
        return None
    if isinstance(value, list | tuple):
        return None
    return str(value)


def _value(key: str, value: Any, names: Mapping[str, str]) -> str | None:
    if value is None or value == () or value == [] or value == "":
        return None
    if key in ID_KEYS and not isinstance(value, dict):
        if isinstance(value, list | tuple):
            items = [_item(v, names) if isinstance(v, dict) else names.get(str(v), str(v)) for v in value]
            return ", ".join(i for i in items if i) or None
        return names.get(str(value), str(value))
    if isinstance(value, bool):
        return "yes" if value else None
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dict) and set(value) == {"dice", "pips"}:  # a D6 die code, as the sheet writes it
        pips = value["pips"]
        return f"{value['dice']}D" + (f"{pips:+d}" if isinstance(pips, int) and pips else "")
    if isinstance(value, dict):
        # a record's flags read as the top level's do: a yes is shown, a no is left out
        inner = [
            f"{k.replace('_', ' ')}: {names.get(str(v), v) if k in ID_KEYS else _plain(v)}"
            for k, v in value.items()
            if not isinstance(v, dict | list) and v not in (None, "") and v is not False
        ]
        return "(" + ", ".join(inner) + ")" if inner else None
    if isinstance(value, list):
        items = [_item(v, names) for v in value]
        return ", ".join(i for i in items[:10] if i) or None
    return str(value)


def _number(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _plain(value: Any) -> Any:
    if value is True:
        return "yes"
    return _number(value) if isinstance(value, float) else value


def _times(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event's fields with each ``<x>minute`` / ``<x>segment`` pair as one time, as players say it
    (``lands at = 2:25``), where the other fields stay as they are."""
    out: dict[str, Any] = {}
    for key, value in event.items():
        if key.endswith("segment") and f"{key[:-7]}minute" in event:
            continue
        prefix = key[:-6] if key.endswith("minute") else None
        segment = event.get(f"{prefix}segment") if prefix is not None else None
        if prefix is None or not isinstance(value, int) or not isinstance(segment, int):
            out[key] = value
            continue
        label = prefix.rstrip("_").replace("_", " ")
        if not label:
            label = "to" if "from_minute" in event else "at"
        elif label != "from":
            label = f"{label} at"
        out[label] = f"{value}:{segment:02d}"
    return out


def dice_text(dice: Iterable[Mapping[str, Any]]) -> str:
    parts = []
    for d in dice:
        mark = "ᴳ" if d.get("origin") == "gm" else ""
        parts.append(f"{d.get('value')}{mark}")
    return f"🎲 [{' '.join(parts)}]" if parts else ""


def event_line(event: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """One event as a line: its kind in words, its fields (ids shown as names), and every die it drew."""
    kind = str(event.get("kind", "event"))
    if kind == "Note":  # written by the rules for people: keep its markdown, never its mentions
        line = note_text(str(event.get("text", "")))
    else:
        fields = []
        shown_names: set[str] = set()
        for key, value in _times(event).items():
            if key in HIDDEN_KEYS:
                continue
            shown = _value(key, value, names)
            if key in ID_KEYS and shown is not None:
                shown_names.add(shown)
            if key == "name" and shown in shown_names:
                continue  # the combatant's name, already shown for its id
            if shown is not None:
                plain = isinstance(value, int | float) and not isinstance(value, bool)
                fields.append(f"{key.replace('_', ' ')} = {shown if plain else clean(shown, 300)}")
        line = f"*{_words(kind)}*" + (" · " + " · ".join(fields) if fields else "")
    dice = dice_text(event.get("dice") or ())
    return f"{line} {dice}".strip()


def stored_events_text(events: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    return "\n".join(f"• {event_line(e, names)}" for e in events)


# --- the log --------------------------------------------------------------------------------------------

EMBED_CHARS = MAX_DESCRIPTION - 200
PAGE_CHARS = MAX_EMBED_TOTAL - 600  # one message's embeds together, with their titles and footer


def _pieces(entry: str, limit: int) -> list[str]:
    """An entry longer than an embed, in pieces cut between lines (a line longer still, between words)."""
    out: list[str] = []
    current = ""
    for line in entry.split("\n"):
        while len(line) > limit:
            cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
            if current:
                out.append(current)
                current = ""
            out.append(cut)
            line = "  " + line[len(cut) :].lstrip()
        if current and len(current) + len(line) + 1 > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


def log_pages(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> list[list[str]]:
    """Every row (newest first) with all its events and dice: pages (one message each) of embed texts,
    whole lines only."""
    pages: list[list[str]] = []
    page: list[str] = []
    current = ""

    def close_embed() -> None:
        nonlocal current
        if current:
            page.append(current)
            current = ""

    for row in rows:
        head = (
            f"**#{row['seq']}** {clean(row['summary'] or row['command'], 200)} — {mention(row['actor_id'])}"
        )
        if row.get("undone"):
            head = f"~~{head}~~ *(undone)*"
        entry = f"{head}\n{stored_events_text(row.get('events') or [], names)}".strip()
        for piece in _pieces(entry, EMBED_CHARS):
            used = sum(len(t) + 2 for t in page) + len(current)
            if used + len(piece) + 2 > PAGE_CHARS:
                close_embed()
                if page:
                    pages.append(page)
                page = []
            elif current and len(current) + len(piece) + 2 > EMBED_CHARS:
                close_embed()
            current = f"{current}\n\n{piece}" if current else piece
    close_embed()
    if page:
        pages.append(page)
    return pages or [["Nothing happened yet."]]


def log_embeds(
    name: str, rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], total_rows: int, page: int = 1
) -> list[discord.Embed]:
    """One page (one message) of the last log rows, newest first, each with its events and dice."""
    pages = log_pages(rows, names)
    page = max(1, min(page, len(pages)))
    title = f"📜 {clean(name, 100)} — log" + (f" (page {page} of {len(pages)})" if len(pages) > 1 else "")
    embeds = [
        discord.Embed(title=title if i == 0 else None, description=text)
        for i, text in enumerate(pages[page - 1])
    ]
    footer = f"{len(rows)} of {total_rows} entries, newest first."
    if len(pages) > 1:
        footer += f" More with `page` (1–{len(pages)})."
    embeds[-1].set_footer(text=footer)
    return embeds
