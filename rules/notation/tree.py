"""The ``/roll`` expression tree and the limits every roll is checked against before any die is drawn.

Limits (each refusal is a ``NotationError``, an ``InvalidInput``, whose message says what is allowed):

- at most ``MAX_LENGTH`` characters of text, and not empty;
- at most ``MAX_DICE`` dice per roll, counted over the whole expression before rolling: ``NdM`` counts N,
  a ``d66`` two, a D6 code its dice (the Wild Die is one of them); explosion rerolls then share the same
  budget while rolling (see ``rolling``);
- 1 to ``MAX_SIDES`` sides per die; no exploding d1 (it would never stop);
- keep 1..N of N dice, drop 0..N-1;
- brackets and unary minus signs nested at most ``MAX_DEPTH`` deep; one comparison, outermost;
- no value that could exceed ``MAX_MAGNITUDE`` (a rough worst case, with every die exploding fully).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.dice import MAX_SIDES
from rules.errors import InvalidInput
from rules.systems.d6.pool import DieCode

MAX_DICE = 100  # dice per roll, counted over the whole expression before rolling (d66 counts 2)
MAX_LENGTH = 200  # characters of input
MAX_DEPTH = 20  # brackets and unary minus signs nested inside each other
MAX_EXPLOSIONS_PER_DIE = 20
MAX_MAGNITUDE = 10**9  # a rough worst case of any value; keeps totals readable

HELP = "Write dice like `2d6+3`, `4d6kh3`, `d6!`, `d66`, `d10<=7` or `3D+2`."


KeepMode = Literal["kh", "kl", "dh", "dl"]
Op = Literal["+", "-", "*"]
CompareOp = Literal["<=", "<", ">=", ">", "="]


class NotationError(InvalidInput):
    """A ``/roll`` expression that cannot be rolled; the message says what is allowed."""


@dataclass(frozen=True, slots=True)
class Number:
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """``count`` dice of ``sides`` faces; ``explode`` rerolls a max; ``keep`` keeps or drops ``keep_count``."""

    count: int
    sides: int
    explode: bool = False
    keep: KeepMode | None = None
    keep_count: int = 0

    def __str__(self) -> str:
        text = f"{self.count if self.count != 1 else ''}d{self.sides}{'!' if self.explode else ''}"
        return text + (f"{self.keep}{self.keep_count}" if self.keep else "")


@dataclass(frozen=True, slots=True)
class D66:
    """``count`` d66 rolls, each two d6: tens then units (11..66)."""

    count: int = 1

    def __str__(self) -> str:
        return f"{self.count if self.count != 1 else ''}d66"


@dataclass(frozen=True, slots=True)
class Pool:
    """A D6 code rolled with ``roll_pool`` (Wild Die and house rules)."""

    code: DieCode

    def __str__(self) -> str:
        return str(self.code)


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Expr

    def __str__(self) -> str:
        return "-" + _wrap(self.operand, isinstance(self.operand, BinOp))


@dataclass(frozen=True, slots=True)
class BinOp:
    op: Op
    left: Expr
    right: Expr

    def __str__(self) -> str:
        mine = _PRECEDENCE[self.op]
        left = _wrap(self.left, isinstance(self.left, BinOp) and _PRECEDENCE[self.left.op] < mine)
        # Right operands of equal precedence keep their brackets: a - (b + c) is not a - b + c.
        right = _wrap(self.right, isinstance(self.right, BinOp) and _PRECEDENCE[self.right.op] <= mine)
        if _ends_with_pool(self.left) and not left.endswith(")"):
            # `3 * 2D + 1` would read back as 3 * (2D+1): a D6 code takes a following ±1/±2 as its pips.
            left = f"({left})"
        return f"{left} {self.op} {right}"


@dataclass(frozen=True, slots=True)
class Compare:
    """A roll-under/over test: ``left`` is rolled and compared with ``right``."""

    op: CompareOp
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return f"{self.left}{self.op}{self.right}"


Term = Number | Dice | D66 | Pool
Expr = Number | Dice | D66 | Pool | Neg | BinOp | Compare
_PRECEDENCE = {"+": 1, "-": 1, "*": 2}


def _ends_with_pool(node: Expr) -> bool:
    while isinstance(node, Neg | BinOp):
        node = node.operand if isinstance(node, Neg) else node.right
    return isinstance(node, Pool)


def _wrap(node: Expr, brackets: bool) -> str:
    return f"({node})" if brackets else str(node)


def _fail(message: str) -> NotationError:
    return NotationError(message)


def check_term(term: Term, shown: str = "") -> None:
    """Refuse a term no roll may contain (also in trees built by hand); ``shown`` is the term as typed."""
    name = shown or str(term)
    if isinstance(term, Number):
        if abs(term.value) > MAX_MAGNITUDE:
            raise _fail(f"`{name}` is too large; numbers go up to {MAX_MAGNITUDE:,}.")
    elif isinstance(term, Dice | D66):
        if term.count < 1 or term.count > MAX_DICE:
            raise _fail(f"`{name}` rolls {term.count} dice; a roll has 1 to {MAX_DICE} dice in all.")
    if isinstance(term, Dice):
        if not 1 <= term.sides <= MAX_SIDES:
            raise _fail(f"`{name}`: a die needs 1 to {MAX_SIDES} sides, not {term.sides}.")
        if term.explode and term.sides == 1:
            raise _fail(f"`{name}`: a d1 always shows its maximum, so it cannot explode.")
        if term.keep in ("kh", "kl") and not 1 <= term.keep_count <= term.count:
            raise _fail(f"`{name}` keeps {term.keep_count} of {term.count} dice; keep 1 to {term.count}.")
        if term.keep in ("dh", "dl") and not 0 <= term.keep_count < term.count:
            raise _fail(f"`{name}` drops {term.keep_count} of {term.count} dice; drop 0 to {term.count - 1}.")
    if isinstance(term, Pool) and not 0 <= term.code.dice <= MAX_DICE:
        raise _fail(f"`{name}` has {term.code.dice} dice; a D6 code has 0 to {MAX_DICE}.")


def dice_count(node: Expr) -> int:
    """Dice drawn before any explosion: NdM counts N, a d66 two, a D6 code its dice (Wild Die included)."""
    if isinstance(node, Dice):
        return node.count
    if isinstance(node, D66):
        return 2 * node.count
    if isinstance(node, Pool):
        return node.code.dice
    if isinstance(node, Neg):
        return dice_count(node.operand)
    if isinstance(node, BinOp | Compare):
        return dice_count(node.left) + dice_count(node.right)
    return 0


def _bound(node: Expr) -> int:
    """A rough worst case of ``abs(value)``, to refuse absurd sizes before rolling."""
    if isinstance(node, Number):
        return abs(node.value)
    if isinstance(node, Dice):
        return node.count * node.sides * (1 + MAX_EXPLOSIONS_PER_DIE if node.explode else 1)
    if isinstance(node, D66):
        return 66 * node.count
    if isinstance(node, Pool):
        return 6 * (node.code.dice + MAX_EXPLOSIONS_PER_DIE) + abs(node.code.pips)
    if isinstance(node, Neg):
        return _bound(node.operand)
    left, right = _bound(node.left), _bound(node.right)
    return left * right if isinstance(node, BinOp) and node.op == "*" else left + right


def _check_tree(node: Expr, top: bool) -> None:
    if isinstance(node, Number | Dice | D66 | Pool):
        check_term(node)
    elif isinstance(node, Neg):
        _check_tree(node.operand, False)
    else:
        if isinstance(node, Compare) and not top:
            raise _fail("A comparison can only be the outermost part of a roll, like `d10<=7`.")
        _check_tree(node.left, False)
        _check_tree(node.right, False)


def check_limits(node: Expr) -> None:
    """Every limit the tree shows: each term, one outermost comparison, the dice total, the result's size.

    The parser enforces length and nesting on the text; this also guards trees built by hand.
    """
    _check_tree(node, True)
    count = dice_count(node)
    if count > MAX_DICE:
        raise _fail(
            f"This roll needs {count} dice; at most {MAX_DICE} dice per roll, counted over the whole "
            "expression (a d66 counts 2)."
        )
    if _bound(node) > MAX_MAGNITUDE:
        raise _fail(f"This roll could reach more than {MAX_MAGNITUDE:,}; use smaller numbers.")
