"""Pieces the event renderers share: names, dice (the Wild Die marked ``ᵂ``, GM-queued dice ``ᴳ``), signed
numbers, modifiers and house-rule readings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from cogs.text.common import clean, number
from cogs.text.events.registry import Names
from rules.dice import Die
from rules.events import Event

WILD = "ᵂ"
GM = "ᴳ"


def who(names: Names, cid: str | None) -> str:
    """A combatant as players know it: its name in bold (an id only when the name is gone)."""
    if not cid:
        return "someone"
    return f"**{clean(names.get(str(cid), str(cid)), 64)}**"


def die_text(d: Die | Mapping[str, Any]) -> str:
    """One die's face with its marks; a stored die (a log row's dict) reads the same."""
    label, origin, value = (
        (d.label, d.origin, d.value)
        if isinstance(d, Die)
        else (d.get("label"), d.get("origin"), d.get("value"))
    )
    mark = (WILD if "wild" in str(label or "").lower() else "") + (GM if origin == "gm" else "")
    return f"{value}{mark}"


def dice_list(dice: Iterable[Die | Mapping[str, Any]] | None) -> str:
    shown = [die_text(d) for d in dice or ()]
    return f"🎲 [{' '.join(shown)}]" if shown else ""


def with_dice(line: str, event: Event) -> str:
    shown = dice_list(event.all_dice)
    return f"{line} {shown}".strip()


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else number(n)


def mod_text(m: Any) -> str:
    """One modifier: Nyra's ``Modifier`` (source, note), Kaernest's (label) or D6's ``Mod`` (label, unit)."""
    unit = getattr(m, "unit", "flat")
    label = clean(str(getattr(m, "label", "") or getattr(m, "source", "")), 40)
    note = getattr(m, "note", "")
    return f"{signed(m.value)}{'D' if unit in ('D', 'skill') else ''} {label}" + (
        f" ({clean(note, 40)})" if note else ""
    )


def mods_text(mods: Iterable[Any] | None) -> str:
    return ", ".join(mod_text(m) for m in mods or ())


def rule(text: str | None) -> str:
    """The house-rule reading a resolution used, in italics."""
    return f" *(rule: {clean(str(text), 60)})*" if text else ""


def quoted(text: object, limit: int = 60) -> str:
    return clean(str(text), limit)


def roles(*groups: tuple[str, Iterable[Die | Mapping[str, Any]] | None]) -> str:
    """Dice labelled by what they were for: ``🎲 to-hit [3 4] · defence [5]`` (empty groups left out)."""
    shown = [
        f"{role} [{' '.join(die_text(d) for d in dice)}]" for role, dice in groups if dice and list(dice)
    ]
    return f"🎲 {' · '.join(shown)}" if shown else ""


def plus(line: str, *extra: str) -> str:
    """``line`` followed by the non-empty ``extra`` pieces, one space apart."""
    return " ".join([line, *(x for x in extra if x)])


def house(reading: str | None) -> str:
    """A house rule that changed the result, named in italics (``cogs.text.encounters`` keeps one per
    message)."""
    return f" *(house rule: {clean(str(reading), 80)})*" if reading else ""


# where the rules' reasons name a combatant by id: at the start (``3 entered Last Gasp``) or after "by"
# (``heal by 3``); other numbers in a reason are amounts, never looked up
_ID_AT = re.compile(r"^\d{1,20}(?= |$)|(?<=\bby )\d{1,20}\b")


def named(text: str, names: Names, limit: int = 80) -> str:
    """A reason from the rules that names a combatant by id (``3 entered Last Gasp``, ``heal by 3``), with
    the name."""
    return clean(_ID_AT.sub(lambda m: names.get(m.group(), m.group()), str(text)), limit)


def terms(mods: Iterable[Any] | None) -> str:
    """Modifiers as a sum's terms: ``+4 Swords +6 Grace −5 defence``."""
    return " ".join(mod_text(m) for m in mods or ())


def by(margin: int) -> str:
    return f"by {abs(margin)}"
