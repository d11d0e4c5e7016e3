"""The D6 character sheet (RULES.md §3 "Sheet"; seed: Attacking, Defending, Healing, Stealth).

Seven attributes as die codes, skills as extra dice on an attribute, HP, free actions, parry and dodge
limits, healing and restoration levels, shield AV, armour AR and class, weapons. ``from_dict`` collects every
problem with its field path before refusing (``/character import`` lists them all); ``to_dict`` and
``from_dict`` round-trip exactly, since the bot stores sheets as JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.errors import FieldProblem, InvalidInput, ValidationError
from rules.stored_once import StoredOnce
from rules.systems.d6.pool import DieCode

ATTRIBUTES: tuple[str, ...] = (
    "physique",
    "agility",
    "coordination",
    "perception",
    "intellect",
    "acumen",
    "charisma",
)
WEAPON_KINDS: tuple[str, ...] = ("cutting", "piercing", "blunt", "ranged", "crossbow", "magic")
MELEE_KINDS: frozenset[str] = frozenset({"cutting", "piercing", "blunt"})
RANGED_KINDS: frozenset[str] = frozenset({"ranged", "crossbow"})
HIT_ATTRIBUTES: tuple[str, ...] = ("coordination", "agility")
ARMOUR_CLASSES: tuple[str, ...] = ("light", "medium", "heavy")

# The skill names the rules look up (seed: "adding relevant skills"); any other name is a free skill.
SKILL_DODGE = "dodge"
SKILL_PARRY = "parry"
SKILL_STEALTH = "stealth"
SKILL_GRAPPLE = "grapple"
SKILL_INITIATIVE = "initiative"
SKILL_MEDICINE = "medicine"
# Attribute a new skill sits on when the player names none.
DEFAULT_SKILL_ATTRIBUTE: dict[str, str] = {
    SKILL_DODGE: "agility",
    SKILL_PARRY: "coordination",
    SKILL_STEALTH: "agility",
    SKILL_GRAPPLE: "physique",
    SKILL_INITIATIVE: "perception",
    SKILL_MEDICINE: "intellect",
    "acrobatics": "agility",
    "athletics": "physique",
    "awareness": "perception",
    "persuasion": "charisma",
}

MAX_HP = 10_000
TWO_D = DieCode(2)  # a fresh sheet's attributes
MAX_LIMIT = 20


@dataclass(frozen=True, slots=True)
class Skill:
    """Extra dice on an attribute (``dodge 1D`` on Agility)."""

    name: str
    attribute: str
    dice: DieCode

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "attribute": self.attribute, "dice": str(self.dice)}


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon: natural damage code, attribute to hit, kind, hands, the skill adding to-hit dice, training.

    ``training`` is the weapon-training level (every two levels: +1 critical stage); ``skill`` names the
    sheet skill whose dice add to the to-hit roll (seed: "training is also applied onto these base
    attribute dice rolls").
    """

    name: str
    damage: DieCode
    attribute: str = "coordination"
    kind: str = "cutting"
    hands: int = 1
    skill: str = ""
    training: int = 0

    @property
    def ranged(self) -> bool:
        return self.kind in RANGED_KINDS

    @property
    def melee(self) -> bool:
        return self.kind in MELEE_KINDS

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "damage": str(self.damage),
            "attribute": self.attribute,
            "kind": self.kind,
            "hands": self.hands,
            "skill": self.skill,
            "training": self.training,
        }


