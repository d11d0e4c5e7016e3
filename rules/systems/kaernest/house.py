"""Kaernest house rules (RULES.md §2 and its **house default** marks): one frozen object per channel.

RULES.md names one Kaernest house rule, the called-shot penalty (−3). The others here are the places where
the seed leaves a GM a real choice; each default is the decided reading, so a new channel plays RULES.md to
the letter. ``RULE_SPECS`` describes every rule for ``/gm rules``; ``set_rule`` sets one from text.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from rules.errors import InvalidInput

NpcInitiative = Literal["fixed", "roll"]


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The Kaernest house rules of one channel; the defaults are RULES.md §2."""

    # RULES.md §2 "Called shots": a named location costs this much on the target.
    called_shot_penalty: int = 3
    # RULES.md §2 "Time": NPCs use 6 instead of the d12 (``fixed``); ``roll`` gives them a d12 like players.
    npc_initiative: NpcInitiative = "fixed"
    # The seed lets a player add Luck to initiative; a GM may forbid it.
    luck_on_initiative: bool = True
    # RULES.md §2 "Attack": the basic attack is a simple action, +3.
    simple_action_bonus: int = 3
    # RULES.md §2 "Attack": each wound is −1 to every later roll's target.
    wound_penalty: int = 1
    # Seed "Wounds": a called-shot wound has a specific effect *instead of* the −1; ``True`` adds the −1 too.
    called_wound_penalty: bool = False
    # RULES.md §2 active defense: an interrupted attack restarts with speed + 1.
    interrupt_speed_penalty: int = 1
    # RULES.md §2 active defense: staying defensive without attacking gives −1 speed on the next action.
    defensive_speed_bonus: int = 1
    # RULES.md §2 says Reflex + skill for active defense (no armour penalty); ``True`` subtracts it too.
    armour_penalty_on_active_defense: bool = False


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """What ``/gm rules`` shows for one rule: its name, kind, allowed values, default and help."""

    name: str
    kind: Literal["int", "bool", "choice"]
    default: int | bool | str
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def allowed(self) -> str:
        """The allowed values in words (``fixed, roll``; ``0..12``; ``on, off``)."""
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "on, off"
        return f"{self.minimum}..{self.maximum}"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "allowed": self.allowed,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "help": self.help,
        }


_DEFAULTS = HouseRules()

RULE_SPECS: tuple[RuleSpec, ...] = (
    RuleSpec(
        "called_shot_penalty", "int", 3, "Penalty to the target of a called shot (RULES.md: 3).", (), 0, 12
    ),
    RuleSpec(
        "npc_initiative",
        "choice",
        "fixed",
        "NPC initiative: 'fixed' uses 6 instead of the d12, 'roll' rolls a d12.",
        ("fixed", "roll"),
    ),
    RuleSpec("luck_on_initiative", "bool", True, "Players may add their Luck to an initiative roll."),
    RuleSpec("simple_action_bonus", "int", 3, "Bonus of a basic (simple) attack (RULES.md: 3).", (), 0, 12),
    RuleSpec("wound_penalty", "int", 1, "Penalty per wound on every later roll's target.", (), 0, 6),
    RuleSpec(
        "called_wound_penalty",
        "bool",
        False,
        "A called-shot wound also gives the standard wound penalty (the seed: only its specific effect).",
    ),
    RuleSpec(
        "interrupt_speed_penalty",
        "int",
        1,
        "Speed added to an attack interrupted by an active defense (RULES.md: 1).",
        (),
        0,
        6,
    ),
    RuleSpec(
        "defensive_speed_bonus",
        "int",
        1,
        "Speed taken off the next action after holding a defensive posture (RULES.md: 1).",
        (),
        0,
        6,
    ),
    RuleSpec(
        "armour_penalty_on_active_defense",
        "bool",
        False,
        "Active defense also suffers the armour's Reflex penalty (RULES.md: only passive defense does).",
    ),
)

_SPECS = {spec.name: spec for spec in RULE_SPECS}
_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}

# The description and the dataclass must list the same rules with the same defaults.
assert [s.name for s in RULE_SPECS] == [f.name for f in dataclasses.fields(HouseRules)]
assert all(getattr(_DEFAULTS, s.name) == s.default for s in RULE_SPECS)


def rule_names() -> tuple[str, ...]:
    return tuple(_SPECS)


def describe(house: HouseRules | None = None) -> tuple[dict, ...]:
    """Every rule as a plain dict (name, kind, allowed, default, help) plus its ``value`` in ``house``."""
    house = house or _DEFAULTS
    return tuple({**spec.to_dict(), "value": getattr(house, spec.name)} for spec in RULE_SPECS)


def parse_rule_value(name: str, text: str) -> int | bool | str:
    """The typed value of rule ``name`` written as ``text``; InvalidInput names the allowed values."""
    key = (name or "").strip().lower().replace("-", "_").replace(" ", "_")
    spec = _SPECS.get(key)
    if spec is None:
        raise InvalidInput(f"`{name}` is not a Kaernest house rule. Rules: {', '.join(_SPECS)}.")
    raw = (text or "").strip().lower()
    if spec.kind == "bool":
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
    elif spec.kind == "choice":
        if raw in spec.choices:
            return raw
    else:
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is not None and spec.minimum <= value <= spec.maximum:  # type: ignore[operator]
            return value
    raise InvalidInput(f"`{text}` is not a value for `{spec.name}`. Allowed: {spec.allowed}.")


def set_rule(house: HouseRules, name: str, text: str) -> HouseRules:
    """A copy of ``house`` with rule ``name`` set from ``text`` (``/gm rules rule value``)."""
    value = parse_rule_value(name, text)
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    return dataclasses.replace(house, **{key: value})


def to_dict(house: HouseRules) -> dict:
    return {f.name: getattr(house, f.name) for f in dataclasses.fields(HouseRules)}


def from_dict(raw: dict) -> HouseRules:
    """Rules saved by ``to_dict``; unknown keys are ignored, each known one is validated as text."""
    house = _DEFAULTS
    for key, value in (raw or {}).items():
        if key in _SPECS:
            text = ("on" if value else "off") if isinstance(value, bool) else str(value)
            house = set_rule(house, key, text)
    return house
