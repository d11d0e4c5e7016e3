"""The Nyra character sheet (RULES.md §1 "Sheet"; the seed's Duelist stubs and "Location column beside
Health").

Primary stats STR, AGI, CON (MAG, CHA, WIS, INT may be stored), skills by name, Sequence (rolled once on a
d10 when the sheet leaves it empty: ``roll_sequence``; kept on the sheet from then on), an optional energy
pool, weapons and armour (copied from data/ or custom, so an exported sheet stands alone), a shield (the
Claymore passage: "wielding a shield and has the defense skill"; the house rule ``defense_needs_shield``
reads it), the location table (``humanoid`` unless a creature says otherwise) and optional location health
overrides.

Skill branches (the Claymore passage: "Swords and the branch Claymore"): a skill written ``Swords/Claymore``,
or named after the branch alone (``Claymore``), is used instead of its parent for weapons of that branch. A
weapon's branch is the weapon it is based on (a crafted Carnifex is a Nodachi), else its own name; RULES.md
names no other way to mark a branch, so the table needs no new column.

``from_dict`` validates and lists every problem with its field path; ``to_dict`` is its exact inverse.
``set_field`` is ``/character set``; ``fields`` feeds its autocomplete.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotFound, ValidationError
from rules.events import Outcome
from rules.stored_once import StoredOnce, made_once
from rules.systems.nyra.armour import ArmourPiece, armour_at, parse_armour
from rules.systems.nyra.checks import Difficulty, roll_check
from rules.systems.nyra.events import CheckMade, SequenceRolled
from rules.systems.nyra.locations import HEALTH_LEVELS, LocationHealth, LocationTable, location_health
from rules.systems.nyra.tables import HUMANOID, load_tables
from rules.systems.nyra.validation import Problems, join
from rules.systems.nyra.weapons import PRIMARY_STATS, STATS, DamageType, Weapon, parse_weapon

MAX_STAT = 99
MAX_SKILL = 99
MAX_NAME = 80
SEQUENCE_DIE = 10
COMMON_SKILLS = ("Swords", "Axes", "Maces", "Spears", "Bows", "Dodge", "Defense")
_CLEAR = {"", "none", "auto", "-", "clear", "remove"}
MAX_SHIELD = 40
# RULES.md §4: reserved field names are never taken as skill names (Nyra has no HP: damage is per location).
RESERVED_NAMES = frozenset({"hp", "hp_max", "hp max", "max_hp", "max hp", "health", "damage"})
_NO_HP = (
    "Nyra has no HP: damage is kept per location (set a location's health with `Left Arm serious 25`), "
    "so `{name}` cannot be a skill."
)


@dataclass(frozen=True, slots=True)
class NyraSheet(StoredOnce):
    """A Nyra character or creature. Mappings are never mutated; every change returns a new sheet."""

    name: str
    stats: Mapping[str, int]
    skills: Mapping[str, int] = field(default_factory=dict)
    sequence: int | None = None
    energy: int | None = None
    weapons: tuple[Weapon, ...] = ()
    armour: tuple[ArmourPiece, ...] = ()
    location_table: str = HUMANOID
    location_health: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    notes: str = ""
    shield: str | None = None
    _stored: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)  # StoredOnce
    # each location's health by its table spelling, made on first use (the sheet is frozen)
    _health: dict[str, LocationHealth] | None = field(default=None, init=False, repr=False, compare=False)

    # --- reading -------------------------------------------------------------------------------------
    def stat(self, name: str) -> int:
        try:
            return self.stats[name.upper()]
        except KeyError:
            raise NotFound(
                f"{self.name} has no {name.upper()} on the sheet; set it with `/character set`."
            ) from None

    def skill(self, name: str) -> int | None:
        """A skill's value, found case-insensitively; None when the sheet lacks it."""
        key = skill_key(self.skills, name)
        return self.skills[key] if key else None

    def weapon_skill(self, weapon: Weapon) -> tuple[str, int]:
        """The skill a strike with ``weapon`` is rolled with, and its value: the branch skill when the sheet
        has one (``Swords/Claymore``, or ``Claymore``), else the weapon's skill; a skill the sheet lacks is 0.

        Decided where RULES.md is silent: a branch is named after the weapon (or the listed weapon it was
        crafted from), as in the seed's Claymore passage: "With this weapon, it would be Swords and the branch
        Claymore"."""
        branch = weapon.based_on or weapon.name
        for name in (f"{weapon.skill}/{branch}", branch):
            key = skill_key(self.skills, name)
            if key and key.lower() != weapon.skill.lower():
                return key, self.skills[key]
        key = skill_key(self.skills, weapon.skill)
        return (key, self.skills[key]) if key else (weapon.skill, 0)

    def weapon(self, name: str | None = None) -> Weapon:
        """A carried weapon by name (case-insensitive), or the first one when no name is given."""
        if not self.weapons:
            raise NotFound(f"{self.name} carries no weapon. Add one with `/character weapon`.")
        if name is None or not name.strip():
            return self.weapons[0]
        for weapon in self.weapons:
            if weapon.name.lower() == name.strip().lower():
                return weapon
        raise NotFound(
            f"{self.name} carries no `{name}`. Weapons: {', '.join(w.name for w in self.weapons)}."
        )

    def table(self) -> LocationTable:
        return load_tables().location_table(self.location_table)

    def health(self, location: str) -> LocationHealth:
        kept: dict[str, LocationHealth] = made_once(self, "_health", dict)
        found = kept.get(location)
        if found is None:
            table = self.table()
            canonical = table.find(location)
            found = location_health(
                table.kind_of(canonical),
                self.stat("CON"),
                self.stat("STR"),
                self.location_health.get(canonical),
            )
            kept[location] = found
        return found

    def armour_value(self, location: str, damage_type: DamageType) -> tuple[tuple[str, int], ...]:
        return armour_at(self.armour, location, damage_type)

    # --- dict form -----------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "system": "nyra",
            "name": self.name,
            "stats": dict(self.stats),
            "skills": dict(self.skills),
            "sequence": self.sequence,
            "energy": self.energy,
            "weapons": [w.to_dict() for w in self.weapons],
            "armour": [a.to_dict() for a in self.armour],
            "location_table": self.location_table,
            "location_health": {loc: dict(levels) for loc, levels in self.location_health.items()},
            "notes": self.notes,
            "shield": self.shield,
        }

    @classmethod
    def from_dict(cls, raw: object) -> NyraSheet:
        return validate_sheet(raw)


