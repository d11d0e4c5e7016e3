"""``/encounter log``: the stored log rows (newest first), each with its events and dice, in embeds.

Stored rows hold the events' ``to_dict()`` data, not the event objects, so this is a technical rendering:
each event's kind in words and its fields (combatant ids shown as names). The lines players see during play
come from ``cogs.text.events``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import discord
from discord.utils import escape_mentions

from cogs.text.common import mention
from cogs.text.encounters import MAX_DESCRIPTION, MAX_EMBED_TOTAL, clean, fit

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
    if isinstance(value, dict):
        inner = [f"{k} {v}" for k, v in value.items() if not isinstance(v, dict | list)]
        return ", ".join(inner[:6]) or None
    if isinstance(value, list):
        items = [_item(v, names) for v in value]
        return ", ".join(i for i in items[:10] if i) or None
    return str(value)


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
        line = escape_mentions(" ".join(str(event.get("text", "")).split())[:300])
    else:
        fields = []
        for key, value in event.items():
            if key in HIDDEN_KEYS:
                continue
            shown = _value(key, value, names)
            if shown is not None:
                plain = isinstance(value, int | float) and not isinstance(value, bool)
                fields.append(f"{key.replace('_', ' ')} {shown if plain else clean(shown, 80)}")
        line = _words(kind) + (": " + "; ".join(fields) if fields else "")
    dice = dice_text(event.get("dice") or ())
    return f"{line} {dice}".strip()


def stored_events_text(
    events: Sequence[Mapping[str, Any]], names: Mapping[str, str], limit: int = 1500
) -> str:
    lines = [f"• {event_line(e, names)}" for e in events]
    return fit("\n".join(lines), limit) if lines else ""


# --- the log --------------------------------------------------------------------------------------------


def log_embeds(
    name: str, rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], total_rows: int
) -> list[discord.Embed]:
    """The last log rows (newest first), each with its events and dice, in pages that fit one message."""
    entries: list[str] = []
    for row in rows:
        head = (
            f"**#{row['seq']}** {clean(row['summary'] or row['command'], 200)} — {mention(row['actor_id'])}"
        )
        if row.get("undone"):
            head = f"~~{head}~~ *(undone)*"
        body = stored_events_text(row.get("events") or [], names, limit=700)
        entries.append(f"{head}\n{body}".strip())
    pages: list[str] = []
    current = ""
    used = 0
    shown = 0
    for entry in entries:
        if used + len(entry) + 2 > MAX_EMBED_TOTAL - 400:
            break
        if len(current) + len(entry) + 2 > MAX_DESCRIPTION - 100:
            pages.append(current)
            current = ""
        current = f"{current}\n\n{entry}" if current else entry
        used += len(entry) + 2
        shown += 1
    if current:
        pages.append(current)
    if not pages:
        pages = ["Nothing happened yet."]
    embeds = []
    for i, page in enumerate(pages[:10]):
        title = f"📜 {clean(name, 100)} — log" + (f" ({i + 1}/{len(pages)})" if len(pages) > 1 else "")
        embeds.append(discord.Embed(title=title, description=page))
    left = len(rows) - shown
    footer = f"Showing {shown} of {total_rows} entries, newest first."
    if left > 0:
        footer += f" {left} more did not fit; ask for fewer with `count`."
    embeds[-1].set_footer(text=footer)
    return embeds
