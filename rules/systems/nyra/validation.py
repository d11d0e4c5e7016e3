"""Helpers that collect every problem of a sheet or table row with its field path (rules/errors.py
``ValidationError``), instead of stopping at the first."""

from __future__ import annotations

import re
from typing import Any

from rules.errors import FieldProblem

WHOLE_NUMBER = re.compile(r"[+-]?\d+")  # \d: the decimal digits int() reads (ASCII, Arabic-Indic …)


class Problems:
    """A growing list of ``FieldProblem``s; ``path(base, key)`` builds dotted / indexed paths."""

    def __init__(self) -> None:
        self.items: list[FieldProblem] = []

    def add(self, path: str, problem: str) -> None:
        self.items.append(FieldProblem(path, problem))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def integer(
        self, raw: Any, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        """``raw`` as a whole number in range, or None after noting the problem."""
        if isinstance(raw, bool) or not isinstance(raw, int):
            # fullmatch, not str.isdigit(): "²" or "①" are digits to isdigit() but not to int()
            if isinstance(raw, str) and WHOLE_NUMBER.fullmatch(raw.strip()):
                raw = int(raw.strip())
            else:
                self.add(path, f"needs a whole number, not {raw!r}")
                return None
        if minimum is not None and raw < minimum:
            self.add(path, f"must be at least {minimum}, not {raw}")
            return None
        if maximum is not None and raw > maximum:
            self.add(path, f"must be at most {maximum}, not {raw}")
            return None
        return raw

    def text(self, raw: Any, path: str, *, max_length: int = 80) -> str | None:
        if not isinstance(raw, str) or not raw.strip():
            self.add(path, f"needs a non-empty text, not {raw!r}")
            return None
        if len(raw) > max_length:
            self.add(path, f"is longer than {max_length} characters")
            return None
        return raw.strip()

    def mapping(self, raw: Any, path: str) -> dict | None:
        if not isinstance(raw, dict):
            self.add(path, f"needs a table of names to values, not {type(raw).__name__}")
            return None
        return raw

    def sequence(self, raw: Any, path: str) -> list | None:
        if not isinstance(raw, list | tuple):
            self.add(path, f"needs a list, not {type(raw).__name__}")
            return None
        return list(raw)


def join(base: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{base}[{key}]"
    return f"{base}.{key}" if base else key