@dataclass(frozen=True, slots=True)
class Sheet(StoredOnce):
    name: str
    physique: DieCode = TWO_D
    agility: DieCode = TWO_D
    coordination: DieCode = TWO_D
    perception: DieCode = TWO_D
    intellect: DieCode = TWO_D
    acumen: DieCode = TWO_D
    charisma: DieCode = TWO_D
    skills: tuple[Skill, ...] = ()
    hp_max: int = 10
    hp: int | None = None  # None: at max (a fresh sheet)
    free_actions: int = 1
    parry_limit: int = 2
    dodge_limit: int = 1
    healing_level: int = 0
    restoration_level: int = 0
    shield_av: int = 0  # 0: no shield
    armour_ar: int = 0
    armour_class: str = "light"
    armour_name: str = ""
    movement: int = 6  # tiles per turn; half of it is a free action
    dual_wield_trained: bool = False
    unarmed_trained: bool = False
    weapons: tuple[Weapon, ...] = field(default_factory=tuple)
    _stored: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)  # StoredOnce

    # -- reading ---------------------------------------------------------------------------------------
    def attribute(self, name: str) -> DieCode:
        key = name.strip().lower()
        if key not in ATTRIBUTES:
            raise NotFoundAttribute(name)
        return getattr(self, key)

    def skill(self, name: str) -> Skill | None:
        key = name.strip().lower()
        return next((s for s in self.skills if s.name == key), None)

    def skill_dice(self, name: str) -> DieCode:
        found = self.skill(name) if name else None
        return found.dice if found else DieCode(0)

    def weapon(self, name: str) -> Weapon:
        key = name.strip().lower()
        for weapon in self.weapons:
            if weapon.name.lower() == key:
                return weapon
        raise InvalidInput(
            f"{self.name} has no weapon `{name}`. Weapons: {', '.join(w.name for w in self.weapons) or 'none'}."
        )

    @property
    def current_hp(self) -> int:
        return self.hp_max if self.hp is None else self.hp

    @property
    def has_shield(self) -> bool:
        return self.shield_av > 0

    # -- storing ---------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        for attr in ATTRIBUTES:
            out[attr] = str(getattr(self, attr))
        out["skills"] = [s.to_dict() for s in self.skills]
        for key in _PLAIN_FIELDS:
            out[key] = getattr(self, key)
        out["weapons"] = [w.to_dict() for w in self.weapons]
        return out

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Sheet:
        return sheet_from_dict(raw)


_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(Sheet) if f.default is not dataclasses.MISSING
}


class NotFoundAttribute(InvalidInput):
    def __init__(self, name: str) -> None:
        super().__init__(f"`{name}` is not a D6 attribute. Attributes: {', '.join(ATTRIBUTES)}.")


_INT_FIELDS: dict[str, tuple[int, int]] = {
    "hp_max": (1, MAX_HP),
    "free_actions": (0, MAX_LIMIT),
    "parry_limit": (0, MAX_LIMIT),
    "dodge_limit": (0, MAX_LIMIT),
    "healing_level": (0, MAX_LIMIT),
    "restoration_level": (0, MAX_LIMIT),
    "shield_av": (0, 100),
    "armour_ar": (0, 100),
    "movement": (0, 1000),
}
_BOOL_FIELDS = ("dual_wield_trained", "unarmed_trained")
_PLAIN_FIELDS = (
    "hp_max",
    "hp",
    "free_actions",
    "parry_limit",
    "dodge_limit",
    "healing_level",
    "restoration_level",
    "shield_av",
    "armour_ar",
    "armour_class",
    "armour_name",
    "movement",
    "dual_wield_trained",
    "unarmed_trained",
)
_KNOWN_KEYS = {"name", "skills", "weapons", *ATTRIBUTES, *_PLAIN_FIELDS}


