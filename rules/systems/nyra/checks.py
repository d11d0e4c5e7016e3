"""Checks and the competitive check (RULES.md §1 "Checks" and "Strike"; the seed's duel).

A check rolls 1d10 and succeeds when the roll is at most the effective skill for the difficulty:
Easy 2×skill, Normal skill, Difficult ⌊skill/2⌋, Impossible "roll < skill/4" (so at most ⌊(skill−1)/4⌋),
Critical only a 1. A natural 1 (or, with Affinity, any roll in the widened critical range) always succeeds
and is a critical success; a natural 10 always fails and is a critical failure. Margin = effective − roll.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput


class Difficulty(enum.Enum):
    EASY = "easy"
    NORMAL = "normal"
    DIFFICULT = "difficult"
    IMPOSSIBLE = "impossible"
    CRITICAL = "critical"

    @classmethod
    def parse(cls, text: str | Difficulty | None) -> Difficulty:
        if isinstance(text, Difficulty):
            return text
        value = (text or "normal").strip().lower()
        for member in cls:
            if member.value == value:
                return member
        raise InvalidInput(f"`{text}` is not a difficulty; choose one of: {', '.join(m.value for m in cls)}.")


# The highest natural roll that can ever be a critical success: a 10 always fails (RULES.md §1).
MAX_CRITICAL_RANGE = 9


def effective_skill(skill: int, difficulty: Difficulty) -> int:
    """The highest roll that succeeds at this difficulty (before natural 1 / natural 10)."""
    if difficulty is Difficulty.EASY:
        return 2 * skill
    if difficulty is Difficulty.NORMAL:
        return skill
    if difficulty is Difficulty.DIFFICULT:
        return skill // 2
    if difficulty is Difficulty.IMPOSSIBLE:
        # "roll < skill/4" ⇔ 4·roll < skill ⇔ roll ≤ ⌊(skill−1)/4⌋; kept ≥ 0 so a margin stays meaningful.
        return max(0, (skill - 1) // 4)
    return 1  # Critical: only a 1 succeeds.


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One resolved check: what was rolled against what, and how it came out."""

    skill_name: str
    skill: int
    difficulty: Difficulty
    bonus: int
    effective: int
    critical_range: int
    die: Die
    success: bool
    critical_success: bool
    critical_failure: bool
    margin: int

    @property
    def roll(self) -> int:
        return self.die.value

    @property
    def dice(self) -> tuple[Die, ...]:
        return (self.die,)

    def to_dict(self) -> dict:
        return {
            "skill_name": self.skill_name,
            "skill": self.skill,
            "difficulty": self.difficulty.value,
            "bonus": self.bonus,
            "effective": self.effective,
            "critical_range": self.critical_range,
            "die": self.die.to_dict(),
            "success": self.success,
            "critical_success": self.critical_success,
            "critical_failure": self.critical_failure,
            "margin": self.margin,
        }

    @classmethod
    def from_dict(cls, raw: dict) -> CheckResult:
        return cls(
            raw["skill_name"],
            int(raw["skill"]),
            Difficulty.parse(raw["difficulty"]),
            int(raw["bonus"]),
            int(raw["effective"]),
            int(raw["critical_range"]),
            Die.from_dict(raw["die"]),
            bool(raw["success"]),
            bool(raw["critical_success"]),
            bool(raw["critical_failure"]),
            int(raw["margin"]),
        )


def resolve_check(
    skill_name: str,
    skill: int,
    difficulty: Difficulty,
    die: Die,
    *,
    bonus: int = 0,
    critical_range: int = 1,
) -> CheckResult:
    """Judge a drawn d10. ``bonus`` is a GM circumstance modifier added to the effective skill;
    ``critical_range``: rolls 1..critical_range are critical successes (Affinity widens it; never 10)."""
    critical_range = max(1, min(MAX_CRITICAL_RANGE, critical_range))
    effective = effective_skill(skill, difficulty) + bonus
    roll = die.value
    critical_failure = roll == 10
    critical_success = not critical_failure and roll <= critical_range
    success = critical_success or (not critical_failure and roll <= effective)
    return CheckResult(
        skill_name,
        skill,
        difficulty,
        bonus,
        effective,
        critical_range,
        die,
        success,
        critical_success,
        critical_failure,
        effective - roll,
    )


def roll_check(
    skill_name: str,
    skill: int,
    difficulty: Difficulty,
    dice: DiceSource,
    *,
    bonus: int = 0,
    critical_range: int = 1,
    label: str = "",
) -> CheckResult:
    """Draw one d10 and judge it."""
    die = dice.roll(10, label or f"{skill_name} check")
    return resolve_check(skill_name, skill, difficulty, die, bonus=bonus, critical_range=critical_range)


ContestResult = Literal["hit", "miss", "defended", "tie"]


def contest(attack: CheckResult, reaction: CheckResult | None) -> ContestResult:
    """The competitive check: a hit when the attacker succeeds and either there is no reaction, the defender
    fails, or the attacker's margin is strictly greater; ``tie`` on equal margins (the house rule decides)."""
    if not attack.success:
        return "miss"
    if reaction is None or not reaction.success:
        return "hit"
    if attack.margin > reaction.margin:
        return "hit"
    if attack.margin < reaction.margin:
        return "defended"
    return "tie"
