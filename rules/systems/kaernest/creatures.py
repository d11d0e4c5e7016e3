"""Creature and NPC templates for ``/encounter add`` (``data/kaernest/creatures.toml``; the bot's own
templates, built from the seed's tables). Each row is a sheet; a bad row raises ValidationError naming the
file, the row and the field.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from rules.errors import FieldProblem, InvalidInput, NotFound, ValidationError
from rules.systems.kaernest import sheet as sheets
from rules.systems.kaernest import tables
from rules.systems.kaernest.sheet import Sheet
from rules.systems.kaernest.state import POSTURES, Posture

SOURCE = "data/kaernest/creatures.toml"


@dataclass(frozen=True, slots=True)
class CreatureTemplate:
    sheet: Sheet
    posture: Posture = "passive"

    @property
    def name(self) -> str:
        return self.sheet.name


def parse_creatures(raw: dict, source: str = SOURCE) -> tuple[CreatureTemplate, ...]:
    rows = raw.get("creature")
    if not isinstance(rows, list) or not rows:
        raise ValidationError(FieldProblem("creature", "no [[creature]] rows"), source)
    problems: list[FieldProblem] = []
    result = []
    for i, row in enumerate(rows):
        where = f"creature[{i}]"
        if not isinstance(row, dict):
            problems.append(FieldProblem(where, "a row must be a table of fields"))
            continue
        row = dict(row)
        posture = row.pop("posture", "passive")
        if posture not in POSTURES:
            problems.append(FieldProblem(f"{where}.posture", f"one of {', '.join(POSTURES)}"))
        try:
            sheet = sheets.from_dict({**row, "npc": True})
        except ValidationError as err:
            problems.extend(FieldProblem(f"{where}.{p.path}", p.problem) for p in err.problems)
            continue
        result.append(CreatureTemplate(sheet, posture))
    if problems:
        raise ValidationError(problems, source)
    return tuple(result)


@functools.cache
def creatures() -> tuple[CreatureTemplate, ...]:
    return parse_creatures(tables.read_toml("creatures.toml"))


def creature_names() -> tuple[str, ...]:
    return tuple(c.name for c in creatures())


def template(name: str) -> CreatureTemplate:
    key = (name or "").strip().lower()
    for item in creatures():
        if item.name.lower() == key:
            return item
    raise NotFound(
        f"No Kaernest creature template `{name}`. Templates: {', '.join(c.name for c in creatures())}."
    )


def from_template(name: str, new_name: str | None = None) -> tuple[Sheet, Posture]:
    """A fresh NPC sheet from a template (``count`` copies get their numbered names from the caller)."""
    found = template(name)
    sheet = found.sheet
    if new_name is not None:
        if not new_name.strip() or len(new_name) > sheets.MAX_NAME:
            raise InvalidInput(f"A name of 1 to {sheets.MAX_NAME} characters, please.")
        sheet = dataclasses.replace(sheet, name=new_name.strip())
    return sheet, found.posture
