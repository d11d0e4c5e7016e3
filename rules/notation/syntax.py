"""The ``/roll`` grammar: the tokenizer and the parser (the tree and its limits are in ``tree``).

Grammar (case-insensitive; whitespace may stand between any two tokens, and inside a dice term before the
``d`` and before each modifier: ``2 d6 kh1``)::

    roll    := sum [compare sum]            -- at most one comparison, and only at the top
    sum     := product (("+" | "-") product)*
    product := unary ("*" unary)*
    unary   := "-" unary | atom
    atom    := INT | dice | d66 | code | "(" sum ")"
    dice    := [INT] "d" INT mods           -- 2d6, d20, 4d6kh3, 3d6!, 4d6!dl1
    mods    := any order, each at most once: "!" | ("kh" | "kl" | "k" | "dh" | "dl") [INT]
    d66     := [INT] "d66"                  -- two d6 read as tens and units; takes no mods
    code    := INT "D" [("+" | "-") ("1" | "2")]   -- D6 code: a D (either case) with no sides after it
    compare := "<=" | "<" | ">=" | ">" | "=" | "==" | "≤" | "≥"

A D6 code takes the ``+1``/``+2``/``-1``/``-2`` right after it as its pips (``3D+2``; spaces allowed), unless
the number is multiplied (``3D+2*3`` is ``3D`` plus six). Any other number is plain arithmetic: ``3D+2 + 1``
is the code ``3D+2`` plus a flat one, and ``3D+4`` is ``3D`` plus a flat four (``/roll`` never turns a bonus
into extra dice the way three pips would). ``str(expr)`` writes a tree back so that it parses to the same
tree, bracketing a code where a following number would otherwise read as its pips.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rules.systems.d6.pool import DieCode

from .tree import (
    D66,
    HELP,
    MAX_DEPTH,
    MAX_LENGTH,
    BinOp,
    Compare,
    Dice,
    Expr,
    Neg,
    NotationError,
    Number,
    Pool,
    Term,
    check_limits,
    check_term,
)

_DIGITS = "0123456789"


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: Literal["term", "op", "(", ")", "cmp", "end"]
    pos: int
    text: str
    term: Term | None = None


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _digits(text: str, i: int) -> int:
    while i < len(text) and text[i] in _DIGITS:
        i += 1
    return i


def _lex_term(text: str, start: int) -> tuple[_Tok, int]:
    """A number, ``NdM`` with its modifiers, ``d66`` or a D6 code, starting at ``start``."""
    i, count = start, None
    if text[i] in _DIGITS:
        end = _digits(text, i)
        count = int(text[i:end])
        i = _skip_ws(text, end)
        if i >= len(text) or text[i] not in "dD":
            return _Tok("term", start, text[start:end], Number(count)), end
    i += 1  # the d
    if i >= len(text) or text[i] not in _DIGITS:
        if count is None:
            raise NotationError(f"`d` at position {start + 1} needs a number of sides, like `d6`. {HELP}")
        return _Tok("term", start, text[start:i], Pool(DieCode(count))), i
    end = _digits(text, i)
    sides, explode, keep, keep_count = int(text[i:end]), False, None, 0
    i = end
    while True:
        j = _skip_ws(text, i)
        low = text[j : j + 2].lower()
        if low[:1] == "!":
            if explode:
                raise NotationError(
                    f"`!` appears twice on one dice term at position {j + 1}; one explodes already."
                )
            explode, i = True, j + 1
        elif low[:1] == "k" or low in ("dh", "dl"):
            if keep:
                raise NotationError(f"Only one keep/drop per dice term (position {j + 1}), like `4d6kh3`.")
            has_letter = low in ("kh", "kl", "dh", "dl")
            keep = low if has_letter else "kh"  # a bare `k3` keeps the highest three
            k = _skip_ws(text, j + (2 if has_letter else 1))
            k_end = _digits(text, k)
            keep_count = int(text[k:k_end]) if k_end > k else 1  # `2d20kh` keeps one
            i = k_end if k_end > k else j + (2 if has_letter else 1)
        else:
            break
    if sides == 66 and not explode and not keep:
        return _Tok("term", start, text[start:i], D66(1 if count is None else count)), i
    if sides == 66:
        raise NotationError("`d66` is two d6 read as tens and units; it cannot explode or keep/drop dice.")
    term = Dice(1 if count is None else count, sides, explode, keep, keep_count)  # type: ignore[arg-type]
    return _Tok("term", start, text[start:i], term), i


def _lex(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    i, depth = 0, 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in _DIGITS or c in "dD":
            tok, i = _lex_term(text, i)
            tokens.append(tok)
        elif c in "+-*":
            tokens.append(_Tok("op", i, c))
            i += 1
        elif c in "()":
            depth += 1 if c == "(" else -1
            if depth < 0:
                raise NotationError(
                    f"The `)` at position {i + 1} has no matching `(`; brackets must be balanced."
                )
            tokens.append(_Tok(c, i, c))  # type: ignore[arg-type]
            i += 1
        elif c in "<>=≤≥":
            if text.startswith(("<=", ">=", "=="), i):
                op, width = ("=" if text[i] == "=" else text[i : i + 2]), 2
            else:
                op, width = {"≤": "<=", "≥": ">="}.get(c, c), 1
            tokens.append(_Tok("cmp", i, op))
            i += width
        elif c in "/÷":
            raise NotationError(
                "Division is not supported; use `+`, `-` and `*` (e.g. `2d6*2`, not `2d6/2`)."
            )
        else:
            raise NotationError(
                f"`{c}` at position {i + 1} is not allowed. A roll uses numbers, dice, `+ - *`, brackets "
                f"and one comparison (`<=`, `<`, `>=`, `>`, `=`). {HELP}"
            )
    if depth > 0:
        raise NotationError(f"{depth} `(` never closed; brackets must be balanced.")
    tokens.append(_Tok("end", len(text), ""))
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Tok]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self, ahead: int = 0) -> _Tok:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> _Tok:
        tok = self.peek()
        self.i += 1
        return tok

    def roll(self) -> Expr:
        node = self.sum(0)
        if self.peek().kind == "cmp":
            op = self.take().text
            node = Compare(op, node, self.sum(0))  # type: ignore[arg-type]
            if self.peek().kind == "cmp":
                raise NotationError("Only one comparison per roll, like `d10<=7`.")
        self.expect_end()
        return node

    def expect_end(self) -> None:
        tok = self.peek()
        if tok.kind in ("term", "("):
            raise NotationError(
                f"An operator (`+`, `-` or `*`) is missing before `{tok.text}` at position {tok.pos + 1}."
            )
        if tok.kind != "end":  # a `)` here cannot happen: the lexer balanced the brackets
            raise NotationError(f"Unexpected `{tok.text}` at position {tok.pos + 1}. {HELP}")

    def sum(self, depth: int) -> Expr:
        node = self.product(depth)
        while self.peek().kind == "op" and self.peek().text in "+-":
            op = self.take().text
            node = BinOp(op, node, self.product(depth))  # type: ignore[arg-type]
        return node

    def product(self, depth: int) -> Expr:
        node = self.unary(depth)
        while self.peek().kind == "op" and self.peek().text == "*":
            self.take()
            node = BinOp("*", node, self.unary(depth))
        return node

    def unary(self, depth: int) -> Expr:
        if self.peek().kind == "op" and self.peek().text == "-":
            self.nest(depth + 1)
            self.take()
            return Neg(self.unary(depth + 1))
        return self.atom(depth)

    def nest(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise NotationError(
                f"The roll is nested more than {MAX_DEPTH} deep; simplify the brackets and minus signs."
            )

    def atom(self, depth: int) -> Expr:
        tok = self.take()
        if tok.kind == "term" and tok.term is not None:
            check_term(tok.term, tok.text)  # here, to quote the term as typed (`1d0`, not `d0`)
            return self.pips(tok.term) if isinstance(tok.term, Pool) else tok.term
        if tok.kind == "(":
            self.nest(depth + 1)
            if self.peek().kind == ")":
                raise NotationError(f"Empty brackets at position {tok.pos + 1}.")
            node = self.sum(depth + 1)
            if self.peek().kind == "cmp":
                raise NotationError("A comparison can only be the outermost part of a roll, like `d10<=7`.")
            if self.peek().kind != ")":
                self.expect_end()  # reports a missing operator or a stray token
            self.take()
            return node
        if tok.kind == "end":
            raise NotationError(f"The roll ends too early: a number or dice must follow. {HELP}")
        raise NotationError(
            f"`{tok.text}` at position {tok.pos + 1} needs a number or dice before it. {HELP}"
        )

    def pips(self, pool: Pool) -> Expr:
        sign, number, after = self.peek(), self.peek(1), self.peek(2)
        if (
            sign.kind == "op"
            and sign.text in "+-"
            and number.kind == "term"
            and isinstance(number.term, Number)
            and number.term.value in (1, 2)
            and not (after.kind == "op" and after.text == "*")
        ):
            self.i += 2
            pips = number.term.value
            return Pool(DieCode.of(pool.code.dice, -pips if sign.text == "-" else pips))
        return pool


def parse(text: str) -> Expr:
    """Parse ``/roll`` notation into a tree; raises ``NotationError`` (only) for anything not allowed."""
    if not isinstance(text, str):
        raise NotationError("A roll must be text, like `2d6+3`.")
    if len(text) > MAX_LENGTH:
        raise NotationError(f"The roll is {len(text)} characters long; at most {MAX_LENGTH} are allowed.")
    if not text.strip():
        raise NotationError(f"The roll is empty. {HELP}")
    node = _Parser(_lex(text)).roll()
    check_limits(node)
    return node
