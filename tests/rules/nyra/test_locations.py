"""Location tables and location health (RULES.md §1 "Locations", "Location health")."""

import pytest

from rules.errors import NotFound
from rules.systems.nyra.locations import (
    LocationHealth,
    WoundState,
    formula_health,
    location_health,
    wound_state,
)
from rules.systems.nyra.tables import load_tables

from .helpers import sheet


def test_humanoid_table_1_to_6():
    table = load_tables().location_table("humanoid")
    assert table.die == 6
    assert [table.location_for(i) for i in range(1, 7)] == [
        "Head",
        "Chest",
        "Left Arm",
        "Right Arm",
        "Left Leg",
        "Right Leg",
    ]


def test_con_6_str_6_table():
    assert formula_health("head", 6, 6) == LocationHealth(6, 12, 14)
    assert formula_health("chest", 6, 6) == LocationHealth(18, 30, 32)
    assert formula_health("limb", 6, 6) == LocationHealth(12, 24, 26)  # the seed's "25" matches no formula


def test_sheet_overrides_beat_the_formula_and_move_critical():
    assert location_health("limb", 6, 6, {"serious": 25}) == LocationHealth(12, 25, 27)
    assert location_health("limb", 6, 6, {"critical": 30}) == LocationHealth(12, 24, 30)
    s = sheet(CON=6, STR=6, location_health={"left arm": {"serious": 25}})
    assert s.health("Left Arm").serious == 25 and s.health("Right Arm").serious == 24


@pytest.mark.parametrize(
    ("damage", "state"),
    [
        (0, "unhurt"),
        (1, "slight"),
        (12, "slight"),
        (13, "serious"),
        (24, "serious"),
        (25, "critical"),
        (26, "critical"),
        (27, "mangled"),
        (28, "mangled"),
        (29, "severed"),
    ],
)
def test_limb_states_con_6(damage, state):
    # CON 6 → CON mod 2: mangled while at most 2 past critical 26.
    assert wound_state(damage, formula_health("limb", 6, 6), "limb", 6).value == state


def test_head_or_chest_past_critical_is_fatal():
    assert wound_state(15, formula_health("head", 6, 6), "head", 6) is WoundState.FATAL
    assert wound_state(14, formula_health("head", 6, 6), "head", 6) is WoundState.CRITICAL
    assert wound_state(33, formula_health("chest", 6, 6), "chest", 6) is WoundState.FATAL


def test_creature_tables_come_from_data():
    wolf = load_tables().location_table("quadruped")
    assert wolf.die == 10 and wolf.location_for(4) == "Body" and wolf.kind_of("body") == "chest"
    with pytest.raises(NotFound, match="Tail"):
        wolf.find("Left Arm")
