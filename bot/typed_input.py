"""What members type, checked before anything is read or changed: names (of combatants, encounters, sides),
numbers within their range, and the combatant a typed name means."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from bot.encounter_rows import CombatantRow
from bot.errors import AmbiguousCombatant, MalformedName, NamedThing, OutOfRange, UnknownCombatant

MAX_NAME = 64


def check_name(name: str, *, what: NamedThing = "name") -> str:
    """A name (of a combatant, an encounter or a side), trimmed: 1..64 characters, no control characters."""
    raw = name or ""
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in raw):
        raise MalformedName("control", what)
    cleaned = " ".join(raw.split())
    if not cleaned:
        raise MalformedName("empty", what)
    if len(cleaned) > MAX_NAME:
        raise MalformedName("too_long", what, len(cleaned), MAX_NAME)
    return cleaned


def check_range(option: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise OutOfRange(option, low, high, value)
    return value


def resolve(rows: Sequence[CombatantRow], typed: str) -> CombatantRow:
    """The combatant ``typed`` names: an exact (case-insensitive) name wins, else a single partial match."""
    key = " ".join((typed or "").split()).casefold()
    names = [r.name for r in rows]
    if not key:
        raise UnknownCombatant(typed, names)
    exact = [r for r in rows if r.name.casefold() == key]
    if exact:
        return exact[0]
    if key.isdecimal():  # an id, as buttons and some events carry
        by_id = [r for r in rows if str(r.id) == key]
        if by_id:
            return by_id[0]
    partial = [r for r in rows if key in r.name.casefold()]
    if len(partial) == 1:
        return partial[0]
    if partial:
        raise AmbiguousCombatant(typed, [r.name for r in partial])
    raise UnknownCombatant(typed, names)