def skill_key(skills: Mapping[str, int], name: str) -> str | None:
    key = " ".join((name or "").split()).lower()
    return next((k for k in skills if k.lower() == key), None)


_SHEET_KEYS = {
    "system",
    "name",
    "stats",
    "skills",
    "sequence",
    "energy",
    "weapons",
    "armour",
    "location_table",
    "location_health",
    "notes",
    "shield",
}


def validate_sheet(raw: object, subject: str = "The sheet") -> NyraSheet:
    """A sheet from its dict form (JSON/YAML/TOML import, the database); every problem with its path."""
    problems = Problems()
    body = problems.mapping(raw, "")
    if body is None:
        raise ValidationError(problems.items, subject)
    if body.get("system", "nyra") != "nyra":
        problems.add("system", f"this is a Nyra sheet, not {body.get('system')!r}")
    for key in sorted(set(body) - _SHEET_KEYS):
        problems.add(key, f"is not a Nyra sheet field ({', '.join(sorted(_SHEET_KEYS))})")
    name = problems.text(body.get("name"), "name", max_length=MAX_NAME)

    stats: dict[str, int] = {}
    stats_raw = problems.mapping(body.get("stats", {}), "stats") or {}
    for key, value in stats_raw.items():
        upper = str(key).strip().upper()
        if upper not in STATS:
            problems.add(join("stats", str(key)), f"is not a Nyra stat ({', '.join(STATS)})")
            continue
        number = problems.integer(value, join("stats", upper), minimum=1, maximum=MAX_STAT)
        if number is not None:
            stats[upper] = number
    for primary in PRIMARY_STATS:
        if primary not in {str(k).strip().upper() for k in stats_raw}:
            problems.add(join("stats", primary), "is missing (STR, AGI and CON are needed)")

    skills: dict[str, int] = {}
    for key, value in (problems.mapping(body.get("skills", {}), "skills") or {}).items():
        skill = " ".join(str(key).split())
        if not skill or len(skill) > 40:
            problems.add(join("skills", str(key)), "needs a name of 1..40 characters")
            continue
        if skill_key(skills, skill):
            problems.add(join("skills", skill), "is listed twice (names are case-insensitive)")
            continue
        if skill.lower() in RESERVED_NAMES or skill.upper() in STATS:
            problems.add(join("skills", skill), "is a reserved field name, not a skill")
            continue
        number = problems.integer(value, join("skills", skill), minimum=0, maximum=MAX_SKILL)
        if number is not None:
            skills[skill] = number

    sequence = None
    if body.get("sequence") is not None:
        sequence = problems.integer(body["sequence"], "sequence", minimum=1, maximum=SEQUENCE_DIE)
    energy = None
    if body.get("energy") is not None:
        energy = problems.integer(body["energy"], "energy", minimum=0, maximum=10000)

    tables = load_tables()
    table_name = body.get("location_table", HUMANOID)
    table: LocationTable | None = None
    try:
        table = tables.location_table(str(table_name))
        table_name = table.name
    except NotFound as err:
        problems.add("location_table", err.reason)

    weapons: list[Weapon] = []
    for i, item in enumerate(problems.sequence(body.get("weapons", []), "weapons") or []):
        path = join("weapons", i)
        if isinstance(item, str):
            try:
                weapons.append(tables.weapon(item))
            except NotFound as err:
                problems.add(path, err.reason)
            continue
        weapon = parse_weapon(item, path, problems)
        if weapon is not None and weapon.modifier not in stats and weapon.modifier not in PRIMARY_STATS:
            problems.add(join(path, "modifier"), f"uses {weapon.modifier}, which the sheet's stats lack")
        elif weapon is not None:
            if any(w.name.lower() == weapon.name.lower() for w in weapons):
                problems.add(join(path, "name"), f"another weapon is already called `{weapon.name}`")
            else:
                weapons.append(weapon)

    armour: list[ArmourPiece] = []
    for i, item in enumerate(problems.sequence(body.get("armour", []), "armour") or []):
        path = join("armour", i)
        if isinstance(item, str):
            try:
                item = tables.armour_piece(item).to_dict()
            except NotFound as err:
                problems.add(path, err.reason)
                continue
        piece = parse_armour(item, path, problems)
        if piece is None:
            continue
        if table is not None:
            canonical = []
            for j, loc in enumerate(piece.locations):
                try:
                    canonical.append(table.find(loc))
                except NotFound as err:
                    problems.add(join(join(path, "locations"), j), err.reason)
            piece = dataclasses.replace(piece, locations=tuple(canonical))
        armour.append(piece)

    overrides: dict[str, dict[str, int]] = {}
    for loc, levels in (problems.mapping(body.get("location_health", {}), "location_health") or {}).items():
        path = join("location_health", str(loc))
        canonical = str(loc)
        if table is not None:
            try:
                canonical = table.find(str(loc))
            except NotFound as err:
                problems.add(path, err.reason)
                continue
        values: dict[str, int] = {}
        for level, value in (problems.mapping(levels, path) or {}).items():
            if level not in HEALTH_LEVELS:
                problems.add(join(path, str(level)), f"is not a health level ({', '.join(HEALTH_LEVELS)})")
                continue
            number = problems.integer(value, join(path, level), minimum=1, maximum=10000)
            if number is not None:
                values[level] = number
        overrides[canonical] = values
    notes = body.get("notes", "")
    if not isinstance(notes, str) or len(notes) > 2000:
        problems.add("notes", "needs text of at most 2000 characters")
    shield = body.get("shield")
    if shield is not None:
        shield = problems.text(shield, "shield", max_length=MAX_SHIELD)

    if not problems and table is not None:
        for loc in table.locations:
            health = location_health(table.kind_of(loc), stats["CON"], stats["STR"], overrides.get(loc))
            if not health.slight <= health.serious <= health.critical:
                problems.add(
                    join("location_health", loc),
                    f"slight {health.slight} ≤ serious {health.serious} ≤ critical {health.critical} must hold",
                )
    if problems:
        raise ValidationError(problems.items, subject)
    return NyraSheet(
        name,  # type: ignore[arg-type]
        stats,
        skills,
        sequence,
        energy,
        tuple(weapons),
        tuple(armour),
        table_name,  # type: ignore[arg-type]
        overrides,
        notes,
        shield,
    )


