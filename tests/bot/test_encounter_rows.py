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
