"""Events every system shares (``rules.events``)."""

from __future__ import annotations

from discord.utils import escape_mentions

from cogs.text.common import clean
from cogs.text.events.parts import who, with_dice
from cogs.text.events.registry import Names, renders
from rules.events import Note, SheetFieldKept


@renders(Note)
def note(e: Note, n: Names) -> str:
    # written by the rules for people: keep its markdown, never its mentions
    return with_dice("📎 " + escape_mentions(" ".join(e.text.split())[:300]), e)


@renders(SheetFieldKept)
def sheet_field_kept(e: SheetFieldKept, n: Names) -> str:
    return f"📝 {who(n, e.combatant)} keeps {clean(e.field, 30)} {clean(e.value, 30)} on its sheet"