def new_sheet(name: str, **stats: int) -> NyraSheet:
    """A fresh sheet (``/character create``): STR, AGI and CON default to 5 until set."""
    base = {"STR": 5, "AGI": 5, "CON": 5} | {k.upper(): v for k, v in stats.items()}
    return validate_sheet({"name": name, "stats": base})


def roll_sequence(sheet: NyraSheet, dice: DiceSource, *, force: bool = False) -> Outcome[NyraSheet]:
    """Roll Sequence on a d10 when the sheet leaves it empty (or ``force``: the GM asks for a re-roll)."""
    if sheet.sequence is not None and not force:
        return Outcome(sheet, ())
    die = dice.roll(SEQUENCE_DIE, f"{sheet.name} Sequence")
    return Outcome(
        dataclasses.replace(sheet, sequence=die.value),
        (SequenceRolled(sheet.name, die.value, (die,)),),
    )


# --- /check ---------------------------------------------------------------------------------------------
MAX_CHECK_BONUS = 20


def check(sheet: NyraSheet, stat: str, difficulty: str, bonus: int, dice: DiceSource) -> Outcome[NyraSheet]:
    """A d10 check against a skill (or a stat) at a difficulty; the sheet comes back unchanged."""
    if not -MAX_CHECK_BONUS <= bonus <= MAX_CHECK_BONUS:
        raise InvalidInput(f"A check bonus must be between -{MAX_CHECK_BONUS} and +{MAX_CHECK_BONUS}.")
    level = Difficulty.parse(difficulty)
    name = (stat or "").strip()
    if name.upper() in STATS and name.upper() in sheet.stats:
        label, value = name.upper(), sheet.stats[name.upper()]
    else:
        found = sheet.skill(name)
        if found is None:
            known = ", ".join([*sheet.stats, *sheet.skills])
            raise InvalidInput(f"{sheet.name} has no stat or skill `{name}`. Known: {known}.")
        label, value = next(k for k in sheet.skills if k.lower() == " ".join(name.split()).lower()), found
    result = roll_check(label, value, level, dice, bonus=bonus, label=f"{sheet.name} {label}")
    return Outcome(sheet, (CheckMade(sheet.name, result, result.dice),))


