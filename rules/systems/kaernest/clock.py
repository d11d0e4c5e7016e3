"""Kaernest time as an absolute tick (seed "Initiative / Order of Actions"; RULES.md §2 "Time").

A minute has 30 segments counted down 30 … 1. Internally the clock is one integer,
``tick = (minute − 1) × 30 + (30 − segment)``, so minute 1 segment 30 is tick 0 and time only grows.
"Segment − speed, and a result ≤ 0 moves into the next minute at result + 30" is then plain addition
(``tick + speed``): 17 − 9 → 8; 5 − 9 → 26 of the next minute; 5 − 5 → 30 of the next minute.
"""

from __future__ import annotations

SEGMENTS = 30
# An action always takes at least one segment, so the clock moves forward after every declaration
# (a speed cut to 0 by the defensive bonus would otherwise resolve before it was declared).
MIN_SPEED = 1


def tick_of(minute: int, segment: int) -> int:
    if minute < 1 or not 1 <= segment <= SEGMENTS:
        raise ValueError(f"no such time: minute {minute}, segment {segment}")
    return (minute - 1) * SEGMENTS + (SEGMENTS - segment)


def minute_of(tick: int) -> int:
    return tick // SEGMENTS + 1


def segment_of(tick: int) -> int:
    return SEGMENTS - tick % SEGMENTS


def lands_at(tick: int, speed: int) -> int:
    """The tick where an action declared at ``tick`` with ``speed`` resolves (segment − speed)."""
    return tick + max(MIN_SPEED, speed)


def first_tick(segment: int, now: int) -> int:
    """The first tick at or after ``now`` whose segment is ``segment`` (a new initiative's first turn)."""
    tick = tick_of(minute_of(now), segment)
    return tick if tick >= now else tick + SEGMENTS


def label(tick: int) -> str:
    return f"minute {minute_of(tick)}, segment {segment_of(tick)}"
