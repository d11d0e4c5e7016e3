"""The seed's weapon and armour tables (seed "Damage by Weapon", "Protection by Armour"; RULES.md §2).

``data/kaernest/weapons.toml`` keeps each cell as the seed wrote it: ``"10/8"`` is the one-handed /
two-handed pair, a single value applies to every grip the weapon allows, ``"--"`` is N/A. This module turns
the rows into validated frozen objects; a bad row raises ``ValidationError`` naming the file, the row and
the field, so a broken table fails loudly at load time instead of mid-fight.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from typing import Literal

from rules.errors import FieldProblem, InvalidInput, NotFound, ValidationError

DamageType = Literal["bludgeon", "cut", "pierce", "slash"]
DAMAGE_TYPES: tuple[DamageType, ...] = ("bludgeon", "cut", "pierce", "slash")
# The seed's column headers and common words for them, all accepted on input.
_TYPE_ALIASES = {
    "bludgeon": "bludgeon",
    "blunt": "bludgeon",
    "cut": "cut",
    "chop": "cut",
    "cut/chop": "cut",
    "pierce": "pierce",
    "slash": "slash",
}
Grip = Literal[1, 2]
NA = "--"


def damage_type(text: str) -> DamageType:
    key = (text or "").strip().lower()
    if key not in _TYPE_ALIASES:
        raise InvalidInput(f"`{text}` is not a damage type. Use one of: {', '.join(DAMAGE_TYPES)}.")
    return _TYPE_ALIASES[key]  # type: ignore[return-value]


def grip_of(text: str | int) -> Grip:
    """``1``, ``2``, ``1h``, ``2h`` → the number of hands."""
    key = str(text).strip().lower().removesuffix("h")
    if key in ("1", "one"):
        return 1
    if key in ("2", "two"):
        return 2
    raise InvalidInput(f"`{text}` is not a grip. Use `1h` or `2h`.")


@dataclass(frozen=True, slots=True)
class Weapon:
    """One weapon row. ``speeds`` and each damage are ``(grip, value)`` pairs for the grips it allows."""

    name: str
    grips: tuple[Grip, ...]
    speeds: tuple[tuple[Grip, int], ...]
    damages: tuple[tuple[DamageType, tuple[tuple[Grip, int], ...]], ...]
    skill: str
    note: str = ""
    # RULES.md §2: the Muscle bonus cannot exceed the weapon's damage; §4: unarmed attacks have no cap.
    muscle_cap: bool = True

    def default_grip(self) -> Grip:
        return self.grips[0]

    def check_grip(self, grip: Grip) -> None:
        if grip not in self.grips:
            hands = " or ".join(f"{g}h" for g in self.grips)
            raise InvalidInput(f"The {self.name} is used {hands}, not {grip}h.")

    def speed(self, grip: Grip) -> int:
        self.check_grip(grip)
        return dict(self.speeds)[grip]

    def damage_types(self) -> tuple[DamageType, ...]:
        return tuple(kind for kind, _ in self.damages)

    def damage(self, kind: DamageType, grip: Grip) -> int:
        """The table's damage for this type and grip; InvalidInput for a ``--`` cell."""
        self.check_grip(grip)
        for name, pairs in self.damages:
            if name == kind:
                return dict(pairs)[grip]
        allowed = ", ".join(self.damage_types())
        raise InvalidInput(f"The {self.name} does no {kind} damage (the table says --). It does: {allowed}.")


@dataclass(frozen=True, slots=True)
class Armour:
    """One armour row; ``arcane`` adds to defense against arcane attacks instead of reducing damage."""

    name: str
    reflex_penalty: int
    physical: int
    energy: int
    arcane: int
    weight: str
    weight_lbs: int
    notes: str = ""


def _split(cell: object) -> list[int] | None:
    """``"10/8"`` → [10, 8]; ``"6"`` → [6]; ``"--"`` → None; anything else raises ValueError."""
    if not isinstance(cell, str):
        raise ValueError('write the seed\'s cell as text, like "10/8", "6" or "--"')
    if cell.strip() == NA:
        return None
    parts = cell.split("/")
    if len(parts) > 2 or not all(p.strip().isdecimal() for p in parts):
        raise ValueError(f'{cell!r} is not a number, a 1h/2h pair like "10/8", or "--"')
    return [int(p) for p in parts]


