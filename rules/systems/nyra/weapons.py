"""Weapons and their damage (seed "Base Weapon Damage", the Short Sword / Nodachi / Carnifex stubs;
RULES.md §1 "Damage").

Damage for a type reads ``XdY+F``: X dice of Y sides (Base Rolled Damage) plus F (Base Flat Damage); a type
listed ``N/A`` cannot be chosen. A crafted weapon keeps its listed damage and its crafting (material, the
smith's roll-under bonus, one Hone), so a new Hone can replace the old one (crafting.py).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

from rules.errors import InvalidInput, NotAllowed, ValidationError
from rules.systems.nyra.validation import Problems, join


class DamageType(enum.Enum):
    P = "P"
    S = "S"
    C = "C"
    B = "B"

    @property
    def word(self) -> str:
        return _WORDS[self]

    @classmethod
    def parse(cls, text: str | DamageType) -> DamageType:
        if isinstance(text, DamageType):
            return text
        key = (text or "").strip().lower()
        for member, names in _NAMES.items():
            if key in names:
                return member
        raise InvalidInput(
            f"`{text}` is not a damage type; use P (piercing), S (slashing), C (cleaving) or B (blunt)."
        )


_WORDS = {DamageType.P: "Piercing", DamageType.S: "Slashing", DamageType.C: "Cleaving", DamageType.B: "Blunt"}
_NAMES = {
    DamageType.P: {"p", "piercing", "pierce", "thrust", "stab"},
    DamageType.S: {"s", "slashing", "slash"},
    DamageType.C: {"c", "cleaving", "cleave", "chop"},
    DamageType.B: {"b", "blunt", "bludgeoning", "bash", "crush"},
}

STATS = ("STR", "AGI", "CON", "MAG", "CHA", "WIS", "INT")
PRIMARY_STATS = ("STR", "AGI", "CON")
MAX_DICE = 20
MAX_SIDES = 100
_DICE = re.compile(r"^\s*(\d{1,2})\s*[dD]\s*(\d{1,3})\s*(?:([+-])\s*(\d{1,3}))?\s*$")
NOT_AVAILABLE = "N/A"


@dataclass(frozen=True, slots=True)
class DamageDice:
    """``count``d``sides``+``flat``."""

    count: int
    sides: int
    flat: int = 0

    @classmethod
    def parse(cls, text: str) -> DamageDice:
        match = _DICE.match(text or "")
        if not match:
            raise InvalidInput(f"`{text}` is not weapon damage; write it like `2d6+2`, `3d10` or `2d10-3`.")
        count, sides = int(match[1]), int(match[2])
        flat = int(match[4] or 0) * (-1 if match[3] == "-" else 1)
        if not 1 <= count <= MAX_DICE or not 2 <= sides <= MAX_SIDES:
            raise InvalidInput(f"`{text}`: weapon damage needs 1..{MAX_DICE} dice of 2..{MAX_SIDES} sides.")
        return cls(count, sides, flat)

    def plus_flat(self, extra: int) -> DamageDice:
        return DamageDice(self.count, self.sides, self.flat + extra)

    def __str__(self) -> str:
        if self.flat > 0:
            return f"{self.count}d{self.sides}+{self.flat}"
        if self.flat < 0:
            return f"{self.count}d{self.sides}{self.flat}"
        return f"{self.count}d{self.sides}"


@dataclass(frozen=True, slots=True)
class Material:
    """A crafting material's damage modification per type (seed: Oscite P +3, S +3, C +1, B −3)."""

    name: str
    contribution: Mapping[DamageType, int]

    def for_type(self, damage_type: DamageType) -> int:
        return self.contribution.get(damage_type, 0)

    def to_dict(self) -> dict:
        return {"name": self.name, **{t.value: self.contribution.get(t, 0) for t in DamageType}}


@dataclass(frozen=True, slots=True)
class Hone:
    """A Hone: a flat damage bonus on a melee weapon; one at a time (seed: Hone III, +3)."""

    name: str
    bonus: int

    def to_dict(self) -> dict:
        return {"name": self.name, "bonus": self.bonus}


