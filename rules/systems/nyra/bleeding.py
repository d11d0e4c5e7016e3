"""Bleeding (RULES.md §1 "Location health": a serious wound bleeds 1 per turn, a critical one 2 more, 3 in
all; bleeding is applied at the start of the bleeding combatant's turn).

Decided readings where RULES.md is silent: the blood is lost from the bleeding location itself (Nyra has no
other health pool), so an untended wound worsens; a limb past critical (mangled or severed) keeps bleeding 3;
each bleeding location bleeds on its own, in the order of the location table.
"""

from __future__ import annotations

from rules.systems.nyra.locations import WoundState

BLEED_PER_TURN: dict[WoundState, int] = {
    WoundState.UNHURT: 0,
    WoundState.SLIGHT: 0,
    WoundState.SERIOUS: 1,
    WoundState.CRITICAL: 3,
    WoundState.MANGLED: 3,
    WoundState.SEVERED: 3,
    WoundState.FATAL: 0,
}


def bleed_rate(state: WoundState) -> int:
    """How much a location in this state bleeds at the start of each of its owner's turns."""
    return BLEED_PER_TURN[state]
