"""Events every system shares (``rules.events``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from cogs.text.common import clean, note_text
from cogs.text.events.parts import plus, roles, who
from cogs.text.events.registry import Names, renders
from rules.events import Note, SheetFieldKept


@renders(Note)
def note(e: Note, n: Names) -> str:
    # written by the rules for people: keep its markdown, never its mentions
    labels = {d.label for d in e.dice}
    role = labels.pop() if len(labels) == 1 and "" not in labels else "dice"  # the dice's own name, if shared
    return plus("📎 " + note_text(e.text), roles((role, e.dice)))


@renders(SheetFieldKept)
def sheet_field_kept(e: SheetFieldKept, n: Names) -> str:
    # the field as players write it on a sheet (``sequence`` → Sequence); a player's character keeps it
    field = clean(e.field.replace("_", " "), 30)
    field = field[:1].upper() + field[1:]
    return (
        f"📝 {who(n, e.combatant)}'s {field} stays **{clean(e.value, 30)}**: a player's character keeps it "
        "on the sheet for later fights"
    )


_ADDED = re.compile(r"^(?:(?P<label>[\w ]+?) )?\+ (?P<what>.+)$")
_REMOVED = re.compile(r"^(?:(?P<label>[\w ]+?) )?− (?P<what>.+)$")


def _change(phrase: str) -> str:
    """One of the rules' sheet-change phrases (``skill + Dodge 5``, ``weapon − Claymore``, ``STR 7 → 8``) as
    words: ``new skill Dodge 5``, ``no more weapon Claymore``, ``STR 7 → 8``."""
    text = clean(phrase, 60)
    if m := _ADDED.match(text):
        return f"new {m['label'] + ' ' if m['label'] else ''}{m['what']}"
    if m := _REMOVED.match(text):
        return f"no more {m['label'] + ' ' if m['label'] else ''}{m['what']}"
    return text


def sheet_refreshed_text(who_text: str, changes: Sequence[str]) -> str:
    """Both systems' ``SheetRefreshed``: the edited sheet reaches the fight, and what changed, as a list."""
    if changes and changes[0].startswith("not applied"):  # Nyra: a location table cannot change mid-fight
        return f"📝 {who_text}'s edited sheet is {clean(changes[0], 200)}"
    shown = [_change(c) for c in changes[:12]]
    if len(changes) > 12:
        shown.append(f"{len(changes) - 12} more changes")
    listed = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else "".join(shown)
    return f"📝 {who_text} fights on with its edited sheet" + (f": {listed}" if listed else "")
