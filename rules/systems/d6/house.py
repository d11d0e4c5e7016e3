"""D6 house rules (RULES.md §3, every **house default**): a small frozen object per channel.

``/gm rules`` lists ``describe(house)`` and changes one rule with ``set_rule(house, name, text)``. Every
resolution that applied a house rule names the reading it used, so the GM can always see it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import FieldProblem, InvalidInput, ValidationError

ExplodeRule = Literal["halved", "full"]
WildOneRule = Literal["complication", "drop", "none"]
TakedownDice = Literal["d6", "d66"]
CriticalEffect = Literal["double_natural_dice", "double_damage", "none"]


@dataclass(frozen=True, slots=True)
class HouseRules:
    """One channel's D6 house rules; the defaults are what a new channel gets (RULES.md §3)."""

    explode: ExplodeRule = "halved"
    wild_one: WildOneRule = "complication"
    called_shot_bonus: int = 5
    throw_cap_dice: int = 20
    takedown_dice: TakedownDice = "d6"
    npc_last_gasp: bool = False
    critical_effect: CriticalEffect = "double_natural_dice"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> HouseRules:
        """Read stored rules; unknown keys are refused, missing ones take the default."""
        house = cls()
        problems: list[FieldProblem] = []
        for key, value in raw.items():
            try:
                house = set_rule(house, key, str(value))
            except InvalidInput as err:
                problems.append(FieldProblem(key, err.reason))
        if problems:
            raise ValidationError(problems, "House rules")
        return house


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """Machine-readable description of one house rule (for `/gm rules` listing and autocomplete)."""

    name: str
    type: Literal["choice", "int", "bool"]
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def allowed(self) -> str:
        if self.type == "choice":
            return " | ".join(self.choices)
        if self.type == "bool":
            return "on | off"
        return f"{self.minimum}..{self.maximum}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
        }


RULE_SPECS: tuple[RuleSpec, ...] = (
    RuleSpec(
        "explode",
        "choice",
        "halved",
        "Wild Die explosions: `halved` adds half the extra rolls (rounded down), `full` adds them whole.",
        ("halved", "full"),
    ),
    RuleSpec(
        "wild_one",
        "choice",
        "complication",
        "A 1 on the Wild Die: `complication` (counts, GM told), `drop` (it and the highest die go), `none`.",
        ("complication", "drop", "none"),
    ),
    RuleSpec("called_shot_bonus", "int", 5, "Added to the defender's save for a called shot.", (), 0, 30),
    RuleSpec(
        "throw_cap_dice", "int", 20, "Most D6 a throw off a height can deal (terminal velocity).", (), 2, 100
    ),
    RuleSpec(
        "takedown_dice",
        "choice",
        "d6",
        "Take-down damage per Physique die: `d6`, or `d66` (two d6 read as tens and units).",
        ("d6", "d66"),
    ),
    RuleSpec("npc_last_gasp", "bool", False, "NPCs enter Last Gasp at 0 HP instead of being out.", ()),
    RuleSpec(
        "critical_effect",
        "choice",
        "double_natural_dice",
        "A critical hit: `double_natural_dice` rolls twice the weapon's natural dice, `double_damage` doubles "
        "the damage dealt, `none` only flags it for the GM.",
        ("double_natural_dice", "double_damage", "none"),
    ),
)

_SPECS = {spec.name: spec for spec in RULE_SPECS}
_TRUE = {"on", "true", "yes", "1", "enabled"}
_FALSE = {"off", "false", "no", "0", "disabled"}


def rule_names() -> tuple[str, ...]:
    return tuple(_SPECS)


def describe(house: HouseRules | None = None) -> list[dict[str, Any]]:
    """Every rule with its allowed values, default, help and (if ``house`` is given) current value."""
    rows = []
    for spec in RULE_SPECS:
        row = spec.to_dict()
        row["allowed"] = spec.allowed
        if house is not None:
            row["value"] = getattr(house, spec.name)
        rows.append(row)
    return rows


def parse_value(name: str, text: str) -> Any:
    """Turn ``text`` into a value for rule ``name``; InvalidInput names the allowed values."""
    key = (name or "").strip().lower().replace("-", "_").replace(" ", "_")
    spec = _SPECS.get(key)
    if spec is None:
        raise InvalidInput(f"`{name}` is not a D6 house rule. Rules: {', '.join(_SPECS)}.")
    raw = (text or "").strip().lower()
    if spec.type == "choice":
        value = raw.replace("-", "_")
        if value not in spec.choices:
            raise InvalidInput(f"`{text}` is not allowed for {spec.name}. Allowed: {spec.allowed}.")
        return value
    if spec.type == "bool":
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise InvalidInput(f"`{text}` is not allowed for {spec.name}. Allowed: {spec.allowed}.")
    try:
        number = int(raw)
    except ValueError:
        raise InvalidInput(f"`{text}` is not a whole number; {spec.name} takes {spec.allowed}.") from None
    assert spec.minimum is not None and spec.maximum is not None
    if not spec.minimum <= number <= spec.maximum:
        raise InvalidInput(f"{number} is out of range for {spec.name}. Allowed: {spec.allowed}.")
    return number


def set_rule(house: HouseRules, name: str, text: str) -> HouseRules:
    """A copy of ``house`` with one rule set from text (``/gm rules rule value``)."""
    key = (name or "").strip().lower().replace("-", "_").replace(" ", "_")
    value = parse_value(key, text)
    return dataclasses.replace(house, **{key: value})


def reset_rule(house: HouseRules, name: str) -> HouseRules:
    key = (name or "").strip().lower().replace("-", "_")
    if key not in _SPECS:
        raise InvalidInput(f"`{name}` is not a D6 house rule. Rules: {', '.join(_SPECS)}.")
    return dataclasses.replace(house, **{key: _SPECS[key].default})
