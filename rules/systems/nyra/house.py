"""Nyra house rules (RULES.md §1 "house default", and the readings the brief asks to make explicit).

A channel's rules are one frozen ``HouseRules``; ``RULE_SPECS`` describes each rule for ``/gm rules`` (name,
allowed values or type, default, help), and ``set_rule`` changes one rule from the text a GM typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.house_rules import RuleBook, RuleSpec

TieRule = Literal["reroll", "defender", "attacker"]
StanceRule = Literal["higher", "dodge", "defense"]
CriticalDamageRule = Literal["double", "roll_again", "off"]
AutoEndRule = Literal["actions", "strikes", "empty", "never"]


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Every Nyra house rule with the value a new channel gets."""

    tie_rule: TieRule = "reroll"
    tie_reroll_limit: int = 5
    default_stance: StanceRule = "higher"
    critical_damage: CriticalDamageRule = "double"
    track_durability: bool = False
    fumble_durability_loss: int = 5
    # RULES.md §1 "Delay": the turn ends when "nothing affordable is left" — a move counts, so leftover
    # delay after the last affordable strike can still go to a move (``actions``).
    auto_end_turn: AutoEndRule = "actions"
    # RULES.md §4: moving costs the delay the GM sets; this is the channel's default (``/move`` ``cost`` is
    # the GM's per-move override).
    move_cost: int = 0
    # RULES.md §4: off, the duel plays as written; on follows the Claymore passage ("is wielding a shield
    # and has the defense skill").
    defense_needs_shield: bool = False

    def to_dict(self) -> dict:
        return BOOK.to_dict(self)

    @classmethod
    def from_dict(cls, raw: dict) -> HouseRules:
        """Unknown keys are ignored (an old channel row), missing keys take the default; values are checked."""
        return BOOK.from_dict(raw)


_DEFAULTS = HouseRules()

RULE_SPECS: tuple[RuleSpec, ...] = (
    RuleSpec(
        "tie_rule",
        "choice",
        _DEFAULTS.tie_rule,
        "Equal margins on a strike: both roll again (reroll), or the defender / the attacker wins.",
        choices=("reroll", "defender", "attacker"),
    ),
    RuleSpec(
        "tie_reroll_limit",
        "int",
        _DEFAULTS.tie_reroll_limit,
        "With tie_rule reroll: how many re-rolls at most; still tied after that, the defender wins.",
        minimum=1,
        maximum=20,
    ),
    RuleSpec(
        "default_stance",
        "choice",
        _DEFAULTS.default_stance,
        "How a defender that chose no stance reacts: its higher skill of Dodge/Defense, or always one.",
        choices=("higher", "dodge", "defense"),
    ),
    RuleSpec(
        "critical_damage",
        "choice",
        _DEFAULTS.critical_damage,
        "A critical strike: double the rolled damage dice (no re-roll), roll them again and add, or nothing.",
        choices=("double", "roll_again", "off"),
    ),
    RuleSpec(
        "track_durability",
        "bool",
        _DEFAULTS.track_durability,
        "Weapons lose durability on a natural 10 strike (the seed gives no durability numbers, so off).",
    ),
    RuleSpec(
        "fumble_durability_loss",
        "int",
        _DEFAULTS.fumble_durability_loss,
        "Durability a weapon loses on a natural 10 strike when durability is tracked.",
        minimum=0,
        maximum=100,
    ),
    RuleSpec(
        "auto_end_turn",
        "choice",
        _DEFAULTS.auto_end_turn,
        "End a turn by itself when neither a strike nor a move (at move_cost) is affordable (actions), "
        "when no strike is (strikes), only at 0 delay (empty), or never.",
        choices=("actions", "strikes", "empty", "never"),
    ),
    RuleSpec(
        "move_cost",
        "int",
        _DEFAULTS.move_cost,
        "Delay a move costs when the GM gives no `cost` (RULES.md: 0).",
        minimum=0,
        maximum=100,
    ),
    RuleSpec(
        "defense_needs_shield",
        "bool",
        _DEFAULTS.defense_needs_shield,
        "Defense reacts only for a defender with a shield on its sheet (the Claymore passage); off: as the duel.",
    ),
)

BOOK: RuleBook[HouseRules] = RuleBook("Nyra", HouseRules, RULE_SPECS)


def describe_rules(house: HouseRules | None = None) -> tuple[dict, ...]:
    """Each rule's description plus its current value (``/gm rules`` without a value)."""
    return BOOK.describe(house)


def rule_names() -> tuple[str, ...]:
    return BOOK.names()


def parse_rule_value(name: str, text: str) -> str | bool | int:
    """The typed value of ``text`` for rule ``name``; ``InvalidInput`` names the allowed values."""
    return BOOK.parse(name, text)


def set_rule(house: HouseRules, name: str, text: str) -> HouseRules:
    """A copy of ``house`` with one rule set from text (``tie_rule defender``, ``track_durability on``)."""
    return BOOK.set(house, name, text)
