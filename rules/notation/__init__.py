"""``/roll`` dice notation (COMMANDS.md ``/roll``; RULES.md §0 and §3 "Dice codes"), pure Python.

``parse(text)`` builds an expression tree (``syntax``: the grammar; ``tree``: the nodes and the limits),
``roll(text_or_expr, dice, ...)`` rolls it from an injected ``DiceSource`` (``rolling``: the draw order and
explosions), and ``describe(result)`` renders one line showing every die (``render``: the marks).

Why not Avrae's ``d20`` library: it draws from the global ``random`` module, while every die here must come
from the injected ``DiceSource`` (so tests can script dice and a GM's queued physical dice are used first and
marked in the output), and it has neither ``d66`` nor D6 codes with a Wild Die.
"""

from __future__ import annotations

from .render import GM_MARK, describe
from .rolling import DieGroup, RollResult, TermResult, TestOutcome, roll
from .syntax import parse
from .tree import (
    D66,
    MAX_DEPTH,
    MAX_DICE,
    MAX_EXPLOSIONS_PER_DIE,
    MAX_LENGTH,
    MAX_MAGNITUDE,
    BinOp,
    Compare,
    Dice,
    Expr,
    Neg,
    NotationError,
    Number,
    Pool,
    dice_count,
)

__all__ = [
    "D66",
    "GM_MARK",
    "MAX_DEPTH",
    "MAX_DICE",
    "MAX_EXPLOSIONS_PER_DIE",
    "MAX_LENGTH",
    "MAX_MAGNITUDE",
    "BinOp",
    "Compare",
    "Dice",
    "DieGroup",
    "Expr",
    "Neg",
    "NotationError",
    "Number",
    "Pool",
    "RollResult",
    "TermResult",
    "TestOutcome",
    "describe",
    "dice_count",
    "parse",
    "roll",
]
