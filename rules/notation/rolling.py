"""Rolling a parsed ``/roll`` expression: every die from the injected ``DiceSource``, in a fixed order.

Draw order (RULES.md §0, so a GM entering physical dice knows it): terms left to right (a comparison's left
side, then its target); inside ``NdM`` die by die, each die's explosions right after it; a d66 its tens, then
its units; a D6 code as ``roll_pool`` draws it (normal dice, the Wild Die, its explosions).

Explosions: a die showing its maximum is rolled again and added, at most ``MAX_EXPLOSIONS_PER_DIE`` times, and
the rerolls share the ``MAX_DICE`` budget with every other die of the roll: once the roll has drawn that many
dice, exploding dice stop (``TermResult.capped``). Wild Die explosions belong to ``roll_pool`` (RULES.md §3)
and are not capped there, but they too use up the budget for later ``!`` rerolls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args

from rules.dice import DiceSource, Die
from rules.systems.d6.pool import ExplodeRule, PoolRoll, WildOneRule, roll_pool

from .syntax import parse
from .tree import (
    D66,
    MAX_DICE,
    MAX_EXPLOSIONS_PER_DIE,
    BinOp,
    Compare,
    CompareOp,
    Dice,
    Expr,
    Neg,
    Number,
    Pool,
    Term,
    check_limits,
    dice_count,
)


@dataclass(frozen=True, slots=True)
class DieGroup:
    """What counts as one die: a single draw, an exploded chain (summed), or a d66 pair (tens, units)."""

    dice: tuple[Die, ...]
    value: int
    kept: bool = True


@dataclass(frozen=True, slots=True)
class TermResult:
    """One rolled term. ``groups`` for NdM and d66 (dropped ones too); ``pool`` for a D6 code."""

    term: Term
    value: int
    groups: tuple[DieGroup, ...] = ()
    pool: PoolRoll | None = None
    capped: bool = False  # an exploding die still showed its maximum when the limit stopped it

    @property
    def source(self) -> str:
        return str(self.term)

    @property
    def dice(self) -> tuple[Die, ...]:
        if self.pool is not None:
            return self.pool.dice
        return tuple(d for g in self.groups for d in g.dice)


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """``total op target``; ``margin`` is how far the total lies from the target (0 on the edge)."""

    op: CompareOp
    target: int
    success: bool
    margin: int


@dataclass(frozen=True)
class RollResult:
    """A finished roll. ``terms`` in draw order (a test's target terms last); ``dice`` every die drawn."""

    expression: str
    total: int
    terms: tuple[TermResult, ...]
    test: TestOutcome | None
    dice: tuple[Die, ...]
    expr: Expr = field(repr=False)  # the parsed tree, which ``describe`` walks alongside ``terms``


_COMPARE = {
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "=": lambda a, b: a == b,
}


class _Roller:
    def __init__(self, dice: DiceSource, explode: ExplodeRule, wild_one: WildOneRule, budget: int) -> None:
        self.dice = dice
        self.explode = explode
        self.wild_one = wild_one
        self.rerolls_left = budget  # explosion rerolls still allowed by the MAX_DICE budget
        self.terms: list[TermResult] = []

    def eval(self, node: Expr) -> int:
        if isinstance(node, Neg):
            return -self.eval(node.operand)
        if isinstance(node, BinOp):
            left = self.eval(node.left)  # left first: the draw order is part of the contract
            right = self.eval(node.right)
            return left + right if node.op == "+" else left - right if node.op == "-" else left * right
        if isinstance(node, Compare):
            raise AssertionError("a comparison is only at the top (the parser guarantees it)")
        result = self.term(node)
        self.terms.append(result)
        return result.value

    def term(self, node: Term) -> TermResult:
        if isinstance(node, Number):
            return TermResult(node, node.value)
        if isinstance(node, D66):
            groups = []
            for _ in range(node.count):
                tens, units = self.dice.roll(6, "d66 tens"), self.dice.roll(6, "d66 units")
                groups.append(DieGroup((tens, units), 10 * tens.value + units.value))
            return TermResult(node, sum(g.value for g in groups), tuple(groups))
        if isinstance(node, Pool):
            pool = roll_pool(
                node.code, self.dice, explode=self.explode, wild_one=self.wild_one, label=str(node)
            )
            self.rerolls_left -= len(pool.explosions)
            return TermResult(node, pool.total, pool=pool)
        return self.dice_term(node)

    def dice_term(self, node: Dice) -> TermResult:
        label = str(node)
        groups: list[DieGroup] = []
        capped = False
        for _ in range(node.count):
            chain = [self.dice.roll(node.sides, label)]
            while node.explode and chain[-1].value == node.sides:
                if len(chain) > MAX_EXPLOSIONS_PER_DIE or self.rerolls_left <= 0:
                    capped = True
                    break
                self.rerolls_left -= 1
                chain.append(self.dice.roll(node.sides, f"{label} explodes"))
            groups.append(DieGroup(tuple(chain), sum(d.value for d in chain)))
        if node.keep:
            keep_n = node.keep_count if node.keep in ("kh", "kl") else node.count - node.keep_count
            highest = node.keep in ("kh", "dl")
            # Ties go to the earlier die, so the shown strike-through is stable and predictable.
            order = sorted(
                range(len(groups)), key=lambda i: (-groups[i].value if highest else groups[i].value, i)
            )
            kept = set(order[:keep_n])
            groups = [DieGroup(g.dice, g.value, i in kept) for i, g in enumerate(groups)]
        value = sum(g.value for g in groups if g.kept)
        return TermResult(node, value, tuple(groups), capped=capped)


def roll(
    text_or_expr: str | Expr,
    dice: DiceSource,
    *,
    d6_explode: ExplodeRule = "halved",
    d6_wild_one: WildOneRule = "complication",
) -> RollResult:
    """Parse (if text) and roll. ``d6_explode``/``d6_wild_one`` are the channel's D6 house rules.

    Raises ``NotationError`` for bad notation before any die is drawn; a house rule outside its allowed
    values is a programming error (``ValueError``), not a player's. Errors from ``dice`` itself (a GM's
    queued value that does not fit the die, ``QueuedDiceMismatch``) pass through unchanged.
    """
    if d6_explode not in get_args(ExplodeRule) or d6_wild_one not in get_args(WildOneRule):
        raise ValueError(f"unknown D6 house rules: explode={d6_explode!r}, wild_one={d6_wild_one!r}")
    if isinstance(text_or_expr, str):
        expr = parse(text_or_expr)
        expression = " ".join(text_or_expr.split())
    else:
        expr = text_or_expr
        check_limits(expr)
        expression = str(expr)
    roller = _Roller(dice, d6_explode, d6_wild_one, MAX_DICE - dice_count(expr))
    test = None
    if isinstance(expr, Compare):
        total = roller.eval(expr.left)
        target = roller.eval(expr.right)
        test = TestOutcome(expr.op, target, _COMPARE[expr.op](total, target), abs(total - target))
    else:
        total = roller.eval(expr)
    terms = tuple(roller.terms)
    return RollResult(expression, total, terms, test, tuple(d for t in terms for d in t.dice), expr)