# --- /character set --------------------------------------------------------------------------------------
_HEALTH_FIELD = re.compile(r"^(?:health[. ])?(.+?)[. ](slight|serious|critical)$", re.IGNORECASE)
_SKILL_WITH_VALUE = re.compile(r"^(.+?)\s+([+-]?\d+)$")


def fields(sheet: NyraSheet | None = None) -> tuple[str, ...]:
    """Every field ``set_field`` accepts by name (autocomplete); any other name is taken as a skill."""
    table = sheet.table() if sheet else load_tables().location_table(HUMANOID)
    skills = tuple(sheet.skills) if sheet else ()
    extra_skills = tuple(s for s in COMMON_SKILLS if not skill_key(dict.fromkeys(skills, 0), s))
    health = tuple(f"{loc} {level}" for loc in table.locations for level in HEALTH_LEVELS)
    return (*STATS, "sequence", "energy", "shield", "location_table", "name", *skills, *extra_skills, *health)


def _int_value(field_name: str, text: str, minimum: int, maximum: int) -> int:
    try:
        value = int((text or "").strip())
    except ValueError:
        raise InvalidInput(f"{field_name} needs a whole number {minimum}..{maximum}, not `{text}`.") from None
    if not minimum <= value <= maximum:
        raise InvalidInput(f"{field_name} needs a whole number {minimum}..{maximum}, not {value}.")
    return value


