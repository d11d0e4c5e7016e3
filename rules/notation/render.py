"""One compact line per roll, showing every die: ``2d6+3 → [4, 2] + 3 = 9``.

Marks: a dropped die is struck through (``~~1~~``, Discord markdown); an exploded die shows its chain
(``6→6→2``); a GM-entered die (``Die.origin == "gm"``) carries a trailing ``ᴳ`` (``5ᴳ``), chosen over ``*``
because ``*`` is multiplication here and italics in Discord. Multiplication is shown as ``×`` for the same
reason. A line longer than ``max_len`` loses dice from the end of the body, cut only at a space, so no number
is ever split; the total and any test outcome are always kept.
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.dice import Die

from .rolling import DieGroup, RollResult, TermResult
from .tree import D66, BinOp, Compare, Dice, Expr, Neg, Number, Pool

GM_MARK = "ᴳ"
_SYMBOL = {"<=": "≤", "<": "<", ">=": "≥", ">": ">", "=": "="}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2}


def _die(value: int, gm: bool) -> str:
    return f"{value}{GM_MARK if gm else ''}"


def _group(group: DieGroup, d66: bool = False) -> str:
    if d66:
        text = "".join(_die(d.value, d.gm_entered) for d in group.dice)
    else:
        text = "→".join(_die(d.value, d.gm_entered) for d in group.dice)
    return text if group.kept else f"~~{text}~~"


def _pool(result: TermResult) -> str:
    pool = result.pool
    assert pool is not None
    struck = {id(d) for d in pool.dropped}

    def show(d: Die) -> str:
        text = _die(d.value, d.gm_entered)
        return f"~~{text}~~" if id(d) in struck else text

    parts = []
    if pool.normal:
        parts.append("[" + ", ".join(show(d) for d in pool.normal) + "]")
    if pool.wild is not None:
        chain = "→".join([show(pool.wild), *(show(d) for d in pool.explosions)])
        bonus = f" (+{pool.wild_bonus})" if pool.explosions else ""
        parts.append(f"wild [{chain}{bonus}]")
        if pool.complication:
            parts.append("complication!")
    else:
        parts.append("[no dice]")
    if pool.pips:
        parts.append(f"{'+' if pool.pips > 0 else '-'} {abs(pool.pips)}")
    raw = sum(d.value for d in pool.normal if id(d) not in struck) + pool.wild_bonus + pool.pips
    raw += pool.wild.value if pool.wild is not None and id(pool.wild) not in struck else 0
    if raw != pool.total:
        parts.append("(a pool is never below 0)")
    return " ".join(parts)


def _term(result: TermResult) -> str:
    if isinstance(result.term, Number):
        return str(result.term.value)
    if isinstance(result.term, Pool):
        return _pool(result)
    text = "[" + ", ".join(_group(g, isinstance(result.term, D66)) for g in result.groups) + "]"
    return text + (" (explosions stopped at the limit)" if result.capped else "")


def _body(node: Expr, terms: Iterator[TermResult]) -> str:
    if isinstance(node, Neg):
        inner = _body(node.operand, terms)
        return f"-({inner})" if isinstance(node.operand, BinOp) else f"-{inner}"
    if isinstance(node, BinOp):
        mine = _PRECEDENCE[node.op]
        left, right = _body(node.left, terms), _body(node.right, terms)
        if isinstance(node.left, BinOp) and _PRECEDENCE[node.left.op] < mine:
            left = f"({left})"
        if isinstance(node.right, BinOp) and _PRECEDENCE[node.right.op] <= mine:
            right = f"({right})"
        return f"{left} {'×' if node.op == '*' else node.op} {right}"
    return _term(next(terms))


def _single_die(node: Expr) -> bool:
    return (isinstance(node, Dice) and node.count == 1 and not node.explode) or (
        isinstance(node, D66) and node.count == 1
    )


def describe(result: RollResult, max_len: int = 1900) -> str:
    """Render ``result`` as one line (Discord's limit is 2000 characters; ``max_len`` leaves room).

    Only the dice part is ever shortened; the expression (at most 200 characters) and the total are not.
    """
    terms = iter(result.terms)
    expr = result.expr
    head = f"{result.expression} → "
    if isinstance(expr, Compare) and result.test is not None:
        body = _body(expr.left, terms)
        shown_total = "" if _single_die(expr.left) else f" = {result.total}"
        target = _body(expr.right, terms)
        target += "" if isinstance(expr.right, Number) else f" = {result.test.target}"
        outcome = "success" if result.test.success else "failure"
        verdict = f": {outcome} by {result.test.margin}"
        tail = f"{shown_total} {_SYMBOL[result.test.op]} {target}{verdict}"
        short_tail = f" = {result.total} {_SYMBOL[result.test.op]} {result.test.target}{verdict}"
    else:
        body = _body(expr, terms)
        tail = short_tail = f" = {result.total}"
    line = head + body + tail
    if len(line) <= max_len:
        return line
    room = max_len - len(head) - len(short_tail) - len(" …")
    cut = body[: max(room, 0) + 1].rfind(" ")  # +1: a space right at the limit is a fine place to cut
    kept = body[:cut].rstrip(",") if cut > 0 else ""
    return f"{head}{kept} …{short_tail}"
