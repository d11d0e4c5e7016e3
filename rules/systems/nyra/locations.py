"""Hit locations and location health (seed: the d6 location chart and "Location column beside Health";
RULES.md §1 "Locations" and "Location health").

Humanoids roll 1d6: 1 Head, 2 Chest, 3 Left Arm, 4 Right Arm, 5 Left Leg, 6 Right Leg (the table wins over
the Claymore passage that calls a 4 the left arm). Other creatures carry their own die and table (data/).
Each location has a kind (head, chest, limb) that picks its health formula:

| kind  | slight        | serious        | critical           |
| head  | CON           | 2·CON          | serious + CON mod  |
| chest | 2·CON + STR   | 4·CON + STR    | serious + CON mod  |
| limb  | CON + STR     | 2·(CON + STR)  | serious + CON mod  |

A sheet may override any value; an overridden serious also moves the derived critical (critical is defined
from serious). Damage accumulates; the wound state follows from damage against these thresholds:
0 unhurt; up to slight: slight; past slight: serious; past serious: critical; past critical: a limb is
mangled while no more than CON mod past critical, severed beyond; a head or chest past critical is fatal.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from rules.errors import NotFound
from rules.stored_once import made_once
from rules.systems.nyra.modifiers import stat_modifier

LocationKind = Literal["head", "chest", "limb"]
LOCATION_KINDS: tuple[str, ...] = ("head", "chest", "limb")
HEALTH_LEVELS: tuple[str, ...] = ("slight", "serious", "critical")


@dataclass(frozen=True, slots=True)
class LocationRow:
    """Faces ``low``..``high`` of the location die hit ``location``."""

    low: int
    high: int
    location: str
    kind: LocationKind


def _key(name: str | None) -> str:
    return " ".join((name or "").replace("_", " ").split()).lower()


@dataclass(frozen=True, slots=True)
class LocationTable:
    """A creature's location die and chart."""

    name: str
    die: int
    rows: tuple[LocationRow, ...]
    # each location's row by its spelling here and by its plain lowercase key, made on first use: a
    # tracker looks every location of every combatant up several times (the table is frozen)
    _by_name: dict[str, LocationRow] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def locations(self) -> tuple[str, ...]:
        return tuple(row.location for row in self.rows)

    def _index(self) -> dict[str, LocationRow]:
        def index() -> dict[str, LocationRow]:
            return {_key(row.location): row for row in self.rows} | {row.location: row for row in self.rows}

        return made_once(self, "_by_name", index)

    def location_for(self, roll: int) -> str:
        for row in self.rows:
            if row.low <= roll <= row.high:
                return row.location
        raise NotFound(f"The {self.name} location table has no entry for a roll of {roll}.")

    def kind_of(self, location: str) -> LocationKind:
        return self._found(location).kind

    def find(self, name: str) -> str:
        """The table's spelling of a location named case-insensitively (``left arm`` → ``Left Arm``)."""
        return self._found(name).location

    def _found(self, name: str) -> LocationRow:
        index = self._index()
        row = index.get(name) or index.get(_key(name))
        if row is None:
            raise NotFound(f"`{name}` is not a location here. Locations: {', '.join(self.locations)}.")
        return row

    def faces_of(self, location: str) -> tuple[int, int]:
        row = self._found(location)
        return (row.low, row.high)


@dataclass(frozen=True, slots=True)
class LocationHealth:
    """The three thresholds of one location."""

    slight: int
    serious: int
    critical: int

    def to_dict(self) -> dict:
        return {"slight": self.slight, "serious": self.serious, "critical": self.critical}


def formula_health(kind: LocationKind, con: int, strength: int) -> LocationHealth:
    """The seed's table for a location kind (no overrides)."""
    con_mod = stat_modifier(con)
    if kind == "head":
        slight, serious = con, 2 * con
    elif kind == "chest":
        slight, serious = 2 * con + strength, 4 * con + strength
    else:
        slight, serious = con + strength, 2 * (con + strength)
    return LocationHealth(slight, serious, serious + con_mod)


def location_health(
    kind: LocationKind, con: int, strength: int, override: Mapping[str, int] | None = None
) -> LocationHealth:
    """Thresholds with a sheet's overrides; an explicit value beats the formula (RULES.md §0)."""
    override = override or {}
    base = formula_health(kind, con, strength)
    slight = override.get("slight", base.slight)
    serious = override.get("serious", base.serious)
    critical = override.get("critical", serious + stat_modifier(con))
    return LocationHealth(slight, serious, critical)


class WoundState(enum.Enum):
    UNHURT = "unhurt"
    SLIGHT = "slight"
    SERIOUS = "serious"
    CRITICAL = "critical"
    MANGLED = "mangled"
    SEVERED = "severed"
    FATAL = "fatal"


def wound_state(damage: int, health: LocationHealth, kind: LocationKind, con: int) -> WoundState:
    """The state of a location with ``damage`` accumulated on it."""
    if damage <= 0:
        return WoundState.UNHURT
    if damage <= health.slight:
        return WoundState.SLIGHT
    if damage <= health.serious:
        return WoundState.SERIOUS
    if damage <= health.critical:
        return WoundState.CRITICAL
    if kind in ("head", "chest"):
        return WoundState.FATAL
    # A limb stays restorable by a doctor while no more than CON mod past critical.
    if damage <= health.critical + stat_modifier(con):
        return WoundState.MANGLED
    return WoundState.SEVERED
