"""The rules' own errors. Each carries a ``reason`` written for the player: what is wrong and what to do.

The bot's one tree-level error handler turns any ``RulesError`` into an ephemeral reply with that reason;
anything else is a bug (logged with an incident id).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class RulesError(Exception):
    """Base of every error a player can cause. ``str(err)`` is the user-facing reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidInput(RulesError):
    """Input that can never be valid (a bad number, an unknown name, a malformed expression)."""


class NotAllowed(RulesError):
    """Valid input that the rules forbid right now (out of turn, pool empty, counter too low)."""


class NotFound(RulesError):
    """A name that refers to nothing here (combatant, weapon, location, table row)."""


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One validation problem: a dotted field path (``weapons[2].damage``) and what is wrong with it."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}" if self.path else self.problem


class ValidationError(InvalidInput):
    """A sheet, table row or import with one or more problems, each with its field path."""

    def __init__(self, problems: Sequence[FieldProblem] | FieldProblem, subject: str = "") -> None:
        if isinstance(problems, FieldProblem):
            problems = [problems]
        self.problems: tuple[FieldProblem, ...] = tuple(problems)
        head = f"{subject} is not valid" if subject else "Not valid"
        body = "; ".join(str(p) for p in self.problems)
        super().__init__(f"{head}: {body}")
