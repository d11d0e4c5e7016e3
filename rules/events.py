"""Events: frozen records of what a rules operation did, each with the dice that decided it.

Every rules operation returns ``Outcome(state, events)``; it never mutates its input. The shell stores
events in the encounter log (``to_dict``) and the render modules turn them into text. System packages
subclass ``Event`` with their own fields (``dice`` stays the last field by convention, with a default).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rules.dice import Die

S = TypeVar("S")


# Values JSON takes as they are: most of an event's leaves (exact types: an enum of text is not one)
_AS_THEY_ARE = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """A dataclass's field names, found once per class (``dataclasses.fields`` builds them at every call);
    not a cache slot (``init=False``: ``rules.stored_once``), which is no part of the value."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)


def plain(value: Any) -> Any:
    """A JSON-ready copy of a rules value: dataclasses → dicts, tuples → lists, enums → values."""
    cls = type(value)
    if cls in _AS_THEY_ARE:
        return value
    if cls is tuple or cls is list:
        return [plain(v) for v in value]
    if isinstance(value, Die):
        return value.to_dict()
    if isinstance(value, Event):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: plain(getattr(value, name)) for name in _field_names(cls)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        items = [plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, frozenset | set) else items
    return value


@dataclass(frozen=True)
class Event:
    """Base of every event. ``kind`` is the class name; ``dice`` every die drawn for it, in order."""

    @property
    def kind(self) -> str:
        return type(self).__name__

    @property
    def all_dice(self) -> tuple[Die, ...]:
        return tuple(getattr(self, "dice", ()))

    def to_dict(self) -> dict[str, Any]:
        body = {name: plain(getattr(self, name)) for name in _field_names(type(self))}
        return {"kind": self.kind, **body}


@dataclass(frozen=True)
class Note(Event):
    """A plain line for the log (a house-rule reading applied, a GM reminder)."""

    text: str
    dice: tuple[Die, ...] = ()


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """What a rules operation returns: the new state and what happened, in order."""

    state: S
    events: tuple[Event, ...] = field(default_factory=tuple)

    @property
    def dice(self) -> tuple[Die, ...]:
        return tuple(d for e in self.events for d in e.all_dice)


def dice_of(events: Iterable[Event]) -> tuple[Die, ...]:
    return tuple(d for e in events for d in e.all_dice)


@dataclass(frozen=True)
class SheetFieldKept(Event):
    """A value the encounter settled that belongs on the combatant's character sheet from now on (RULES.md
    §4: a Nyra Sequence is rolled once and written to the sheet). The shell writes it to the character with
    ``System.set_sheet_field(sheet, field, value)``; a combatant without a character has nowhere to keep it."""

    combatant: str
    field: str
    value: str
    dice: tuple[Die, ...] = ()
