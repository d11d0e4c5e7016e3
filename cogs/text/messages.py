"""A change's events told as one message (or several): a title, one bullet per line, a ``Heading`` line (the
clock running on to other combatants' landings) opening its own part, each house rule named once, and
Discord's 2,000 characters kept by splitting between lines, never inside one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from cogs.text.common import MAX_MESSAGE
from cogs.text.events import Names, lines_of
from cogs.text.events.registry import Heading, is_arrival
from cogs.text.turn_fold import folded_lines
from rules.events import Event

MAX_MESSAGES = 4
HOUSE = re.compile(r" \*\(house rule: [^)]*\)\*")


def once_per_message(lines: Iterable[str]) -> list[str]:
    """Each house-rule reading shown where it first changed a result in this message, not on every line."""
    seen: set[str] = set()
    out: list[str] = []
    for line in lines:
        kind = type(line)

        def first(m: re.Match[str]) -> str:
            if m.group() in seen:
                return ""
            seen.add(m.group())
            return m.group()

        out.append(kind(HOUSE.sub(first, line)))
    return out


def story(events: Iterable[Event], names: Names, *, bullets: bool = True) -> list[str]:
    """The lines of a change, ready to join: bullets under the title, headings on their own; a D6 turn of
    one action and a turn passing folded (``cogs.text.turn_fold``)."""
    lines = once_per_message(folded_lines(list(events), names))
    return [line if isinstance(line, Heading) or not bullets else f"• {line}" for line in lines]


def _cut(line: str, limit: int) -> str:
    """A single line longer than a message: cut at a word boundary (never inside a number)."""
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0] + "…"


def split_messages(title: str, lines: Sequence[str], limit: int = MAX_MESSAGE) -> list[str]:
    """``title`` then ``lines`` in as few messages as fit (each ≤ ``limit``), split between lines only. At most
    ``MAX_MESSAGES`` messages; what is left after that is pointed to in ``/encounter log``."""
    messages: list[str] = []
    current = title
    for i, raw in enumerate(lines):
        line = _cut(raw, limit - 60)
        if not current or len(current) + 1 + len(line) <= limit:
            current = f"{current}\n{line}" if current else line
            continue
        messages.append(current)
        if len(messages) == MAX_MESSAGES - 1:
            left = len(lines) - i
            current = ""
            for rest in lines[i:]:
                piece = _cut(rest, limit - 60)
                if len(current) + len(piece) + 80 > limit:
                    current += f"\n… {left} more lines are in `/encounter log`."
                    break
                current = f"{current}\n{piece}" if current else piece
                left -= 1
            messages.append(current)
            return messages
        current = line
    if current:
        messages.append(current)
    return messages


def tell(
    title: str,
    events: Iterable[Event],
    names: Names,
    extra: Sequence[str] = (),
    *,
    arrivals_told: bool = False,
) -> list[str]:
    """The public messages of a change: ``title``, ``extra`` lines, then its events (without the arrivals'
    lines when ``title`` already tells them)."""
    if arrivals_told:
        events = [e for e in events if not is_arrival(e)]
    return split_messages(title, [*extra, *story(events, names)])


# Fields naming who an event happened to, and event kinds that are bookkeeping rather than news.
AFFECTED = ("target", "defender", "combatant", "who", "thrown", "pinned")
BOOKKEEPING = ("Turn", "Phase", "Initiative", "Order", "Sequence", "Clock", "Combatant", "Action", "Waited")


def happened_to(cid: str, events: Iterable[Event], names: Names, most: int = 3) -> list[str]:
    """The lines of what just happened to ``cid`` in a change (a landed attack, bleeding, a grapple
    change), for its turn announcement: the last ``most`` of them."""
    mine = [
        e
        for e in events
        if not e.kind.startswith(BOOKKEEPING)
        and any(str(getattr(e, f, "")) == cid for f in AFFECTED if hasattr(e, f))
    ]
    return [line for line in once_per_message(lines_of(mine, names))][-most:]
