"""What the change path needs from a bot, without Discord: a settable clock and a store with dice."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.store import Store
from rules.dice import RandomDice

START = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now


@dataclass
class FakeBot:
    """A bot process as the change path sees it: its store (engine and lock registry), clock and dice."""

    store: Store
    clock: Clock
    dice: Any = field(default_factory=lambda: RandomDice(1))

    def dice_source(self) -> Any:
        return self.dice
