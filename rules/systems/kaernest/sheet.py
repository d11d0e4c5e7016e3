"""A Kaernest character sheet (RULES.md §2 "Sheet"): Grace, Muscle, Reflex, Instinct, Health, Luck; skills
by name; armour and weapons from the tables (seed "Damage by Weapon", "Protection by Armour"), or custom
weapons the sheet defines in the table's own row format (``custom_weapons``; carried by naming them in
``weapons`` like any other). Unarmed attacks need nothing on the sheet (``arms.py``).

``validate`` collects every problem with its field path before raising one ``ValidationError``;
``to_dict``/``from_dict`` round-trip exactly (the bot stores, exports and imports sheets as JSON);
``set_field`` is ``/character set`` and ``field_names`` its autocomplete.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rules.errors import FieldProblem, InvalidInput, NotFound, ValidationError
from rules.stored_once import StoredOnce
from rules.systems.kaernest import tables

ATTRIBUTES: tuple[str, ...] = ("grace", "muscle", "reflex", "instinct", "health", "luck")
# Ranges wide enough for any character the seed describes, narrow enough to catch typos (a 70 for a 7).
ATTRIBUTE_RANGE = (0, 30)
HEALTH_RANGE = (1, 30)
SKILL_RANGE = (0, 30)
MODIFIER_RANGE = (-30, 30)
MAX_NAME = 64
MAX_NOTES = 1000
MAX_SKILLS = 100
# Per-system fields of /character set besides attributes and skills (aliases map onto them).
SYSTEM_FIELDS: tuple[str, ...] = (
    "name",
    "armour",
    "weapons",
    "initiative_modifier",
    "defense_skill",
    "npc",
    "notes",
)
# RULES.md §4: reserved field names are never taken as skill names (Kaernest counts damage, not HP).
RESERVED_NAMES = frozenset(
    {"hp", "hp_max", "hp max", "max_hp", "max hp", "damage", "initiative", "posture", "segment", "wounds"}
)
MAX_CUSTOM_WEAPONS = 20
_ALIASES = {
    "armor": "armour",
    "aptitudes": "initiative_modifier",
    "initiative": "initiative_modifier",
    "weapon": "weapons",
    "defence_skill": "defense_skill",
}
DEFENSE_SKILLS = ("Parry", "Dodge")
_NONE_WORDS = {"", "none", "-", "--", "remove"}


@dataclass(frozen=True, slots=True)
class Sheet(StoredOnce):
    """A Kaernest character. ``skills`` are ``(name, rating)`` pairs sorted by name, unique ignoring case.

    ``initiative_modifier`` holds the aptitudes and defects that the seed adds to initiative.
    ``defense_skill`` names the skill used for active defense; empty means the better of Parry and Dodge.
    """

    name: str
    grace: int = 5
    muscle: int = 5
    reflex: int = 5
    instinct: int = 5
    health: int = 5
    luck: int = 0
    skills: tuple[tuple[str, int], ...] = ()
    armour: str | None = None
    weapons: tuple[str, ...] = ()
    initiative_modifier: int = 0
    defense_skill: str = ""
    npc: bool = False
    notes: str = ""
    custom_weapons: tuple[tables.Weapon, ...] = ()
    _stored: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)  # StoredOnce

    def __post_init__(self) -> None:
        # Skills are kept sorted so that equal sheets compare equal and round-trip exactly.
        ordered = tuple(sorted(self.skills, key=lambda kv: str(kv[0]).lower()))
        object.__setattr__(self, "skills", ordered)

    def attribute(self, name: str) -> int:
        key = name.strip().lower()
        if key not in ATTRIBUTES:
            raise NotFound(
                f"`{name}` is not a Kaernest attribute. Attributes: {', '.join(a.title() for a in ATTRIBUTES)}."
            )
        return getattr(self, key)

    def skill(self, name: str) -> int:
        """A skill's rating by name (case-insensitive); an untrained skill is 0."""
        key = name.strip().lower()
        return next((v for n, v in self.skills if n.lower() == key), 0)

    def has_skill(self, name: str) -> bool:
        key = name.strip().lower()
        return any(n.lower() == key for n, _ in self.skills)

    def active_defense_skill(self) -> tuple[str, int]:
        """The skill of an active defense: the sheet's choice, else the better of Parry and Dodge."""
        if self.defense_skill:
            return self.defense_skill, self.skill(self.defense_skill)
        best = max(DEFENSE_SKILLS, key=lambda s: (self.skill(s), s == "Parry"))
        return best, self.skill(best)

    def weapon(self, name: str) -> tables.Weapon:
        """A weapon by name: the sheet's own custom one first, else the table's."""
        key = (name or "").strip().lower()
        for custom in self.custom_weapons:
            if custom.name.lower() == key:
                return custom
        return tables.weapon(name)

    def armour_row(self) -> tables.Armour | None:
        return tables.armour(self.armour) if self.armour else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": "kaernest",
            "name": self.name,
            **{a: getattr(self, a) for a in ATTRIBUTES},
            "skills": {n: v for n, v in self.skills},
            "armour": self.armour,
            "weapons": list(self.weapons),
            "initiative_modifier": self.initiative_modifier,
            "defense_skill": self.defense_skill,
            "npc": self.npc,
            "notes": self.notes,
            "custom_weapons": [tables.weapon_to_row(w) for w in self.custom_weapons],
        }


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_range(path: str, value: object, bounds: tuple[int, int], problems: list[FieldProblem]) -> None:
    low, high = bounds
    if not _is_int(value):
        problems.append(FieldProblem(path, f"must be a whole number, not {value!r}"))
    elif not low <= value <= high:  # type: ignore[operator]
        problems.append(FieldProblem(path, f"must be between {low} and {high}, not {value}"))


