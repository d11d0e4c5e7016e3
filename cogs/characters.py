"""Placeholder: the characters feature (issue 6)."""

from __future__ import annotations

from typing import Any


async def setup(bot: Any) -> None:
    return None
