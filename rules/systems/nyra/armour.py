"""Armour (RULES.md §1 "Damage": armour on the struck location subtracts its value for that damage type,
never below 0; the seed's Claymore example "The enemy then factors in the damage to be deducted by his
armor").

A piece covers one or more locations with a value per damage type. Decided reading (RULES.md is silent):
pieces worn over the same location add up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rules.errors import ValidationError
from rules.systems.nyra.validation import Problems, join
from rules.systems.nyra.weapons import DamageType


@dataclass(frozen=True, slots=True)
class ArmourPiece:
    name: str
    locations: tuple[str, ...]
    protection: Mapping[DamageType, int]

    def value(self, damage_type: DamageType) -> int:
        return self.protection.get(damage_type, 0)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "locations": list(self.locations),
            **{t.value: self.protection.get(t, 0) for t in DamageType},
        }

    @classmethod
    def from_dict(cls, raw: dict) -> ArmourPiece:
        problems = Problems()
        piece = parse_armour(raw, "armour", problems)
        if problems or piece is None:
            raise ValidationError(problems.items, "The armour")
        return piece


def parse_armour(raw: object, path: str, problems: Problems) -> ArmourPiece | None:
    body = problems.mapping(raw, path)
    if body is None:
        return None
    before = len(problems)
    name = problems.text(body.get("name"), join(path, "name"))
    locations_raw = problems.sequence(body.get("locations"), join(path, "locations"))
    locations: list[str] = []
    for i, loc in enumerate(locations_raw or []):
        text = problems.text(loc, join(join(path, "locations"), i))
        if text is not None:
            locations.append(text)
    if locations_raw is not None and not locations_raw:
        problems.add(join(path, "locations"), "needs at least one location")
    protection: dict[DamageType, int] = {}
    for t in DamageType:
        value = problems.integer(body.get(t.value, 0), join(path, t.value), minimum=0, maximum=100)
        if value is not None:
            protection[t] = value
    for key in sorted(set(body) - {"name", "locations", *(t.value for t in DamageType)}):
        problems.add(join(path, key), "is not an armour field (name, locations, P, S, C, B)")
    if len(problems) > before:
        return None
    return ArmourPiece(name, tuple(locations), protection)  # type: ignore[arg-type]


def armour_at(
    pieces: Iterable[ArmourPiece], location: str, damage_type: DamageType
) -> tuple[tuple[str, int], ...]:
    """Each piece protecting ``location`` against ``damage_type`` with its value (the sum is the armour)."""
    key = location.lower()
    return tuple(
        (piece.name, piece.value(damage_type))
        for piece in pieces
        if any(loc.lower() == key for loc in piece.locations)
    )
