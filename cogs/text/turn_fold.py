"""A turn told in as few lines as it needs: a turn passing is one line (``⏹️ Vale's turn ends → Round 1: Orn's
turn``), by the pairs of event classes each system declares next to its renderers
(``cogs.text.events.passing``); and a D6 plan of one action with no multi-action penalty shows only its
resolution (the plan and its lock-in say nothing the resolution does not). A plan of several actions keeps its
lock-in line: the penalty it names changes every roll after it. The events stay as they are (``/encounter log``
lists them all); only the message assembled from them is shorter, and no line carrying dice is ever folded."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.events import Names, event_lines
from cogs.text.events.passing import Passing, passing_from
from cogs.text.events.registry import Heading
from rules.events import Event, Note
from rules.systems.d6.events import ActionDeclared, TurnLocked


def _one_action(lock: TurnLocked) -> bool:
    return len(lock.kinds) == 1 and lock.counted <= 1 and not lock.penalty_dice and not lock.free_declared


def _note_of(event: Event, names: Names, cid: str, ending: str) -> bool:
    """The rules' note about ``cid`` that reads ``<name><ending>`` (its plan shown, its turn done)."""
    name = names.get(cid)
    return isinstance(event, Note) and bool(name) and event.text.startswith(f"{name}{ending}")


def _started_at(events: Sequence[Event], i: int, passing: Passing) -> tuple[int, list[int]] | None:
    """Where the turn ended at ``i`` is followed by the next turn starting, and the absorbed events between."""
    absorbed: list[int] = []
    j = i + 1
    while j < len(events) and isinstance(events[j], passing.keeps + passing.absorbs):
        if isinstance(events[j], passing.absorbs):
            absorbed.append(j)
        j += 1
    if j < len(events) and isinstance(events[j], passing.started):
        return j, absorbed
    return None


def folded_lines(events: Sequence[Event], names: Names) -> list[str]:
    """The lines of ``events`` (as ``lines_of`` gives them), one-action plans and turn passings folded."""
    events = list(events)
    skip: set[int] = set()
    folds: dict[int, str] = {}
    for i, e in enumerate(events):
        if isinstance(e, TurnLocked) and _one_action(e):
            if i and _note_of(events[i - 1], names, e.who, " locks in:"):
                skip.add(i - 1)
            skip |= {j for j in range(i) if isinstance(events[j], ActionDeclared) and events[j].who == e.who}
            continue
        passing = passing_from(type(e))
        if passing is None or i in skip:
            continue
        cid = str(getattr(e, passing.actor, ""))
        if passing.done_note and i and _note_of(events[i - 1], names, cid, passing.done_note):
            skip.add(i - 1)
        found = _started_at(events, i, passing)
        if found is None:
            continue
        j, absorbed = found
        if any(events[k].all_dice for k in (i, j, *absorbed)):
            continue
        line = passing.line(e, events[j], [events[k] for k in absorbed], names)
        # the line stands where the next turn's did when that one opened a part of its own
        started = event_lines(events[j], names)
        folds[i] = Heading(line) if started and isinstance(started[0], Heading) else line
        skip |= {j, *absorbed}
    skip = {i for i in skip if not events[i].all_dice}  # a folded line never takes a die with it
    lines: list[str] = []
    for i, e in enumerate(events):
        if i in folds:
            lines.append(folds[i])
        elif i not in skip:
            lines.extend(event_lines(e, names))
    return lines
