"""Kaernest house rules (RULES.md §2 and its **house default** marks): one frozen object per channel.

RULES.md names one Kaernest house rule, the called-shot penalty (−3). The others here are the places where
the seed leaves a GM a real choice; each default is the decided reading, so a new channel plays RULES.md to
the letter. ``RULE_SPECS`` describes every rule for ``/gm rules``; ``set_rule`` sets one from text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.house_rules import RuleBook, RuleSpec

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
    # RULES.md §4: an unarmed attack's speed when the GM sets none.
    unarmed_speed: int = 4


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
    RuleSpec(
        "unarmed_speed",
        "int",
        4,
        "Speed of an unarmed attack when the GM sets none (RULES.md: 4).",
        (),
        1,
        30,
    ),
)

BOOK: RuleBook[HouseRules] = RuleBook("Kaernest", HouseRules, RULE_SPECS)


def rule_names() -> tuple[str, ...]:
    return BOOK.names()


def describe(house: HouseRules | None = None) -> tuple[dict, ...]:
    """Every rule as a plain dict (name, kind, allowed, default, help) plus its ``value`` in ``house``."""
    return BOOK.describe(house)


def parse_rule_value(name: str, text: str) -> int | bool | str:
    """The typed value of rule ``name`` written as ``text``; InvalidInput names the allowed values."""
    return BOOK.parse(name, text)


def set_rule(house: HouseRules, name: str, text: str) -> HouseRules:
    """A copy of ``house`` with rule ``name`` set from ``text`` (``/gm rules rule value``)."""
    return BOOK.set(house, name, text)


def to_dict(house: HouseRules) -> dict:
    return BOOK.to_dict(house)


def from_dict(raw: dict) -> HouseRules:
    """Rules saved by ``to_dict``; unknown keys are ignored, each known one is validated."""
    return BOOK.from_dict(raw)
