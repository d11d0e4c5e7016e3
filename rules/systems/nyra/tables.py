"""The Nyra tables in ``data/nyra/`` (TOML, read with stdlib ``tomllib``), loaded into validated frozen
objects. A bad row raises ``ValidationError`` whose paths name the file, the row and the field
(``weapons.toml: weapon[2].delay``).

Files: weapons.toml (listed weapons and crafted ones), materials.toml, hones.toml, locations.toml,
armour.toml; creatures.toml is read by creatures.py (it needs the sheet).
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib.resources import files

from rules.errors import NotFound, ValidationError
from rules.systems.nyra.armour import ArmourPiece, parse_armour
from rules.systems.nyra.crafting import craft
from rules.systems.nyra.locations import LOCATION_KINDS, LocationRow, LocationTable
from rules.systems.nyra.validation import Problems, join
from rules.systems.nyra.weapons import Hone, Material, Weapon, parse_hone, parse_material, parse_weapon

MAX_LOCATION_DIE = 100


def read_toml(name: str) -> dict:
    """One file of data/nyra/ as a dict."""
    return tomllib.loads((files("data") / "nyra" / name).read_text(encoding="utf-8"))


def _rows(raw: dict, key: str, file: str, problems: Problems) -> list:
    rows = raw.get(key, [])
    if not isinstance(rows, list):
        problems.add(f"{file}: {key}", "needs a list of rows ([[...]] tables)")
        return []
    return rows


def _unique(names: list[tuple[int, str]], file: str, key: str, problems: Problems) -> None:
    seen: dict[str, int] = {}
    for i, name in names:
        low = name.lower()
        if low in seen:
            problems.add(f"{file}: {key}[{i}].name", f"repeats the name `{name}` of row {seen[low]}")
        else:
            seen[low] = i


def parse_materials(raw: dict, file: str = "materials.toml") -> dict[str, Material]:
    problems = Problems()
    out: dict[str, Material] = {}
    for i, row in enumerate(_rows(raw, "material", file, problems)):
        material = parse_material(row, f"{file}: material[{i}]", problems)
        if material:
            out[material.name] = material
    if problems:
        raise ValidationError(problems.items, file)
    return out


def parse_hones(raw: dict, file: str = "hones.toml") -> dict[str, Hone]:
    problems = Problems()
    out: dict[str, Hone] = {}
    for i, row in enumerate(_rows(raw, "hone", file, problems)):
        hone = parse_hone(row, f"{file}: hone[{i}]", problems)
        if hone:
            out[hone.name] = hone
    if problems:
        raise ValidationError(problems.items, file)
    return out


def parse_location_tables(raw: dict, file: str = "locations.toml") -> dict[str, LocationTable]:
    """Each table: a die and rows with ``faces = [low, high]`` (or ``face = n``), ``location`` and ``kind``;
    the rows must cover every face of the die exactly once and name each location once."""
    problems = Problems()
    out: dict[str, LocationTable] = {}
    for i, table in enumerate(_rows(raw, "table", file, problems)):
        path = f"{file}: table[{i}]"
        body = problems.mapping(table, path)
        if body is None:
            continue
        before = len(problems)
        name = problems.text(body.get("name"), join(path, "name"))
        die = problems.integer(body.get("die"), join(path, "die"), minimum=1, maximum=MAX_LOCATION_DIE)
        rows: list[LocationRow] = []
        for j, row in enumerate(problems.sequence(body.get("row"), join(path, "row")) or []):
            rpath = join(join(path, "row"), j)
            rbody = problems.mapping(row, rpath)
            if rbody is None:
                continue
            faces = rbody.get("faces", [rbody["face"], rbody["face"]] if "face" in rbody else None)
            if not isinstance(faces, list) or len(faces) != 2:
                problems.add(join(rpath, "faces"), "needs [low, high] (or face = n)")
                low = high = None
            else:
                low = problems.integer(faces[0], join(rpath, "faces"), minimum=1, maximum=MAX_LOCATION_DIE)
                high = problems.integer(faces[1], join(rpath, "faces"), minimum=1, maximum=MAX_LOCATION_DIE)
                if low is not None and high is not None and low > high:
                    problems.add(join(rpath, "faces"), f"low {low} is above high {high}")
            location = problems.text(rbody.get("location"), join(rpath, "location"))
            kind = rbody.get("kind")
            if kind not in LOCATION_KINDS:
                problems.add(join(rpath, "kind"), f"must be one of {', '.join(LOCATION_KINDS)}, not {kind!r}")
            if None not in (low, high, location) and kind in LOCATION_KINDS:
                rows.append(LocationRow(low, high, location, kind))  # type: ignore[arg-type]
        if die is not None and len(problems) == before:
            covered = sorted(f for row in rows for f in range(row.low, row.high + 1))
            if covered != list(range(1, die + 1)):
                problems.add(join(path, "row"), f"the faces must cover 1..{die} exactly once, not {covered}")
            names = [row.location.lower() for row in rows]
            if len(set(names)) != len(names):
                problems.add(join(path, "row"), "names a location twice")
        if len(problems) == before and name is not None:
            out[name] = LocationTable(name, die, tuple(rows))  # type: ignore[arg-type]
    if problems:
        raise ValidationError(problems.items, file)
    return out


def parse_armour_file(raw: dict, file: str = "armour.toml") -> dict[str, ArmourPiece]:
    problems = Problems()
    out: dict[str, ArmourPiece] = {}
    rows = _rows(raw, "armour", file, problems)
    for i, row in enumerate(rows):
        piece = parse_armour(row, f"{file}: armour[{i}]", problems)
        if piece:
            out[piece.name] = piece
    _unique(
        [(i, r.get("name", "")) for i, r in enumerate(rows) if isinstance(r, dict)], file, "armour", problems
    )
    if problems:
        raise ValidationError(problems.items, file)
    return out


def parse_weapons_file(
    raw: dict, materials: dict[str, Material], hones: dict[str, Hone], file: str = "weapons.toml"
) -> dict[str, Weapon]:
    """Listed weapons (``[[weapon]]``) and crafted ones (``[[crafted]]``: base, material, smith_bonus, hone,
    traits) built with crafting.craft."""
    problems = Problems()
    out: dict[str, Weapon] = {}
    rows = _rows(raw, "weapon", file, problems)
    for i, row in enumerate(rows):
        weapon = parse_weapon(row, f"{file}: weapon[{i}]", problems)
        if weapon:
            out[weapon.name] = weapon
    crafted_rows = _rows(raw, "crafted", file, problems)
    for i, row in enumerate(crafted_rows):
        path = f"{file}: crafted[{i}]"
        body = problems.mapping(row, path)
        if body is None:
            continue
        before = len(problems)
        name = problems.text(body.get("name"), join(path, "name"))
        base = out.get(body.get("base", ""))
        if base is None:
            problems.add(join(path, "base"), f"names no weapon of this file: {body.get('base')!r}")
        material = None
        if body.get("material") is not None:
            material = materials.get(body["material"])
            if material is None:
                problems.add(
                    join(path, "material"), f"names no material of materials.toml: {body['material']!r}"
                )
        hone = None
        if body.get("hone") is not None:
            hone = hones.get(body["hone"])
            if hone is None:
                problems.add(join(path, "hone"), f"names no hone of hones.toml: {body['hone']!r}")
        smith = problems.integer(body.get("smith_bonus", 0), join(path, "smith_bonus"), minimum=0, maximum=50)
        traits = body.get("traits", [])
        if not isinstance(traits, list) or not all(isinstance(t, str) and t.strip() for t in traits):
            problems.add(join(path, "traits"), "needs a list of trait names")
        if len(problems) == before:
            out[name] = craft(  # type: ignore[index]
                base,  # type: ignore[arg-type]
                name=name,
                material=material,
                smith_bonus=smith,  # type: ignore[arg-type]
                hone=hone,
                traits=tuple(t.strip() for t in traits),
            )
    _unique(
        [(i, r.get("name", "")) for i, r in enumerate(rows + crafted_rows) if isinstance(r, dict)],
        file,
        "weapon",
        problems,
    )
    if problems:
        raise ValidationError(problems.items, file)
    return out


@dataclass(frozen=True, slots=True)
class NyraTables:
    weapons: dict[str, Weapon]
    materials: dict[str, Material]
    hones: dict[str, Hone]
    location_tables: dict[str, LocationTable]
    armour: dict[str, ArmourPiece]

    def weapon(self, name: str) -> Weapon:
        return _lookup(self.weapons, name, "weapon")

    def location_table(self, name: str) -> LocationTable:
        return _lookup(self.location_tables, name, "location table")

    def armour_piece(self, name: str) -> ArmourPiece:
        return _lookup(self.armour, name, "armour")

    def material(self, name: str) -> Material:
        return _lookup(self.materials, name, "material")

    def hone(self, name: str) -> Hone:
        return _lookup(self.hones, name, "hone")


def _lookup(table: dict, name: str, what: str):
    if name in table:  # the stored spelling (a sheet's location table, every lookup of a tracker)
        return table[name]
    key = (name or "").strip().lower()
    for k, v in table.items():
        if k.lower() == key:
            return v
    raise NotFound(f"There is no {what} `{name}`. Known: {', '.join(table)}.")


@functools.cache
def load_tables() -> NyraTables:
    """Every shipped table, validated (cached: the files do not change while the bot runs)."""
    materials = parse_materials(read_toml("materials.toml"))
    hones = parse_hones(read_toml("hones.toml"))
    return NyraTables(
        weapons=parse_weapons_file(read_toml("weapons.toml"), materials, hones),
        materials=materials,
        hones=hones,
        location_tables=parse_location_tables(read_toml("locations.toml")),
        armour=parse_armour_file(read_toml("armour.toml")),
    )


def weapon_names() -> tuple[str, ...]:
    return tuple(load_tables().weapons)


def armour_names() -> tuple[str, ...]:
    return tuple(load_tables().armour)


HUMANOID = "humanoid"
