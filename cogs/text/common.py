"""Small pieces every text module shares: cleaning member text, fitting Discord's limits, mentions, titles."""

from __future__ import annotations

import functools

from discord.utils import escape_markdown, escape_mentions

from rules.errors import RulesError
from rules.systems.registry import get_system

MAX_MESSAGE = 2000
MAX_REASON = 100
MAX_NOTE = 300  # a rules note (a plan, a reason) in a reply or the log


def clean(text: object, limit: int = MAX_REASON) -> str:
    """Text from members (or files), made safe to show: one line, no markdown, no mentions, at most
    ``limit`` characters."""
    return _clean(str(text), limit)


@functools.lru_cache(maxsize=4096)
def _clean(text: str, limit: int) -> str:
    # Kept: the same names are cleaned on every line of every tracker and reply (two regexes each).
    return escape_mentions(escape_markdown(one_line(text, limit)))


def one_line(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters; cut text ends with "…" so that it shows."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def note_text(text: str) -> str:
    """A note the rules wrote for people: its markdown kept, never its mentions, at most ``MAX_NOTE``."""
    return escape_mentions(one_line(text, MAX_NOTE))


def fit(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def system_title(name: str) -> str:
    """A system's title as players say it (``the D6 campaign``); an unknown name as it is."""
    try:
        return get_system(name).title
    except RulesError:
        return name


def number(n: int) -> str:
    """A whole number as players write it: a real minus sign (−3), not a hyphen."""
    return f"−{-n}" if n < 0 else str(n)