def problems_of(sheet: Sheet) -> list[FieldProblem]:
    """Every problem of ``sheet``, each with its field path; empty when the sheet is valid."""
    problems: list[FieldProblem] = []
    if not isinstance(sheet.name, str) or not sheet.name.strip():
        problems.append(FieldProblem("name", "must not be empty"))
    elif len(sheet.name) > MAX_NAME:
        problems.append(FieldProblem("name", f"at most {MAX_NAME} characters"))
    for attr in ATTRIBUTES:
        _check_range(
            attr, getattr(sheet, attr), HEALTH_RANGE if attr == "health" else ATTRIBUTE_RANGE, problems
        )
    if len(sheet.skills) > MAX_SKILLS:
        problems.append(FieldProblem("skills", f"at most {MAX_SKILLS} skills"))
    seen: set[str] = set()
    for name, value in sheet.skills:
        path = f"skills.{name}"
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            problems.append(FieldProblem(path, f"a skill needs a name of 1 to {MAX_NAME} characters"))
            continue
        if name.lower() in seen:
            problems.append(FieldProblem(path, "appears twice (names ignore case)"))
        if name.strip().lower() in ATTRIBUTES:
            problems.append(FieldProblem(path, "is an attribute, not a skill"))
        elif " ".join(name.split()).lower() in RESERVED_NAMES:
            problems.append(FieldProblem(path, "is a reserved field name, not a skill"))
        seen.add(name.lower())
        _check_range(path, value, SKILL_RANGE, problems)
    if sheet.armour is not None:
        try:
            tables.armour(sheet.armour)
        except NotFound as err:
            problems.append(FieldProblem("armour", err.reason))
    custom = {w.name.lower() for w in sheet.custom_weapons}
    if len(custom) != len(sheet.custom_weapons):
        problems.append(FieldProblem("custom_weapons", "two custom weapons share a name"))
    if len(sheet.custom_weapons) > MAX_CUSTOM_WEAPONS:
        problems.append(FieldProblem("custom_weapons", f"at most {MAX_CUSTOM_WEAPONS} custom weapons"))
    for i, name in enumerate(sheet.weapons):
        if isinstance(name, str) and name.strip().lower() in custom:
            continue
        try:
            tables.weapon(name)
        except NotFound as err:
            problems.append(FieldProblem(f"weapons[{i}]", err.reason))
    if len({w.lower() for w in sheet.weapons}) != len(sheet.weapons):
        problems.append(FieldProblem("weapons", "a weapon is listed twice"))
    _check_range("initiative_modifier", sheet.initiative_modifier, MODIFIER_RANGE, problems)
    if not isinstance(sheet.defense_skill, str) or len(sheet.defense_skill) > MAX_NAME:
        problems.append(FieldProblem("defense_skill", f"a skill name of at most {MAX_NAME} characters"))
    if not isinstance(sheet.npc, bool):
        problems.append(FieldProblem("npc", "must be true or false"))
    if not isinstance(sheet.notes, str) or len(sheet.notes) > MAX_NOTES:
        problems.append(FieldProblem("notes", f"text of at most {MAX_NOTES} characters"))
    return problems


def validate(sheet: Sheet) -> Sheet:
    """``sheet`` if valid; else one ValidationError listing every problem."""
    problems = problems_of(sheet)
    if problems:
        raise ValidationError(
            problems, f"The sheet of {sheet.name!r}" if isinstance(sheet.name, str) else "The sheet"
        )
    return sheet


def new_sheet(name: str) -> Sheet:
    """A blank sheet named ``name`` (every attribute at its default)."""
    return validate(Sheet(name=(name or "").strip()))