@dataclass(frozen=True, slots=True)
class Crafting:
    """What a smith did to a listed weapon (seed "Base Flat Damage" formula)."""

    material: Material | None = None
    smith_bonus: int = 0
    hone: Hone | None = None

    def flat_for(self, damage_type: DamageType) -> int:
        return (
            (self.material.for_type(damage_type) if self.material else 0)
            + self.smith_bonus
            + (self.hone.bonus if self.hone else 0)
        )

    def to_dict(self) -> dict:
        return {
            "material": self.material.to_dict() if self.material else None,
            "smith_bonus": self.smith_bonus,
            "hone": self.hone.to_dict() if self.hone else None,
        }


KNOWN_TRAITS = ("Swiftness", "Impact", "Mastercraft", "Affinity")


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon as a sheet carries it. ``listed`` is the damage before crafting (None = N/A)."""

    name: str
    skill: str
    modifier: str
    delay: int
    listed: Mapping[DamageType, DamageDice | None]
    traits: tuple[str, ...] = ()
    energy_cost: int = 0
    durability: int | None = None
    crafting: Crafting | None = None
    based_on: str | None = None
    notes: str = ""

    def damage_for(self, damage_type: DamageType) -> DamageDice | None:
        """Base Weapon Damage for a type: listed XdY+F plus the crafting's flat contributions."""
        listed = self.listed.get(damage_type)
        if listed is None:
            return None
        return listed.plus_flat(self.crafting.flat_for(damage_type)) if self.crafting else listed

    @property
    def available_types(self) -> tuple[DamageType, ...]:
        return tuple(t for t in DamageType if self.listed.get(t) is not None)

    def require_type(self, damage_type: DamageType) -> DamageDice:
        dice = self.damage_for(damage_type)
        if dice is None:
            available = ", ".join(f"{t.value} ({t.word})" for t in self.available_types)
            raise NotAllowed(
                f"The {self.name} has no {damage_type.word} damage (N/A). Choose one of: {available}."
            )
        return dice

    def trait_stacks(self, trait: str) -> int:
        """How many times a trait is listed (``Affinity`` twice = two stacks)."""
        return sum(1 for t in self.traits if t.strip().lower() == trait.lower())

    @property
    def unknown_traits(self) -> tuple[str, ...]:
        known = {t.lower() for t in KNOWN_TRAITS}
        return tuple(t for t in self.traits if t.strip().lower() not in known)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "skill": self.skill,
            "modifier": self.modifier,
            "delay": self.delay,
            "damage": {
                t.value: (str(self.listed[t]) if self.listed.get(t) else NOT_AVAILABLE) for t in DamageType
            },
            "traits": list(self.traits),
            "energy_cost": self.energy_cost,
            "durability": self.durability,
            "crafting": self.crafting.to_dict() if self.crafting else None,
            "based_on": self.based_on,
            "notes": self.notes,
        }

    @classmethod
    def from_dict(cls, raw: dict) -> Weapon:
        problems = Problems()
        weapon = parse_weapon(raw, "weapon", problems)
        if problems or weapon is None:
            raise ValidationError(problems.items, "The weapon")
        return weapon


def parse_material(raw: object, path: str, problems: Problems) -> Material | None:
    body = problems.mapping(raw, path)
    if body is None:
        return None
    name = problems.text(body.get("name"), join(path, "name"))
    contribution: dict[DamageType, int] = {}
    for t in DamageType:
        value = problems.integer(body.get(t.value, 0), join(path, t.value), minimum=-50, maximum=50)
        if value is not None:
            contribution[t] = value
    extra = set(body) - {"name", *(t.value for t in DamageType)}
    for key in sorted(extra):
        problems.add(join(path, key), "is not a damage type (P, S, C, B)")
    if name is None or len(contribution) != len(DamageType) or extra:
        return None
    return Material(name, contribution)


def parse_hone(raw: object, path: str, problems: Problems) -> Hone | None:
    body = problems.mapping(raw, path)
    if body is None:
        return None
    name = problems.text(body.get("name"), join(path, "name"))
    bonus = problems.integer(body.get("bonus"), join(path, "bonus"), minimum=0, maximum=50)
    if name is None or bonus is None:
        return None
    return Hone(name, bonus)


