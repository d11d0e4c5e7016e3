"""Turn passings, declared per system next to its renderers: the event class that ends a turn, the one that
starts the next, what may stand between them, and the one line that tells both (``cogs.text.turn_fold``
folds them)::

    @passes(TurnEnded, TurnStarted, absorbs=(PhaseStarted,))
    def passing(ended: TurnEnded, started: TurnStarted, between: Sequence[Event], names: Names) -> str:
        return f"⏹️ {who(names, ended.combatant)}'s turn ends → Phase {started.phase}: …"

- ``keeps``: events that may stand between the two and keep their own line (after the folded one).
- ``absorbs``: events that may stand between the two and are told by the folded line (theirs is dropped);
  the line function receives them as ``between``.
- ``done_note``: a rules ``Note`` just before the ending event that reads ``<name><done_note>`` says nothing
  the folded line does not; it is dropped. ``actor`` names the ending event's combatant field.

A passing is folded only when none of its events carries dice (a die is always shown where it was rolled).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from cogs.text.events.registry import Names
from rules.events import Event

PassingLine = Callable[[Any, Any, Sequence[Event], Names], str]
P = TypeVar("P", bound=PassingLine)


@dataclass(frozen=True)
class Passing:
    ended: type[Event]
    started: type[Event]
    line: PassingLine
    keeps: tuple[type[Event], ...] = ()
    absorbs: tuple[type[Event], ...] = ()
    actor: str = "combatant"
    done_note: str | None = None


_PASSINGS: dict[type[Event], Passing] = {}


def passes(
    ended: type[Event],
    started: type[Event],
    *,
    keeps: tuple[type[Event], ...] = (),
    absorbs: tuple[type[Event], ...] = (),
    actor: str = "combatant",
    done_note: str | None = None,
) -> Callable[[P], P]:
    """Register the decorated function as the line of a turn passing from ``ended`` to ``started``."""

    def register(fn: P) -> P:
        known = _PASSINGS.get(ended)
        if known is not None and known.line is not fn:
            raise ValueError(f"{ended.__qualname__} already ends a turn passing ({known.line.__name__})")
        _PASSINGS[ended] = Passing(ended, started, fn, keeps, absorbs, actor, done_note)
        return fn

    return register


def passing_from(cls: type[Event]) -> Passing | None:
    """The turn passing that ``cls`` (an event class ending a turn) opens, if its system declares one."""
    return _PASSINGS.get(cls)
