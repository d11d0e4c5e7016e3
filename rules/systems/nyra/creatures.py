"""Creature templates (data/nyra/creatures.toml) for ``/encounter add``: Nyra sheets whose weapons and armour
may name rows of the other tables. Loading validates every row; problems name the file, row and field."""

from __future__ import annotations

import functools

from rules.errors import NotFound, ValidationError
from rules.systems.nyra.sheet import NyraSheet, validate_sheet
from rules.systems.nyra.tables import read_toml
from rules.systems.nyra.validation import Problems


def parse_creatures(raw: dict, file: str = "creatures.toml") -> dict[str, NyraSheet]:
    problems = Problems()
    out: dict[str, NyraSheet] = {}
    rows = raw.get("creature", [])
    if not isinstance(rows, list):
        problems.add(f"{file}: creature", "needs a list of rows ([[creature]])")
        rows = []
    for i, row in enumerate(rows):
        try:
            sheet = validate_sheet(row, f"{file}: creature[{i}]")
        except ValidationError as err:
            for p in err.problems:
                problems.add(
                    f"{file}: creature[{i}].{p.path}" if p.path else f"{file}: creature[{i}]", p.problem
                )
            continue
        if sheet.name.lower() in {k.lower() for k in out}:
            problems.add(f"{file}: creature[{i}].name", f"repeats the name `{sheet.name}`")
        out[sheet.name] = sheet
    if problems:
        raise ValidationError(problems.items, file)
    return out


@functools.cache
def load_creatures() -> dict[str, NyraSheet]:
    return parse_creatures(read_toml("creatures.toml"))


def creature_names() -> tuple[str, ...]:
    return tuple(load_creatures())


def creature(name: str) -> NyraSheet:
    """A template by name (case-insensitive)."""
    key = (name or "").strip().lower()
    for k, sheet in load_creatures().items():
        if k.lower() == key:
            return sheet
    raise NotFound(f"There is no creature template `{name}`. Templates: {', '.join(load_creatures())}.")
