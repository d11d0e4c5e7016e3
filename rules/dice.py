"""Dice sources: the only way any rule gets a random number (RULES.md §0).

Every rules operation receives a ``DiceSource`` and draws its dice from it in the documented order.
Three sources exist:

- ``RandomDice``  production: an owned ``random.Random`` (never the module-level ``random``);
- ``ScriptedDice`` tests: exact values in order; fails on an unexpected, wrong-sized or leftover roll;
- ``QueuedDice``  a GM's physical dice (``/gm dice``) consumed first, each marked as GM-entered,
  then the wrapped source.

Each draw returns a ``Die`` that records its sides, value and origin, so every resolution can show
every die in the order it was drawn.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from rules.errors import RulesError

DieOrigin = Literal["random", "gm", "script"]

MAX_SIDES = 1000


@dataclass(frozen=True, slots=True)
class Die:
    """One die as drawn: ``sides`` faces, showing ``value``; ``origin`` says who chose it."""

    sides: int
    value: int
    origin: DieOrigin = "random"
    label: str = ""

    @property
    def gm_entered(self) -> bool:
        return self.origin == "gm"

    def to_dict(self) -> dict:
        return {"sides": self.sides, "value": self.value, "origin": self.origin, "label": self.label}

    @classmethod
    def from_dict(cls, raw: dict) -> Die:
        return cls(int(raw["sides"]), int(raw["value"]), raw.get("origin", "random"), raw.get("label", ""))


class DiceSource(Protocol):
    """Anything that can draw one die. ``label`` names what the die is for (shown in logs)."""

    def roll(self, sides: int, label: str = "") -> Die: ...


def roll_many(dice: DiceSource, count: int, sides: int, label: str = "") -> tuple[Die, ...]:
    """Draw ``count`` dice of ``sides`` faces in order."""
    return tuple(dice.roll(sides, label) for _ in range(count))


def total(dice: Iterable[Die]) -> int:
    return sum(d.value for d in dice)


def _check_sides(sides: int) -> None:
    if not isinstance(sides, int) or sides < 1 or sides > MAX_SIDES:
        raise ValueError(f"a die needs 1..{MAX_SIDES} sides, not {sides!r}")


class RandomDice:
    """Production dice over an owned generator. Pass a seed for reproducible runs."""

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.Random(seed)

    def roll(self, sides: int, label: str = "") -> Die:
        _check_sides(sides)
        return Die(sides, self._rng.randint(1, sides), "random", label)


class ScriptError(AssertionError):
    """A scripted roll did not match what the code drew: a test failure, never a rules error."""


ScriptItem = int | tuple[int, int]


class ScriptedDice:
    """Dice for tests: each item is a value, or ``(sides, value)`` to also pin the die size.

    Fails (``ScriptError``) on a roll beyond the script, a value that does not fit the die, a die of
    the wrong size, and, at ``assert_done()`` or the end of a ``with`` block, on leftover values.
    """

    def __init__(self, script: Iterable[ScriptItem]) -> None:
        self._script: list[ScriptItem] = list(script)
        self._pos = 0
        self.drawn: list[Die] = []

    def roll(self, sides: int, label: str = "") -> Die:
        _check_sides(sides)
        if self._pos >= len(self._script):
            raise ScriptError(
                f"unexpected roll of a d{sides} ({label or 'no label'}) after {self._pos} scripted dice: "
                f"drawn so far {[d.value for d in self.drawn]}"
            )
        item = self._script[self._pos]
        if isinstance(item, tuple):
            want_sides, value = item
            if want_sides != sides:
                raise ScriptError(
                    f"scripted die #{self._pos + 1} is a d{want_sides} but the code rolled a d{sides} "
                    f"({label or 'no label'})"
                )
        else:
            value = item
        if not 1 <= value <= sides:
            raise ScriptError(f"scripted value {value} (#{self._pos + 1}) does not fit a d{sides} ({label})")
        self._pos += 1
        die = Die(sides, value, "script", label)
        self.drawn.append(die)
        return die

    @property
    def leftover(self) -> Sequence[ScriptItem]:
        return self._script[self._pos :]

    def assert_done(self) -> None:
        if self.leftover:
            raise ScriptError(f"{len(self.leftover)} scripted dice never rolled: {list(self.leftover)}")

    def __enter__(self) -> ScriptedDice:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.assert_done()


class QueuedDiceMismatch(RulesError):
    """A GM-queued value does not fit the die the rules asked for."""


class QueuedDice:
    """GM-entered physical dice first (marked ``gm``), then ``fallback``.

    A queued value that cannot be shown by the die being drawn (a 9 for a d6) stops the action with a
    clear error, so the GM can fix the queue; nothing is consumed silently.
    """

    def __init__(self, queue: Iterable[int], fallback: DiceSource) -> None:
        self._queue = list(queue)
        self._fallback = fallback

    def roll(self, sides: int, label: str = "") -> Die:
        _check_sides(sides)
        if self._queue:
            value = self._queue[0]
            if not 1 <= value <= sides:
                raise QueuedDiceMismatch(
                    f"The next queued die is {value}, but the rules need a d{sides} here ({label or 'a roll'}). "
                    "Clear or fix the queue with `/gm dice`."
                )
            self._queue.pop(0)
            return Die(sides, value, "gm", label)
        return self._fallback.roll(sides, label)

    @property
    def remaining(self) -> tuple[int, ...]:
        """What is still queued after the draws so far (the shell saves this back)."""
        return tuple(self._queue)
