"""D6 house rules (RULES.md §3, every **house default**): a small frozen object per channel.

``/gm rules`` lists ``describe(house)`` and changes one rule with ``set_rule(house, name, text)``. Every
resolution that applied a house rule names the reading it used, so the GM can always see it.

``lock_ends_turn`` (RULES.md §4 "The D6 campaign", **house default** on): lock-in ends the turn when nothing
in the plan waits for the player (a Death Save still owed keeps it open), so a one-action turn is one
command; off, the turn stays open after lock-in (for narration) until `/turn end`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rules.house_rules import RuleBook, RuleSpec

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
    lock_ends_turn: bool = True

    def to_dict(self) -> dict[str, Any]:
        return BOOK.to_dict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> HouseRules:
        """Read stored rules; unknown keys are ignored, missing ones take the default, bad values refused."""
        return BOOK.from_dict(raw)


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
    RuleSpec(
        "lock_ends_turn",
        "bool",
        True,
        "Lock-in ends the turn when nothing waits for the player; off keeps it open until `/turn end`.",
        (),
    ),
)

BOOK: RuleBook[HouseRules] = RuleBook("D6", HouseRules, RULE_SPECS)


def rule_names() -> tuple[str, ...]:
    return BOOK.names()


def describe(house: HouseRules | None = None) -> tuple[dict[str, Any], ...]:
    """Every rule with its allowed values, default, help and current value."""
    return BOOK.describe(house)


def parse_value(name: str, text: str) -> Any:
    """Turn ``text`` into a value for rule ``name``; InvalidInput names the allowed values."""
    return BOOK.parse(name, text)


def set_rule(house: HouseRules, name: str, text: str) -> HouseRules:
    """A copy of ``house`` with one rule set from text (``/gm rules rule value``)."""
    return BOOK.set(house, name, text)


def reset_rule(house: HouseRules, name: str) -> HouseRules:
    return BOOK.reset(house, name)