def _canonical_names(sheet: Sheet) -> Sheet:
    """Armour and weapon names spelled as the table spells them (input is case-insensitive)."""
    armour = tables.armour(sheet.armour).name if sheet.armour else None
    weapons = tuple(sheet.weapon(w).name for w in sheet.weapons)
    return dataclasses.replace(sheet, armour=armour, weapons=weapons)


def from_dict(raw: dict[str, Any]) -> Sheet:
    """A validated sheet from ``to_dict`` output or an imported file; every problem has its path."""
    if not isinstance(raw, dict):
        raise ValidationError(FieldProblem("", "a sheet must be a table of fields"), "The sheet")
    problems: list[FieldProblem] = []
    known = {"system", "name", *ATTRIBUTES, "skills", "armour", "weapons", "initiative_modifier"}
    known |= {"defense_skill", "npc", "notes", "custom_weapons"}
    for key in raw:
        if key not in known:
            problems.append(FieldProblem(str(key), "is not a Kaernest sheet field"))
    if raw.get("system", "kaernest") != "kaernest":
        problems.append(FieldProblem("system", f"this is a {raw.get('system')!r} sheet, not a Kaernest one"))
    skills_raw = raw.get("skills", {})
    skills: tuple[tuple[str, int], ...] = ()
    if isinstance(skills_raw, dict):
        skills = tuple(sorted(((str(k), v) for k, v in skills_raw.items()), key=lambda kv: kv[0].lower()))
    else:
        problems.append(FieldProblem("skills", "must be a table of skill names and ratings"))
    weapons_raw = raw.get("weapons", [])
    weapons: tuple[str, ...] = ()
    if isinstance(weapons_raw, list) and all(isinstance(w, str) for w in weapons_raw):
        weapons = tuple(weapons_raw)
    else:
        problems.append(FieldProblem("weapons", "must be a list of weapon names"))
    armour = raw.get("armour")
    if armour is not None and not isinstance(armour, str):
        problems.append(FieldProblem("armour", "must be an armour name or empty"))
        armour = None
    custom: list[tables.Weapon] = []
    custom_raw = raw.get("custom_weapons", [])
    if not isinstance(custom_raw, list):
        problems.append(FieldProblem("custom_weapons", "must be a list of weapon rows"))
        custom_raw = []
    for i, row in enumerate(custom_raw):
        weapon = tables.weapon_row(row, f"custom_weapons[{i}]", problems)
        if weapon is not None:
            custom.append(weapon)
    name = raw.get("name", "")
    defaults = Sheet(name="x")
    sheet = Sheet(
        name=name,
        **{a: raw.get(a, getattr(defaults, a)) for a in ATTRIBUTES},
        skills=skills,
        armour=armour or None,
        weapons=weapons,
        initiative_modifier=raw.get("initiative_modifier", 0),
        defense_skill=raw.get("defense_skill", ""),
        npc=raw.get("npc", False),
        notes=raw.get("notes", ""),
        custom_weapons=tuple(custom),
    )
    problems.extend(problems_of(sheet))
    if problems:
        raise ValidationError(
            problems, f"The sheet of {name!r}" if isinstance(name, str) and name else "The sheet"
        )
    return _canonical_names(sheet)


def _parse_int(field: str, text: str, bounds: tuple[int, int]) -> int:
    try:
        value = int(text.strip())
    except (ValueError, AttributeError):
        raise InvalidInput(
            f"`{field}` takes a whole number between {bounds[0]} and {bounds[1]}, not `{text}`."
        ) from None
    if not bounds[0] <= value <= bounds[1]:
        raise InvalidInput(f"`{field}` must be between {bounds[0]} and {bounds[1]}, not {value}.")
    return value


