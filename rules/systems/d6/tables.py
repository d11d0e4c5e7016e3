"""The shipped D6 tables in ``data/d6/`` (weapons, armour and shields, creatures), validated into frozen objects.

Read with stdlib ``tomllib`` through ``importlib.resources`` (so installs carry them). Any invalid row
raises ``ValidationError`` whose problems name the file, the row and the field
(``weapons.toml weapon[3].damage: ...``). The seed's short sword (1D+2) and padded leather (AR 4) are there.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

from rules.errors import FieldProblem, NotFound, ValidationError
from rules.systems.d6.sheet import (
    ARMOUR_CLASSES,
    ATTRIBUTES,
    DEFAULT_SKILL_ATTRIBUTE,
    Sheet,
    Weapon,
    sheet_from_dict,
    weapon_from_dict,
)


@dataclass(frozen=True, slots=True)
class Armour:
    name: str
    ar: int
    armour_class: str


@dataclass(frozen=True, slots=True)
class Shield:
    name: str
    av: int


@dataclass(frozen=True, slots=True)
class Creature:
    """An NPC template: ``sheet`` is ready to enter an encounter (``is_pc`` False)."""

    name: str
    sheet: Sheet


def _read(name: str) -> str:
    return (files("data") / "d6" / name).read_text(encoding="utf-8")


def _toml(text: str, file: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValidationError(FieldProblem(file, f"is not valid TOML: {err}"), file) from None


def _rows(data: Mapping[str, Any], key: str, file: str) -> list[Any]:
    rows = data.get(key, [])
    if not isinstance(rows, list):
        raise ValidationError(FieldProblem(f"{file} {key}", "must be an array of tables"), file)
    return rows


def parse_weapons(text: str, file: str = "weapons.toml") -> dict[str, Weapon]:
    data = _toml(text, file)
    problems: list[FieldProblem] = []
    out: dict[str, Weapon] = {}
    for i, row in enumerate(_rows(data, "weapon", file)):
        path = f"{file} weapon[{i}]"
        try:
            weapon = weapon_from_dict(row, path)
        except ValidationError as err:
            problems += err.problems
            continue
        if weapon.name.lower() in out:
            problems.append(FieldProblem(f"{path}.name", f"`{weapon.name}` appears twice"))
        out[weapon.name.lower()] = weapon
    if problems:
        raise ValidationError(problems, file)
    return out


def parse_armour(text: str, file: str = "armour.toml") -> tuple[dict[str, Armour], dict[str, Shield]]:
    data = _toml(text, file)
    problems: list[FieldProblem] = []
    armour: dict[str, Armour] = {}
    shields: dict[str, Shield] = {}
    for i, row in enumerate(_rows(data, "armour", file)):
        path = f"{file} armour[{i}]"
        name, ar, cls = row.get("name"), row.get("ar"), row.get("class")
        bad = False
        if not isinstance(name, str) or not name:
            problems.append(FieldProblem(f"{path}.name", "is required"))
            bad = True
        if not isinstance(ar, int) or isinstance(ar, bool) or not 0 <= ar <= 100:
            problems.append(FieldProblem(f"{path}.ar", f"must be a whole number 0..100, not {ar!r}"))
            bad = True
        if cls not in ARMOUR_CLASSES:
            problems.append(
                FieldProblem(f"{path}.class", f"must be one of {', '.join(ARMOUR_CLASSES)}, not {cls!r}")
            )
            bad = True
        for key in row:
            if key not in ("name", "ar", "class"):
                problems.append(FieldProblem(f"{path}.{key}", "is not an armour field"))
                bad = True
        if not bad:
            armour[name.lower()] = Armour(name, ar, cls)
    for i, row in enumerate(_rows(data, "shield", file)):
        path = f"{file} shield[{i}]"
        name, av = row.get("name"), row.get("av")
        if not isinstance(name, str) or not name:
            problems.append(FieldProblem(f"{path}.name", "is required"))
        elif not isinstance(av, int) or isinstance(av, bool) or not 1 <= av <= 100:
            problems.append(FieldProblem(f"{path}.av", f"must be a whole number 1..100, not {av!r}"))
        else:
            shields[name.lower()] = Shield(name, av)
    if problems:
        raise ValidationError(problems, file)
    return armour, shields


_CREATURE_KEYS = {"name", "hp", "weapons", "armour", "shield", "skills", *ATTRIBUTES}


def parse_creatures(
    text: str,
    weapons: Mapping[str, Weapon],
    armour: Mapping[str, Armour],
    shields: Mapping[str, Shield],
    file: str = "creatures.toml",
) -> dict[str, Creature]:
    data = _toml(text, file)
    problems: list[FieldProblem] = []
    out: dict[str, Creature] = {}
    for i, row in enumerate(_rows(data, "creature", file)):
        path = f"{file} creature[{i}]"
        before = len(problems)
        for key in row:
            if key not in _CREATURE_KEYS:
                problems.append(FieldProblem(f"{path}.{key}", "is not a creature field"))
        sheet: dict[str, Any] = {"name": row.get("name")}
        sheet.update({a: row[a] for a in ATTRIBUTES if a in row})
        sheet["hp_max"] = row.get("hp")
        kit = []
        for j, wname in enumerate(row.get("weapons", [])):
            found = weapons.get(str(wname).lower())
            if found is None:
                problems.append(FieldProblem(f"{path}.weapons[{j}]", f"`{wname}` is not in weapons.toml"))
            else:
                kit.append(found.to_dict())
        sheet["weapons"] = kit
        if "armour" in row:
            worn = armour.get(str(row["armour"]).lower())
            if worn is None:
                problems.append(FieldProblem(f"{path}.armour", f"`{row['armour']}` is not in armour.toml"))
            else:
                sheet.update(armour_name=worn.name, armour_ar=worn.ar, armour_class=worn.armour_class)
        if "shield" in row:
            shield = shields.get(str(row["shield"]).lower())
            if shield is None:
                problems.append(FieldProblem(f"{path}.shield", f"`{row['shield']}` is not in armour.toml"))
            else:
                sheet["shield_av"] = shield.av
        skills = []
        raw_skills = row.get("skills", {})
        for sname, value in raw_skills.items() if isinstance(raw_skills, Mapping) else []:
            parts = str(value).split()
            attribute = parts[1] if len(parts) > 1 else DEFAULT_SKILL_ATTRIBUTE.get(sname, "")
            skills.append(
                {"name": sname, "attribute": attribute or None, "dice": parts[0] if parts else None}
            )
        sheet["skills"] = skills
        try:
            built = sheet_from_dict(sheet)
        except ValidationError as err:
            problems += [FieldProblem(f"{path}.{p.path}", p.problem) for p in err.problems]
            continue
        if len(problems) == before:
            out[built.name.lower()] = Creature(built.name, built)
    if problems:
        raise ValidationError(problems, file)
    return out


@lru_cache(maxsize=1)
def weapons() -> dict[str, Weapon]:
    return parse_weapons(_read("weapons.toml"))


@lru_cache(maxsize=1)
def armour_and_shields() -> tuple[dict[str, Armour], dict[str, Shield]]:
    return parse_armour(_read("armour.toml"))


@lru_cache(maxsize=1)
def creatures() -> dict[str, Creature]:
    armour, shields = armour_and_shields()
    return parse_creatures(_read("creatures.toml"), weapons(), armour, shields)


def weapon(name: str) -> Weapon:
    found = weapons().get(name.strip().lower())
    if found is None:
        raise NotFound(f"No D6 weapon `{name}`. Weapons: {', '.join(sorted(weapons()))}.")
    return found


def armour(name: str) -> Armour:
    found = armour_and_shields()[0].get(name.strip().lower())
    if found is None:
        raise NotFound(f"No D6 armour `{name}`. Armour: {', '.join(sorted(armour_and_shields()[0]))}.")
    return found


def shield(name: str) -> Shield:
    found = armour_and_shields()[1].get(name.strip().lower())
    if found is None:
        raise NotFound(f"No D6 shield `{name}`. Shields: {', '.join(sorted(armour_and_shields()[1]))}.")
    return found


def creature(name: str) -> Creature:
    found = creatures().get(name.strip().lower())
    if found is None:
        raise NotFound(f"No D6 creature `{name}`. Creatures: {', '.join(sorted(creatures()))}.")
    return found
