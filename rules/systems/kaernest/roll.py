"""The Kaernest core roll (RULES.md §2 "Core roll"): 2d12, success when the sum is ≤ the target.

Rolling exactly the target is a critical success (on an attack it adds 1d12 to damage); failing by 12 or
more is a critical failure. Margin = target − roll. Every target is built from named ``Modifier``s so that a
renderer can show each one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.dice import DiceSource, Die

CRITICAL_FAILURE_BY = 12


@dataclass(frozen=True, slots=True)
class Modifier:
    """One named term of a target or a damage sum (``Grace +7``, ``wounds −2``)."""

    label: str
    value: int


def sum_of(modifiers: Iterable[Modifier]) -> int:
    return sum(m.value for m in modifiers)


@dataclass(frozen=True, slots=True)
class CoreRoll:
    """A 2d12 roll against ``target``: the two dice in draw order and what they mean."""

    target: int
    dice: tuple[Die, Die]

    @property
    def total(self) -> int:
        return self.dice[0].value + self.dice[1].value

    @property
    def margin(self) -> int:
        """Target − roll: ≥ 0 is a success, and how far it made (or missed) the target."""
        return self.target - self.total

    @property
    def success(self) -> bool:
        return self.total <= self.target

    @property
    def critical(self) -> bool:
        """Exactly the target (RULES.md §2)."""
        return self.total == self.target

    @property
    def critical_failure(self) -> bool:
        """Failing by 12 or more."""
        return self.margin <= -CRITICAL_FAILURE_BY


def roll_2d12(dice: DiceSource, target: int, label: str = "") -> CoreRoll:
    """Draw the two d12 of a core roll against ``target``."""
    first = dice.roll(12, label)
    second = dice.roll(12, label)
    return CoreRoll(target, (first, second))
