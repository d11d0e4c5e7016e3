"""Duel: a fourth rule system that exists only in the test suite.

It proves the checklist for adding a system: a pure rules core (``duel``), its events in one module
(``events``), an adapter that satisfies ``rules.encounter.System`` (``adapter``), a sentence for each event
in the text layer (``text``, through ``cogs.text.events.registry.renders``), and ``register`` in
``rules.systems.registry`` before the bot starts. Nothing else in ``bot/`` or ``cogs/`` names it.

The rules: a sheet has a ``skill`` (1..10) and ``hp``. The fight runs in rounds, highest skill first (then
entry order). On its turn a combatant may ``/attack`` once: a d10 at or under its skill hits, and a hit
takes the house rule ``damage`` (default 3) from the target's HP. At 0 HP a combatant is out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rules.systems import registry
from tests.fourth_system import text
from tests.fourth_system.adapter import SYSTEM


@contextmanager
def registered() -> Iterator[None]:
    """The duel is a registered system inside the block, and is not afterwards."""
    registry.register(SYSTEM)
    text.register()
    try:
        yield
    finally:
        text.forget()
        registry.unregister(SYSTEM.name)


__all__ = ["SYSTEM", "registered"]
