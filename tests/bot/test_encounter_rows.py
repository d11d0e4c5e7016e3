"""A row's values by its table's columns, for plain rows and ORM models alike."""

from __future__ import annotations

from bot.encounter_rows import COMBATANTS, GRAPPLES, CombatantRow, GrappleRow, combatant, values_of
from bot.models import Combatant, Grapple


def test_values_of_reads_every_column_of_plain_rows_and_models() -> None:
    values = {
        "id": 4,
        "encounter_id": 2,
        "entry": 3,
        "name": "Wolf 1",
        "owner_id": None,
        "character_id": 9,
        "is_pc": False,
        "side": "wolves",
        "distance": 5,
        "initiative": 12,
        "hp": 7,
        "hp_max": 14,
        "damage": 1,
        "location_damage": {"head": 2},
        "conditions": ["prone"],
        "last_gasp_round": 3,
        "stored_healing": 6,
    }
    assert list(values) == [c.name for c in COMBATANTS.columns]
    assert values_of(combatant(values)) == values
    assert values_of(Combatant(**values)) == values
    grapple = {"id": 1, "encounter_id": 2, "a_id": 4, "b_id": 5, "counter": 3, "pinned_id": 5}
    assert list(grapple) == [c.name for c in GRAPPLES.columns]
    assert values_of(GrappleRow(**grapple)) == values_of(Grapple(**grapple)) == grapple
    assert list(values_of(CombatantRow(id=1, encounter_id=1, entry=1, name="A"))) == list(values)


def test_a_channel_written_distrusts_its_read_even_once_its_mark_is_dropped() -> None:
    """``ReadCache.written`` marks a channel; the marks are kept as long as the reads, and a read that began
    before a mark dropped for room is distrusted as if its own channel were marked."""
    from bot.encounter_rows import ChangeRead, ReadCache
    from bot.models import Encounter

    def where(channel: int) -> tuple:
        return (channel, None, ("running",))

    cache = ReadCache(size=3)
    for channel in (1, 2, 3):
        encounter = Encounter(
            id=channel, guild_id=1, channel_id=channel, system="d6", name="Fight", started_by=7
        )
        encounter.status, encounter.version = "running", 0
        cache.keep(ChangeRead(encounter=encounter, own=None, parent=None, instances={}), ())
        cache.confirm(where(channel), 0, channel, 0, cache.stamp())
    assert [cache.current(where(c), 0) is not None for c in (1, 2, 3)] == [True, True, True]
    cache.written(2)
    assert [cache.current(where(c), 0) is not None for c in (1, 2, 3)] == [True, False, True]
    cache.confirm(where(2), 0, 2, 0, cache.stamp())  # read again after the mark: trusted
    assert cache.current(where(2), 0) is not None
    for channel in (4, 5, 6):
        cache.written(channel)  # the mark of 2 is dropped: a read that began before it is distrusted
    assert [cache.current(where(c), 0) is not None for c in (1, 2, 3)] == [False, True, False]