def set_field(sheet: Sheet, field: str, value_text: str) -> Sheet:
    """``/character set``: an attribute (any case), a system field, or any other name as a skill.

    A skill set to ``none`` (or ``remove``) is removed; ``weapons`` takes a comma-separated list.
    The result is validated as a whole.
    """
    raw_field = (field or "").strip()
    key = _ALIASES.get(raw_field.lower(), raw_field.lower())
    text = (value_text or "").strip()
    if not raw_field:
        raise InvalidInput("Name the field to set: an attribute, a sheet field or a skill.")
    if key in ATTRIBUTES:
        bounds = HEALTH_RANGE if key == "health" else ATTRIBUTE_RANGE
        new = dataclasses.replace(sheet, **{key: _parse_int(key.title(), text, bounds)})
    elif key == "name":
        new = dataclasses.replace(sheet, name=text)
    elif key == "armour":
        new = dataclasses.replace(
            sheet, armour=None if text.lower() in _NONE_WORDS else tables.armour(text).name
        )
    elif key == "weapons":
        names = [] if text.lower() in _NONE_WORDS else [w.strip() for w in text.split(",") if w.strip()]
        new = dataclasses.replace(sheet, weapons=tuple(sheet.weapon(n).name for n in names))
    elif key == "initiative_modifier":
        new = dataclasses.replace(
            sheet, initiative_modifier=_parse_int("initiative_modifier", text, MODIFIER_RANGE)
        )
    elif key == "defense_skill":
        new = dataclasses.replace(sheet, defense_skill="" if text.lower() in _NONE_WORDS else text)
    elif key == "npc":
        if text.lower() not in ("yes", "no", "true", "false", "on", "off"):
            raise InvalidInput(f"`npc` is yes or no, not `{text}`.")
        new = dataclasses.replace(sheet, npc=text.lower() in ("yes", "true", "on"))
    elif key == "notes":
        new = dataclasses.replace(sheet, notes=text)
    elif key.split(" ", 1)[0] in ("custom_weapon", "custom") and len(key.split(" ", 1)) == 2:
        new = _set_custom_weapon(sheet, raw_field.split(" ", 1)[1].strip(), text)
    elif " ".join(key.split()) in RESERVED_NAMES:
        raise InvalidInput(
            f"`{raw_field}` is not a Kaernest sheet field and cannot be a skill: Kaernest counts damage "
            "taken against Health (`/gm damage`, `/gm heal`)."
        )
    else:
        kept = tuple((n, v) for n, v in sheet.skills if n.lower() != key)
        existing = next((n for n, _ in sheet.skills if n.lower() == key), raw_field)
        if text.lower() in _NONE_WORDS:
            new = dataclasses.replace(sheet, skills=kept)
        else:
            value = _parse_int(existing, text, SKILL_RANGE)
            skills = tuple(sorted((*kept, (existing, value)), key=lambda kv: kv[0].lower()))
            new = dataclasses.replace(sheet, skills=skills)
    return validate(new)


def _set_custom_weapon(sheet: Sheet, name: str, text: str) -> Sheet:
    """``custom_weapon Oar`` = ``handed 2, speed 7, bludgeon 5, skill Clubs/Maces`` defines (or redefines)
    a weapon of the sheet's own in the table's terms and carries it; ``none`` removes it."""
    key = name.lower()
    others = tuple(w for w in sheet.custom_weapons if w.name.lower() != key)
    carried = tuple(w for w in sheet.weapons if w.lower() != key)
    if text.lower() in _NONE_WORDS:
        if len(others) == len(sheet.custom_weapons):
            raise NotFound(f"{sheet.name} has no custom weapon `{name}`.")
        return validate(dataclasses.replace(sheet, custom_weapons=others, weapons=carried))
    row: dict[str, str] = {"name": name}
    for part in text.split(","):
        field_name, _, value = part.strip().partition(" ")
        if not value.strip():
            raise InvalidInput(
                f"`{part.strip()}`: write the weapon like `handed 2, speed 7, bludgeon 5, skill Clubs/Maces`."
            )
        row[field_name.lower()] = value.strip()
    problems: list[FieldProblem] = []
    weapon = tables.weapon_row(row, f"custom_weapon {name}", problems)
    if weapon is None:
        raise ValidationError(problems, f"The custom weapon {name!r}")
    return validate(
        dataclasses.replace(sheet, custom_weapons=(*others, weapon), weapons=(*carried, weapon.name))
    )


def add_weapon(sheet: Sheet, name: str) -> Sheet:
    """``/character weapon``: carries a table weapon or one of the sheet's custom weapons (a weapon already
    carried is refused)."""
    found = sheet.weapon(name)
    if any(w.lower() == found.name.lower() for w in sheet.weapons):
        raise InvalidInput(f"{sheet.name} already carries the {found.name}.")
    return validate(dataclasses.replace(sheet, weapons=(*sheet.weapons, found.name)))


def remove_weapon(sheet: Sheet, name: str) -> Sheet:
    key = name.strip().lower()
    if not any(w.lower() == key for w in sheet.weapons):
        raise NotFound(f"{sheet.name} carries no `{name}`.")
    return dataclasses.replace(sheet, weapons=tuple(w for w in sheet.weapons if w.lower() != key))


def field_names(sheet: Sheet | None = None) -> tuple[str, ...]:
    """Autocomplete for ``/character set``: attributes, sheet fields, then known and common skills."""
    names = [a.title() for a in ATTRIBUTES] + list(SYSTEM_FIELDS) + ["custom_weapon <name>"]
    skills = {n for n, _ in sheet.skills} if sheet else set()
    skills |= set(DEFENSE_SKILLS) | {
        w.skill for w in (*tables.weapons(), *(sheet.custom_weapons if sheet else ()))
    }
    lowered = {n.lower() for n in names}
    names += sorted((s for s in skills if s.lower() not in lowered), key=str.lower)
    return tuple(names)
