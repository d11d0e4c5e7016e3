"""Die codes and pool rolls with the Wild Die (seed: the "Wild dice have been nerfed" paragraph; RULES.md §3
"Dice codes").

``3D+2`` is three d6 plus two pips; three pips make a die. Every roll with at least one die has exactly one
Wild Die, drawn last, its explosions right after it (RULES.md §0 draw order). A Wild Die 6 explodes while it
shows 6; with the campaign's ``halved`` rule the extra rolls' sum is halved (rounded down) and added, the first
6 counting in full; ``full`` adds them whole. A 1 on the Wild Die's first roll follows ``wild_one``:
``complication`` (counts, the GM is told), ``drop`` (it and the highest other die are removed), ``none``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rules.dice import DiceSource, Die
from rules.errors import InvalidInput

ExplodeRule = Literal["halved", "full"]
WildOneRule = Literal["complication", "drop", "none"]

MAX_POOL_DICE = 100
MAX_WILD_EXPLOSIONS = 20  # re-rolls of one Wild Die; the chance of reaching it by luck is 6^-20
_CODE = re.compile(r"^\s*(\d{1,3})\s*[dD]\s*(?:([+-])\s*(\d{1,3}))?\s*$")


@dataclass(frozen=True, order=True, slots=True)
class DieCode:
    """A pool: ``dice`` d6 and ``pips`` (pips normalised so that 0 <= pips < 3 whenever dice allow)."""

    dice: int
    pips: int = 0

    def __post_init__(self) -> None:
        if self.dice < 0:
            raise InvalidInput(f"A die code cannot have {self.dice} dice.")

    @classmethod
    def of(cls, dice: int, pips: int = 0) -> DieCode:
        """Build a code, carrying every three pips into a die (``2D+4`` → ``3D+1``)."""
        if pips >= 3:
            dice, pips = dice + pips // 3, pips % 3
        return cls(dice, pips)

    @classmethod
    def parse(cls, text: str) -> DieCode:
        """``3D+2``, ``2d``, ``0D+1``, ``4D-1`` (case-insensitive). Anything else is refused."""
        match = _CODE.match(text or "")
        if not match:
            raise InvalidInput(f"`{text}` is not a die code. Write it like `3D+2`, `2D` or `4D-1`.")
        dice, sign, pips = int(match[1]), match[2], int(match[3] or 0)
        if dice > MAX_POOL_DICE:
            raise InvalidInput(f"`{text}` has {dice} dice; at most {MAX_POOL_DICE} can be rolled.")
        return cls.of(dice, -pips if sign == "-" else pips)

    def plus(self, dice: int = 0, pips: int = 0) -> DieCode:
        """Add (or with negatives remove) dice and pips; a pool never goes below 0D (RULES.md §3)."""
        return DieCode.of(max(0, self.dice + dice), self.pips + pips)

    def __add__(self, other: DieCode) -> DieCode:
        return self.plus(other.dice, other.pips)

    def __str__(self) -> str:
        if self.pips > 0:
            return f"{self.dice}D+{self.pips}"
        if self.pips < 0:
            return f"{self.dice}D{self.pips}"
        return f"{self.dice}D"


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A rolled pool, every die kept in draw order.

    ``normal``: the non-wild dice; ``wild``: the Wild Die's first roll (None for 0D); ``explosions``: its
    re-rolls after 6s; ``dropped``: dice removed by the ``drop`` reading of a Wild Die 1.
    """

    code: DieCode
    normal: tuple[Die, ...]
    wild: Die | None
    explosions: tuple[Die, ...]
    wild_bonus: int
    dropped: tuple[Die, ...]
    complication: bool
    explode_rule: ExplodeRule
    wild_one_rule: WildOneRule
    total: int

    @property
    def dice(self) -> tuple[Die, ...]:
        """Every die drawn, in draw order: normal dice, the Wild Die, its explosions."""
        return self.normal + ((self.wild,) if self.wild else ()) + self.explosions

    @property
    def pips(self) -> int:
        return self.code.pips


def roll_pool(
    code: DieCode,
    dice: DiceSource,
    *,
    explode: ExplodeRule = "halved",
    wild_one: WildOneRule = "complication",
    label: str = "",
) -> PoolRoll:
    """Roll ``code`` with one Wild Die under the channel's house rules."""
    if code.dice == 0:
        return PoolRoll(code, (), None, (), 0, (), False, explode, wild_one, max(0, code.pips))
    normal = tuple(dice.roll(6, f"{label} die".strip()) for _ in range(code.dice - 1))
    wild = dice.roll(6, f"{label} wild".strip())
    explosions: list[Die] = []
    if wild.value == 6:
        # Bounded: a GM queue (or a very lucky table) of sixes must not spin forever.
        for _ in range(MAX_WILD_EXPLOSIONS):
            extra = dice.roll(6, f"{label} wild explodes".strip())
            explosions.append(extra)
            if extra.value != 6:
                break
    extra_sum = sum(d.value for d in explosions)
    wild_bonus = extra_sum // 2 if explode == "halved" else extra_sum
    kept_normal = list(normal)
    dropped: tuple[Die, ...] = ()
    complication = False
    wild_value = wild.value
    if wild.value == 1:
        if wild_one == "complication":
            complication = True
        elif wild_one == "drop":
            highest = max(kept_normal, key=lambda d: d.value, default=None)
            dropped = (wild,) + ((highest,) if highest else ())
            if highest is not None:
                kept_normal.remove(highest)
            wild_value = 0
    total = sum(d.value for d in kept_normal) + wild_value + wild_bonus + code.pips
    return PoolRoll(
        code,
        normal,
        wild,
        tuple(explosions),
        wild_bonus,
        dropped,
        complication,
        explode,
        wild_one,
        max(0, total),
    )
