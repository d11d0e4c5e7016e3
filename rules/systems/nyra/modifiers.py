"""The stat modifier table (RULES.md §1 "Stat modifier"; the seed: "A character with 7 STR would have a
modifier of 3").

1–4 → +1, 5–6 → +2, 7 → +3, 8–9 → +4, 10 → +5, and +1 for each point above 10.
"""

from __future__ import annotations

from rules.errors import InvalidInput


def stat_modifier(value: int) -> int:
    """The modifier of a stat value (1 or more)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidInput(f"A stat must be a whole number of 1 or more to have a modifier, not {value!r}.")
    if value <= 4:
        return 1
    if value <= 6:
        return 2
    if value == 7:
        return 3
    if value <= 9:
        return 4
    return 5 + (value - 10)
