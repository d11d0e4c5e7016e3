"""Event renderers, keyed by the event class itself.

A renderer turns one typed event (a ``rules.events.Event`` subclass instance) and the naming context (combatant
id → name) into its line, or its lines::

    from cogs.text.events.registry import Names, renders
    from rules.systems.nyra.events import StrikeResolved

    @renders(StrikeResolved)
    def strike_resolved(e: StrikeResolved, names: Names) -> str:
        return f"➡️ {who(names, e.attacker)} {'hits' if e.result == 'hit' else 'misses'} …"

- ``renders(*classes)`` registers the decorated function for exactly those classes (not their subclasses: a
  new event class needs its own sentence). Registering a class twice raises, so two modules cannot silently
  disagree. The key is the class object, so a renamed or removed event class fails when the renderer module
  is imported, not at play time.
- ``renderer_for(cls)`` is the registered function or ``None``; ``registered()`` every registered class.
- ``event_lines(event, names)`` / ``lines_of(events, names)`` render through the registry.
- Production: an event without a renderer, or a renderer that raises, is logged at ERROR (with the
  traceback) and shown as a plain sentence naming what happened. ``set_strict(True)`` (the test suite's
  ``conftest`` turns it on) raises ``RenderError`` instead, so such a gap fails the test that meets it.

A renderer returns ``str`` (one line) or a sequence of lines; an empty result shows nothing for the event.
A ``Heading`` line opens a new part of the message (see ``cogs.text.messages``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from rules.events import Event

log = logging.getLogger(__name__)

Names = Mapping[str, str]
Rendered = str | Sequence[str]
Renderer = Callable[[Any, Names], Rendered]
R = TypeVar("R", bound=Callable[..., Rendered])

_RENDERERS: dict[type[Event], Renderer] = {}
_ARRIVALS: set[type[Event]] = set()
_strict = False


def arrivals(*classes: type[Event]) -> None:
    """Declare ``classes`` as a combatant's arrival: a join's reply already says who joined, on which side,
    so there their lines are left out (``/encounter log`` still shows them)."""
    _ARRIVALS.update(classes)


def is_arrival(event: Event) -> bool:
    return type(event) in _ARRIVALS


class Heading(str):
    """A line that opens a new part of a message (the clock running on to where other combatants' actions
    land): shown on its own, and the lines after it read under it, not under the command's title."""


class RenderError(Exception):
    """Strict mode: an event has no renderer, or its renderer raised (see ``set_strict``)."""


def renders(*classes: type[Event]) -> Callable[[R], R]:
    """Register the decorated function as the renderer of each of ``classes``."""
    if not classes:
        raise TypeError("renders() needs at least one event class")

    def register(fn: R) -> R:
        for cls in classes:
            if not (isinstance(cls, type) and issubclass(cls, Event)):
                raise TypeError(f"{cls!r} is not an event class")
            known = _RENDERERS.get(cls)
            if known is not None and known is not fn:
                raise ValueError(
                    f"{cls.__module__}.{cls.__qualname__} already has a renderer ({known.__name__})"
                )
            _RENDERERS[cls] = fn
        return fn

    return register


def unregister(*classes: type[Event]) -> None:
    """Forget the renderers of ``classes`` (for tests that register a system of their own)."""
    for cls in classes:
        _RENDERERS.pop(cls, None)


def renderer_for(cls: type[Event]) -> Renderer | None:
    return _RENDERERS.get(cls)


def registered() -> frozenset[type[Event]]:
    return frozenset(_RENDERERS)


def set_strict(on: bool) -> bool:
    """Strict (tests): a missing or failing renderer raises ``RenderError``. Returns the previous setting."""
    global _strict
    before, _strict = _strict, on
    return before


def is_strict() -> bool:
    return _strict


def _words(kind: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", kind).lower()


def plain_sentence(event: Event) -> str:
    """What a player sees when an event cannot be rendered: what happened, and where the details are."""
    return f"📎 {_words(event.kind).capitalize()} (the details are in `/encounter log`)."


def event_lines(event: Event, names: Names) -> list[str]:
    """The line(s) of one event, through its class's renderer (see the module doc for a missing one)."""
    render = _RENDERERS.get(type(event))
    if render is None:
        if _strict:
            raise RenderError(f"no renderer for {type(event).__module__}.{type(event).__qualname__}")
        log.error("no renderer for the event %s", type(event).__qualname__, stack_info=True)
        return [plain_sentence(event)]
    try:
        out = render(event, names)
        lines = [out] if isinstance(out, str) else list(out)
        if not all(isinstance(line, str) for line in lines):
            raise TypeError(f"{render.__name__} returned {out!r}, not text")
    except Exception as err:
        if _strict:
            raise RenderError(f"the renderer of {type(event).__qualname__} failed: {err!r}") from err
        log.error("the renderer of the event %s failed", type(event).__qualname__, exc_info=True)
        return [plain_sentence(event)]
    # one line is one line: a stray line break in a field must not split it (messages split between lines)
    return [type(line)(" ".join(line.splitlines())) for line in lines if line]


def lines_of(events: Iterable[Event], names: Names) -> list[str]:
    return [line for event in events for line in event_lines(event, names)]
