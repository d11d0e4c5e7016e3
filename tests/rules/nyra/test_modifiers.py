"""The stat modifier table at every boundary (RULES.md §1; the seed: STR 7 → +3)."""

import pytest

from rules.errors import InvalidInput
from rules.systems.nyra.modifiers import stat_modifier


@pytest.mark.parametrize(
    ("value", "modifier"),
    [(1, 1), (4, 1), (5, 2), (6, 2), (7, 3), (8, 4), (9, 4), (10, 5), (11, 6), (12, 7), (15, 10)],
)
def test_modifier_table(value, modifier):
    assert stat_modifier(value) == modifier


@pytest.mark.parametrize("bad", [0, -3, True, 2.5])
def test_modifier_needs_a_positive_whole_number(bad):
    with pytest.raises(InvalidInput):
        stat_modifier(bad)