class _Collector:
    """Collects problems instead of stopping at the first one."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def add(self, path: str, problem: str) -> None:
        self.problems.append(FieldProblem(path, problem))

    def code(self, raw: Any, path: str, default: DieCode | None = None) -> DieCode:
        if raw is None and default is not None:
            return default
        if not isinstance(raw, str):
            self.add(path, f"must be a die code like `3D+1`, not {raw!r}")
            return default or DieCode(0)
        try:
            return DieCode.parse(raw)
        except InvalidInput as err:
            self.add(path, err.reason)
            return default or DieCode(0)

    def integer(self, raw: Any, path: str, low: int, high: int, default: int) -> int:
        if raw is None:
            return default
        if isinstance(raw, bool) or not isinstance(raw, int):
            self.add(path, f"must be a whole number, not {raw!r}")
            return default
        if not low <= raw <= high:
            self.add(path, f"must be between {low} and {high}, not {raw}")
            return default
        return raw

    def boolean(self, raw: Any, path: str, default: bool) -> bool:
        if raw is None:
            return default
        if not isinstance(raw, bool):
            self.add(path, f"must be true or false, not {raw!r}")
            return default
        return raw

    def text(self, raw: Any, path: str, default: str = "", required: bool = False, limit: int = 80) -> str:
        if raw is None or raw == "":
            if required:
                self.add(path, "is required")
            return default
        if not isinstance(raw, str):
            self.add(path, f"must be text, not {raw!r}")
            return default
        if len(raw) > limit:
            self.add(path, f"is longer than {limit} characters")
            return raw[:limit]
        return raw

    def choice(self, raw: Any, path: str, choices: tuple[str, ...], default: str) -> str:
        if raw is None:
            return default
        value = raw.lower() if isinstance(raw, str) else raw
        if value not in choices:
            self.add(path, f"must be one of {', '.join(choices)}, not {raw!r}")
            return default
        return value


def weapon_from_dict(raw: Any, path: str = "weapon", col: _Collector | None = None) -> Weapon:
    """One weapon; problems go to ``col`` (or raise at once when no collector is given)."""
    own = col is None
    col = col or _Collector()
    if not isinstance(raw, Mapping):
        col.add(path, "must be a table of weapon fields")
        if own:
            raise ValidationError(col.problems, "Weapon")
        return Weapon("?", DieCode(0))
    for key in raw:
        if key not in {f.name for f in dataclasses.fields(Weapon)}:
            col.add(f"{path}.{key}", "is not a weapon field")
    weapon = Weapon(
        name=col.text(raw.get("name"), f"{path}.name", "?", required=True),
        damage=col.code(raw.get("damage"), f"{path}.damage") if "damage" in raw else _missing(col, path),
        attribute=col.choice(raw.get("attribute"), f"{path}.attribute", HIT_ATTRIBUTES, "coordination"),
        kind=col.choice(raw.get("kind"), f"{path}.kind", WEAPON_KINDS, "cutting"),
        hands=_hands(col, raw.get("hands"), f"{path}.hands"),
        skill=col.text(raw.get("skill"), f"{path}.skill").strip().lower(),
        training=col.integer(raw.get("training"), f"{path}.training", 0, MAX_LIMIT, 0),
    )
    if own and col.problems:
        raise ValidationError(col.problems, "Weapon")
    return weapon


def _missing(col: _Collector, path: str) -> DieCode:
    col.add(f"{path}.damage", "is required (a die code like `1D+2`)")
    return DieCode(0)


def _hands(col: _Collector, raw: Any, path: str) -> int:
    if raw is None:
        return 1
    if raw not in (1, 2) or isinstance(raw, bool):
        col.add(path, f"must be 1 or 2, not {raw!r}")
        return 1
    return raw


def sheet_from_dict(raw: Mapping[str, Any]) -> Sheet:
    """Build and validate a sheet; every problem is reported with its field path (ValidationError)."""
    col = _Collector()
    if not isinstance(raw, Mapping):
        raise ValidationError(FieldProblem("", "a sheet must be a table of fields"), "Sheet")
    for key in raw:
        if key not in _KNOWN_KEYS:
            col.add(str(key), "is not a D6 sheet field")
    name = col.text(raw.get("name"), "name", "?", required=True)
    attrs = {a: col.code(raw.get(a), a, DieCode(2)) for a in ATTRIBUTES}
    skills: list[Skill] = []
    raw_skills = raw.get("skills", [])
    if not isinstance(raw_skills, list):
        col.add("skills", "must be a list")
        raw_skills = []
    seen: set[str] = set()
    for i, item in enumerate(raw_skills):
        path = f"skills[{i}]"
        if not isinstance(item, Mapping):
            col.add(path, "must be a table with name, attribute, dice")
            continue
        sname = col.text(item.get("name"), f"{path}.name", "?", required=True).strip().lower()
        if sname in ATTRIBUTES:
            col.add(f"{path}.name", "is an attribute, not a skill")
        if sname in seen:
            col.add(f"{path}.name", f"`{sname}` appears twice")
        seen.add(sname)
        attribute = col.choice(item.get("attribute"), f"{path}.attribute", ATTRIBUTES, "agility")
        if "attribute" not in item:
            col.add(f"{path}.attribute", "is required")
        skills.append(Skill(sname, attribute, col.code(item.get("dice"), f"{path}.dice", DieCode(0))))
    ints = {k: col.integer(raw.get(k), k, lo, hi, _DEFAULTS[k]) for k, (lo, hi) in _INT_FIELDS.items()}
    hp = raw.get("hp")
    if hp is not None:
        hp = col.integer(hp, "hp", -2 * MAX_HP, MAX_HP, 0)
        if hp > ints["hp_max"]:
            col.add("hp", f"cannot be above hp_max ({ints['hp_max']})")
    bools = {k: col.boolean(raw.get(k), k, False) for k in _BOOL_FIELDS}
    armour_class = col.choice(raw.get("armour_class"), "armour_class", ARMOUR_CLASSES, "light")
    armour_name = col.text(raw.get("armour_name"), "armour_name")
    weapons: list[Weapon] = []
    raw_weapons = raw.get("weapons", [])
    if not isinstance(raw_weapons, list):
        col.add("weapons", "must be a list")
        raw_weapons = []
    names: set[str] = set()
    for i, item in enumerate(raw_weapons):
        weapon = weapon_from_dict(item, f"weapons[{i}]", col)
        if weapon.name.lower() in names:
            col.add(f"weapons[{i}].name", f"`{weapon.name}` appears twice")
        names.add(weapon.name.lower())
        weapons.append(weapon)
    if col.problems:
        raise ValidationError(col.problems, f"Sheet `{name}`")
    return Sheet(
        name=name,
        **attrs,
        skills=tuple(skills),
        hp=hp,
        armour_class=armour_class,
        armour_name=armour_name,
        weapons=tuple(weapons),
        **ints,
        **bools,
    )


def validate(sheet: Sheet) -> Sheet:
    """Check a sheet built in code (the same checks as ``from_dict``)."""
    return sheet_from_dict(sheet.to_dict())


# -- /character set ----------------------------------------------------------------------------------
_ALIASES = {
    "hp": "hp",
    "hp_max": "hp_max",
    "max_hp": "hp_max",
    "maxhp": "hp_max",
    "shield": "shield_av",
    "av": "shield_av",
    "ar": "armour_ar",
    "armor_ar": "armour_ar",
    "armor_class": "armour_class",
    "armour": "armour_name",
    "armor": "armour_name",
}


def field_names() -> tuple[str, ...]:
    """Names offered by autocomplete for ``/character set field`` (any other name sets a skill)."""
    return (*ATTRIBUTES, "hp", *(f for f in _PLAIN_FIELDS if f != "hp"), *DEFAULT_SKILL_ATTRIBUTE)


def _normal(name: str) -> str:
    key = (name or "").strip().lower().replace(" ", "_").replace("-", "_")
    return _ALIASES.get(key, key)


def set_field(sheet: Sheet, field_name: str, value_text: str) -> Sheet:
    """``/character set``: a stat, ``hp``/``hp_max``, a per-system field, or any other name as a skill.

    Skills take ``1D`` or ``1D agility`` (the attribute it adds to; known skills have a default), and ``0D``
    removes the skill.
    """
    key = _normal(field_name)
    text = (value_text or "").strip()
    if not key:
        raise InvalidInput("Name a field to set.")
    data = sheet.to_dict()
    if key in ATTRIBUTES:
        data[key] = str(DieCode.parse(text))
    elif key in _INT_FIELDS or key == "hp":
        try:
            data[key] = int(text)
        except ValueError:
            raise InvalidInput(f"{key} takes a whole number, not `{value_text}`.") from None
        if key == "hp_max" and sheet.hp is not None and sheet.hp > data[key]:
            data["hp"] = data[key]
    elif key in _BOOL_FIELDS:
        low = text.lower()
        if low not in {"yes", "no", "true", "false", "on", "off", "1", "0"}:
            raise InvalidInput(f"{key} takes yes or no, not `{value_text}`.")
        data[key] = low in {"yes", "true", "on", "1"}
    elif key == "armour_class":
        data[key] = text.lower()
    elif key == "armour_name":
        data[key] = text
    elif key in ("name", "skills", "weapons"):
        raise InvalidInput(f"`{field_name}` cannot be set this way; use the character commands.")
    else:
        data["skills"] = _set_skill(sheet, key, text)
    return sheet_from_dict(data)


def _set_skill(sheet: Sheet, key: str, text: str) -> list[dict[str, Any]]:
    parts = text.split()
    if not parts:
        raise InvalidInput(f"Give `{key}` a die code, like `1D` or `1D agility`.")
    code = DieCode.parse(parts[0])
    existing = sheet.skill(key)
    attribute = (
        parts[1].lower()
        if len(parts) > 1
        else existing.attribute
        if existing
        else DEFAULT_SKILL_ATTRIBUTE.get(key, "")
    )
    if len(parts) > 2:
        raise InvalidInput(f"`{text}`: write the dice and at most one attribute, like `1D agility`.")
    if attribute not in ATTRIBUTES:
        raise InvalidInput(
            f"Say which attribute `{key}` adds to, like `{parts[0]} agility`. Attributes: {', '.join(ATTRIBUTES)}."
        )
    others = [s.to_dict() for s in sheet.skills if s.name != key]
    if code.dice == 0 and code.pips == 0:
        return others
    return [*others, Skill(key, attribute, code).to_dict()]