def _per_grip(values: list[int], grips: tuple[Grip, ...]) -> tuple[tuple[Grip, int], ...]:
    if len(values) == 1:
        return tuple((g, values[0]) for g in grips)
    if len(values) != len(grips):
        raise ValueError(f'a pair needs a weapon used with both grips (handed "1/2"), not {len(grips)}')
    return tuple(zip(grips, values, strict=True))


def _cell(pairs: tuple[tuple[Grip, int], ...]) -> str:
    values = [str(v) for _, v in pairs]
    return values[0] if len(set(values)) == 1 else "/".join(values)


def weapon_to_row(weapon: Weapon) -> dict:
    """A weapon as the table (and a sheet's custom weapons) writes it; ``weapon_row`` reads it back."""
    damages = dict(weapon.damages)
    row = {
        "name": weapon.name,
        "handed": "/".join(str(g) for g in weapon.grips),
        "speed": _cell(weapon.speeds),
        **{kind: (_cell(damages[kind]) if kind in damages else NA) for kind in DAMAGE_TYPES},
        "skill": weapon.skill,
    }
    if weapon.note:
        row["note"] = weapon.note
    return row


def weapon_row(row: object, where: str, problems: list[FieldProblem]) -> Weapon | None:
    """A sheet's custom weapon in the table's row format; a damage type left out is ``--``. Problems are
    noted under ``where``."""
    if isinstance(row, dict):
        row = {**{kind: NA for kind in DAMAGE_TYPES}, **row}
    return _weapon_row(row, where, problems)


def _weapon_row(row: object, where: str, problems: list[FieldProblem]) -> Weapon | None:
    if not isinstance(row, dict):
        problems.append(FieldProblem(where, "a row must be a table of fields"))
        return None
    start = len(problems)
    for key in sorted(set(row) - {"name", "handed", "speed", *DAMAGE_TYPES, "skill", "note"}):
        problems.append(FieldProblem(f"{where}.{key}", "is not a weapon field"))
    name = row.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(FieldProblem(f"{where}.name", "missing or empty"))
    grips: tuple[Grip, ...] = ()
    try:
        hands = _split(row.get("handed"))
        if not hands or any(h not in (1, 2) for h in hands) or len(set(hands)) != len(hands):
            raise ValueError('must be "1", "2" or "1/2"')
        grips = tuple(hands)  # type: ignore[assignment]
    except ValueError as err:
        problems.append(FieldProblem(f"{where}.handed", str(err)))
    speeds: tuple[tuple[Grip, int], ...] = ()
    if grips:
        try:
            raw = _split(row.get("speed"))
            if raw is None or any(v < 1 for v in raw):
                raise ValueError("a weapon needs a speed of at least 1")
            speeds = _per_grip(raw, grips)
        except ValueError as err:
            problems.append(FieldProblem(f"{where}.speed", str(err)))
    damages = []
    for kind in DAMAGE_TYPES:
        try:
            raw = _split(row.get(kind))
            if raw is not None and grips:
                damages.append((kind, _per_grip(raw, grips)))
        except ValueError as err:
            problems.append(FieldProblem(f"{where}.{kind}", str(err)))
    if grips and not damages and len(problems) == start:
        problems.append(FieldProblem(f"{where}", "no damage type at all (every cell is --)"))
    skill = row.get("skill")
    if not isinstance(skill, str) or not skill.strip():
        problems.append(FieldProblem(f"{where}.skill", "missing: the weapon skill its attacks use"))
    note = row.get("note", "")
    if not isinstance(note, str):
        problems.append(FieldProblem(f"{where}.note", "must be text"))
    if len(problems) > start:
        return None
    return Weapon(name.strip(), grips, speeds, tuple(damages), skill.strip(), note)


def _int_field(row: dict, key: str, where: str, problems: list[FieldProblem], low: int = 0) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        problems.append(FieldProblem(f"{where}.{key}", f"must be a whole number ≥ {low}, not {value!r}"))
        return 0
    return value


