"""A D6 turn told in as few lines as it needs: a plan of one action with no multi-action penalty shows only
its resolution (the plan and its lock-in say nothing the resolution does not), and a turn passing is one
line (``⏹️ Vale's turn ends → Round 1: Orn's turn``). A plan of several actions keeps its lock-in line: the
penalty it names changes every roll after it. The events stay as they are (``/encounter log`` lists them
all); only the message assembled from them is shorter."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.text.events import Names, event_lines
from cogs.text.events.parts import who
from rules.events import Event, Note
from rules.systems.d6.events import ActionDeclared, InitiativeOrder, TurnEnded, TurnLocked, TurnStarted


def _one_action(lock: TurnLocked) -> bool:
    return len(lock.kinds) == 1 and lock.counted <= 1 and not lock.penalty_dice and not lock.free_declared


def _note_of(event: Event, names: Names, cid: str, ending: str) -> bool:
    """The rules' note about ``cid`` that reads ``<name><ending>`` (its plan shown, its turn done)."""
    name = names.get(cid)
    return isinstance(event, Note) and bool(name) and event.text.startswith(f"{name}{ending}")


def folded_lines(events: Sequence[Event], names: Names) -> list[str]:
    """The lines of ``events`` (as ``lines_of`` gives them), one-action plans and turn passings folded."""
    events = list(events)
    skip: set[int] = set()
    passing: dict[int, TurnStarted] = {}
    for i, e in enumerate(events):
        if isinstance(e, TurnLocked) and _one_action(e):
            if i and _note_of(events[i - 1], names, e.who, " locks in:"):
                skip.add(i - 1)
            skip |= {j for j in range(i) if isinstance(events[j], ActionDeclared) and events[j].who == e.who}
        elif isinstance(e, TurnEnded):
            if i and _note_of(events[i - 1], names, e.who, "'s turn is done."):
                skip.add(i - 1)
            j = i + 1
            while j < len(events) and isinstance(events[j], InitiativeOrder):
                j += 1
            if j < len(events) and isinstance(events[j], TurnStarted) and not events[j].all_dice:
                passing[i] = events[j]
                skip.add(j)
    skip = {i for i in skip if not events[i].all_dice}  # a folded line never takes a die with it
    lines: list[str] = []
    for i, e in enumerate(events):
        if i in skip:
            continue
        if i in passing and isinstance(e, TurnEnded):
            nxt = passing[i]
            lines.append(
                f"⏹️ {who(names, e.who)}'s turn ends → Round {nxt.round}: {who(names, nxt.who)}'s turn"
            )
            continue
        lines.extend(event_lines(e, names))
    return lines