def parse_crafting(raw: object, path: str, problems: Problems) -> Crafting | None:
    body = problems.mapping(raw, path)
    if body is None:
        return None
    before = len(problems)
    material = None
    if body.get("material") is not None:
        material = parse_material(body["material"], join(path, "material"), problems)
    hone = None
    if body.get("hone") is not None:
        hone = parse_hone(body["hone"], join(path, "hone"), problems)
    smith = problems.integer(body.get("smith_bonus", 0), join(path, "smith_bonus"), minimum=0, maximum=50)
    if len(problems) > before or smith is None:
        return None
    return Crafting(material, smith, hone)


def parse_weapon(raw: object, path: str, problems: Problems) -> Weapon | None:
    """A weapon from its dict form; every problem is noted under ``path``. None when any was found."""
    body = problems.mapping(raw, path)
    if body is None:
        return None
    before = len(problems)
    name = problems.text(body.get("name"), join(path, "name"))
    skill = problems.text(body.get("skill"), join(path, "skill"))
    modifier_raw = body.get("modifier")
    modifier = modifier_raw.strip().upper() if isinstance(modifier_raw, str) else None
    if modifier not in STATS:
        problems.add(join(path, "modifier"), f"must be one of {', '.join(STATS)}, not {modifier_raw!r}")
    # RULES.md §4: a Delay of at least 1, or one turn would allow unlimited strikes.
    delay = problems.integer(body.get("delay"), join(path, "delay"), minimum=1, maximum=50)
    energy = problems.integer(body.get("energy_cost", 0), join(path, "energy_cost"), minimum=0, maximum=500)
    durability = None
    if body.get("durability") is not None:
        durability = problems.integer(body["durability"], join(path, "durability"), minimum=0, maximum=10000)
    listed: dict[DamageType, DamageDice | None] = {}
    damage = problems.mapping(body.get("damage"), join(path, "damage"))
    if damage is not None:
        for key in damage:
            try:
                DamageType.parse(str(key))
            except InvalidInput:
                problems.add(join(join(path, "damage"), str(key)), "is not a damage type (P, S, C, B)")
        for t in DamageType:
            text = next((v for k, v in damage.items() if str(k).strip().upper() == t.value), NOT_AVAILABLE)
            if not isinstance(text, str):
                problems.add(
                    join(join(path, "damage"), t.value), f"needs text like `2d6+2` or `N/A`, not {text!r}"
                )
            elif text.strip().upper() in {NOT_AVAILABLE, "NA", "-", ""}:
                listed[t] = None
            else:
                try:
                    listed[t] = DamageDice.parse(text)
                except InvalidInput as err:
                    problems.add(join(join(path, "damage"), t.value), err.reason)
        if damage and all(v is None for v in listed.values()) and len(listed) == len(DamageType):
            problems.add(join(path, "damage"), "needs at least one damage type that is not N/A")
    traits_raw = problems.sequence(body.get("traits", []), join(path, "traits"))
    traits: list[str] = []
    for i, trait in enumerate(traits_raw or []):
        text = problems.text(trait, join(join(path, "traits"), i), max_length=40)
        if text is not None:
            traits.append(text)
    crafting = None
    if body.get("crafting") is not None:
        crafting = parse_crafting(body["crafting"], join(path, "crafting"), problems)
    based_on = body.get("based_on")
    if based_on is not None and not isinstance(based_on, str):
        problems.add(join(path, "based_on"), "needs a weapon name")
    notes = body.get("notes", "")
    if not isinstance(notes, str):
        problems.add(join(path, "notes"), "needs text")
    if len(problems) > before:
        return None
    return Weapon(
        name,  # type: ignore[arg-type]
        skill,  # type: ignore[arg-type]
        modifier,  # type: ignore[arg-type]
        delay,  # type: ignore[arg-type]
        listed,
        tuple(traits),
        energy,  # type: ignore[arg-type]
        durability,
        crafting,
        based_on,
        notes,
    )