def _armour_row(row: object, where: str, problems: list[FieldProblem]) -> Armour | None:
    if not isinstance(row, dict):
        problems.append(FieldProblem(where, "a row must be a table of fields"))
        return None
    start = len(problems)
    name = row.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(FieldProblem(f"{where}.name", "missing or empty"))
    numbers = {
        k: _int_field(row, k, where, problems) for k in ("reflex_penalty", "physical", "energy", "arcane")
    }
    weight = row.get("weight")
    lbs = 0
    if not isinstance(weight, str) or not weight.removesuffix("lbs").strip().isdecimal():
        problems.append(FieldProblem(f"{where}.weight", f'write it like "50lbs", not {weight!r}'))
    else:
        lbs = int(weight.removesuffix("lbs"))
    notes = row.get("notes", "")
    if not isinstance(notes, str):
        problems.append(FieldProblem(f"{where}.notes", "must be text"))
    if len(problems) > start:
        return None
    return Armour(name.strip(), weight=weight, weight_lbs=lbs, notes=notes, **numbers)


def _rows(raw: dict, key: str, source: str) -> list:
    rows = raw.get(key)
    if not isinstance(rows, list) or not rows:
        raise ValidationError(FieldProblem(key, f"no [[{key}]] rows"), source)
    return rows


def _unique(items: list, key: str, source: str) -> None:
    seen: dict[str, int] = {}
    problems = []
    for i, item in enumerate(items):
        low = item.name.lower()
        if low in seen:
            problems.append(FieldProblem(f"{key}[{i}].name", f"{item.name!r} repeats row {seen[low]}"))
        seen[low] = i
    if problems:
        raise ValidationError(problems, source)


def parse_weapons(raw: dict, source: str = "data/kaernest/weapons.toml") -> tuple[Weapon, ...]:
    """Validated weapons from a parsed TOML document; every bad field is listed (``weapon[3].speed``)."""
    problems: list[FieldProblem] = []
    weapons = [
        _weapon_row(row, f"weapon[{i}]", problems) for i, row in enumerate(_rows(raw, "weapon", source))
    ]
    if problems:
        raise ValidationError(problems, source)
    result = [w for w in weapons if w is not None]
    _unique(result, "weapon", source)
    return tuple(result)


def parse_armour(raw: dict, source: str = "data/kaernest/armour.toml") -> tuple[Armour, ...]:
    """Validated armour from a parsed TOML document; every bad field is listed (``armour[2].weight``)."""
    problems: list[FieldProblem] = []
    rows = [_armour_row(row, f"armour[{i}]", problems) for i, row in enumerate(_rows(raw, "armour", source))]
    if problems:
        raise ValidationError(problems, source)
    result = [a for a in rows if a is not None]
    _unique(result, "armour", source)
    return tuple(result)


def read_toml(name: str) -> dict:
    """A TOML file of ``data/kaernest`` (shipped as package data)."""
    return tomllib.loads((files("data") / "kaernest" / name).read_text(encoding="utf-8"))


@functools.cache
def weapons() -> tuple[Weapon, ...]:
    return parse_weapons(read_toml("weapons.toml"))


@functools.cache
def armours() -> tuple[Armour, ...]:
    return parse_armour(read_toml("armour.toml"))


def weapon_names() -> tuple[str, ...]:
    return tuple(w.name for w in weapons())


def armour_names() -> tuple[str, ...]:
    return tuple(a.name for a in armours())


def _find(items: tuple, name: str, what: str):
    key = (name or "").strip().lower()
    for item in items:
        if item.name.lower() == key:
            return item
    raise NotFound(
        f"There is no {what} called `{name}` in the Kaernest table. Try: {', '.join(i.name for i in items)}."
    )


def weapon(name: str) -> Weapon:
    """The table's weapon called ``name`` (case-insensitive)."""
    return _find(weapons(), name, "weapon")


def armour(name: str) -> Armour:
    """The table's armour called ``name`` (case-insensitive)."""
    return _find(armours(), name, "armour")