def set_field(sheet: NyraSheet, field_name: str, value_text: str = "") -> NyraSheet:
    """``/character set``: a stat (case-insensitive), ``sequence``, ``energy``, ``location_table``, ``name``,
    a location health value (``Left Arm serious 25``, ``auto`` to clear), or any other name as a skill
    (``Swords 7``; ``none`` removes it). The result is validated as a whole."""
    name = " ".join((field_name or "").split())
    value = (value_text or "").strip()
    if not value:
        match = _SKILL_WITH_VALUE.match(name)
        if match:
            name, value = match[1], match[2]
    if not name:
        raise InvalidInput("Name the field to set, for example `STR`, `sequence` or `Swords`.")
    low = name.lower()
    raw = sheet.to_dict()
    if name.upper() in STATS:
        raw["stats"][name.upper()] = _int_value(name.upper(), value, 1, MAX_STAT)
    elif low == "sequence":
        raw["sequence"] = None if value.lower() in _CLEAR else _int_value("Sequence", value, 1, SEQUENCE_DIE)
    elif low == "shield":
        if len(value) > MAX_SHIELD:
            raise InvalidInput(f"A shield's name has at most {MAX_SHIELD} characters.")
        raw["shield"] = None if value.lower() in _CLEAR else value
    elif low in RESERVED_NAMES:
        raise InvalidInput(_NO_HP.format(name=name))
    elif low in {"energy", "energy pool", "energy_pool"}:
        raw["energy"] = None if value.lower() in _CLEAR else _int_value("Energy", value, 0, 10000)
    elif low in {"location_table", "location table", "locations"}:
        table = load_tables().location_table(value)
        misfits = [a.name for a in sheet.armour if any(loc not in table.locations for loc in a.locations)]
        if misfits:
            raise InvalidInput(
                f"{', '.join(misfits)} covers locations the {table.name} table lacks; remove it first."
            )
        raw["location_table"] = table.name
        # Health overrides belong to locations; those the new table lacks are dropped.
        raw["location_health"] = {k: v for k, v in raw["location_health"].items() if k in table.locations}
    elif low == "name":
        if not value or len(value) > MAX_NAME:
            raise InvalidInput(f"A name needs 1..{MAX_NAME} characters.")
        raw["name"] = value
    elif (match := _HEALTH_FIELD.match(name)) and _is_location(sheet, match[1]):
        location = sheet.table().find(match[1])
        level = match[2].lower()
        levels = dict(raw["location_health"].get(location, {}))
        if value.lower() in _CLEAR:
            levels.pop(level, None)
        else:
            levels[level] = _int_value(f"{location} {level}", value, 1, 10000)
        raw["location_health"] = {**raw["location_health"], location: levels}
        if not levels:
            del raw["location_health"][location]
    else:
        key = skill_key(sheet.skills, name) or name
        if len(key) > 40:
            raise InvalidInput("A skill name has at most 40 characters.")
        skills = dict(raw["skills"])
        if value.lower() in _CLEAR:
            if key not in skills:
                raise NotFound(f"{sheet.name} has no skill `{name}` to remove.")
            del skills[key]
        else:
            skills[key] = _int_value(key, value, 0, MAX_SKILL)
        raw["skills"] = skills
    return validate_sheet(raw, f"{sheet.name}'s sheet")


def _is_location(sheet: NyraSheet, text: str) -> bool:
    try:
        sheet.table().find(text)
    except NotFound:
        return False
    return True


# --- weapons and armour (/character weapon, /character armour) --------------------------------------------
def add_weapon(sheet: NyraSheet, weapon: Weapon | str) -> NyraSheet:
    """Carry a weapon: a ``Weapon`` (custom) or the name of one in data/nyra/weapons.toml."""
    item = load_tables().weapon(weapon) if isinstance(weapon, str) else weapon
    if any(w.name.lower() == item.name.lower() for w in sheet.weapons):
        raise InvalidInput(f"{sheet.name} already carries a weapon called `{item.name}`.")
    return validate_sheet(
        dataclasses.replace(sheet, weapons=(*sheet.weapons, item)).to_dict(), f"{sheet.name}'s sheet"
    )


def remove_weapon(sheet: NyraSheet, name: str) -> NyraSheet:
    weapon = sheet.weapon(name)
    return dataclasses.replace(sheet, weapons=tuple(w for w in sheet.weapons if w is not weapon))


def wear_armour(sheet: NyraSheet, piece: ArmourPiece | str, location: str | None = None) -> NyraSheet:
    """Wear a piece (from data or custom). With ``location`` it covers only that location."""
    item = load_tables().armour_piece(piece) if isinstance(piece, str) else piece
    table = sheet.table()
    if location:
        item = dataclasses.replace(item, locations=(table.find(location),))
    else:
        missing = [loc for loc in item.locations if not _is_location(sheet, loc)]
        if missing:
            raise InvalidInput(
                f"{item.name} covers {', '.join(missing)}, which {sheet.name} does not have; "
                f"give a location ({', '.join(table.locations)})."
            )
        item = dataclasses.replace(item, locations=tuple(table.find(loc) for loc in item.locations))
    return validate_sheet(
        dataclasses.replace(sheet, armour=(*sheet.armour, item)).to_dict(), f"{sheet.name}'s sheet"
    )


def remove_armour(sheet: NyraSheet, name: str) -> NyraSheet:
    key = (name or "").strip().lower()
    kept = tuple(a for a in sheet.armour if a.name.lower() != key)
    if len(kept) == len(sheet.armour):
        raise NotFound(f"{sheet.name} wears no `{name}`.")
    return dataclasses.replace(sheet, armour=kept)
