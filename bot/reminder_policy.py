"""Turn-reminder policy: pure values and arithmetic, no I/O (the loop and the storage are ``bot.reminders``).

A turn's reminder schedule, for a policy ``after A, repeat R, max M, then T``::

    turn starts at S
    S + A            member reminder 1            (reminders_sent 0 → 1)
    S + A + R        member reminder 2            (1 → 2)
    …
    S + A + (M-1)·R  member reminder M            (M-1 → M)
    S + A + M·R      the ``then`` step, once      (M → M+1): gm | skip   (``nothing``: no step at all)
    then nothing.

``reminders_sent`` on the encounter row counts the steps already taken for the current turn; ``decide`` says
what a due moment does given that count, ``next_after_send`` when the following step falls due. A late step
(the bot was down) never makes the following ones pile up: the next one is at least ``repeat`` after *now*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

from bot.errors import BotError
from rules.errors import InvalidInput

Then = Literal["gm", "skip", "nothing"]
Action = Literal["remind", "gm", "skip", "nothing"]
THEN_CHOICES: tuple[str, ...] = ("gm", "skip", "nothing")

MAX_DURATION = timedelta(days=30)
MAX_REMINDERS = 10
DEFAULT_AFTER = timedelta(hours=24)
DEFAULT_REPEAT = timedelta(hours=24)
DEFAULT_MAX = 2
DEFAULT_THEN: Then = "gm"

_UNITS = {
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
}
_PART = re.compile(r"(\d{1,6})\s*([a-z]+)")
_WHOLE = re.compile(r"(?:\d{1,6}\s*[a-z]+\s*)+")
DURATION_EXAMPLES = "`30m`, `12h`, `2d` or `1d12h`"


class InvalidDuration(BotError, InvalidInput):
    """A duration option that is not a positive ``d``/``h``/``m`` amount of at most 30 days."""


@dataclass(frozen=True, slots=True)
class ReminderPolicy:
    """One channel's effective reminder settings (defaults: after 24h, repeat 24h, max 2, then gm, on)."""

    after: timedelta = DEFAULT_AFTER
    repeat: timedelta = DEFAULT_REPEAT
    max_reminders: int = DEFAULT_MAX
    then: Then = DEFAULT_THEN
    enabled: bool = True

    def __post_init__(self) -> None:
        for name in ("after", "repeat"):
            value = getattr(self, name)
            if not timedelta(0) < value <= MAX_DURATION:
                raise ValueError(f"{name} must be within (0, 30 days], not {value}")
        if not 0 <= self.max_reminders <= MAX_REMINDERS:
            raise ValueError(f"max_reminders must be 0..{MAX_REMINDERS}, not {self.max_reminders}")
        if self.then not in THEN_CHOICES:
            raise ValueError(f"then must be one of {THEN_CHOICES}, not {self.then!r}")

    def with_changes(self, **changes: object) -> ReminderPolicy:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def active(self) -> bool:
        """Whether a turn under this policy ever gets a step (off, or max 0 with then nothing: never)."""
        return self.enabled and (self.max_reminders > 0 or self.then != "nothing")


DEFAULT_POLICY = ReminderPolicy()


def parse_duration(text: str, *, option: str = "duration") -> timedelta:
    """``"30m"``, ``"12h"``, ``"2d"``, ``"1d12h"``, ``"1d 12h"``, ``"90 minutes"`` → a timedelta.

    Raises ``InvalidDuration`` (an ``InvalidInput``; its text is the member-facing reason) for anything else,
    for zero, and for more than 30 days. Each unit may appear once.
    """
    raw = " ".join(str(text).split()).casefold()
    shown = raw if len(raw) <= 40 else raw[:39] + "…"
    if not raw or not _WHOLE.fullmatch(raw):
        raise InvalidDuration(
            f"`{option}`: I could not read {shown!r} as a duration; use days, hours and minutes like "
            f"{DURATION_EXAMPLES}."
        )
    seconds = 0
    seen: set[int] = set()
    for amount, unit in _PART.findall(raw):
        size = _UNITS.get(unit)
        if size is None:
            raise InvalidDuration(
                f"`{option}`: {unit!r} is not a unit I know; use `d` (days), `h` (hours) or `m` (minutes), "
                f"like {DURATION_EXAMPLES}."
            )
        if size in seen:
            raise InvalidDuration(f"`{option}`: {shown!r} names the same unit twice; write it like `1d12h`.")
        seen.add(size)
        seconds += int(amount) * size
    if seconds <= 0:
        raise InvalidDuration(f"`{option}` must be longer than zero, like {DURATION_EXAMPLES}.")
    if seconds > MAX_DURATION.total_seconds():
        raise InvalidDuration(f"`{option}` may be at most 30 days (`30d`), not {shown!r}.")
    return timedelta(seconds=seconds)


def format_duration(value: timedelta) -> str:
    """The compact form ``parse_duration`` reads back: ``1d12h``, ``30m``, ``2d``."""
    total = int(value.total_seconds()) // 60
    days, rest = divmod(total, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    return "".join(parts) or "0m"


def first_due(policy: ReminderPolicy, turn_started_at: datetime) -> datetime | None:
    """When a new turn's first step falls due: ``turn_started_at + after`` (``None`` when nothing ever will)."""
    if not policy.active:
        return None
    return turn_started_at + policy.after


def decide(policy: ReminderPolicy, sent: int) -> Action:
    """What a due moment does when ``sent`` steps were already taken for this turn.

    ``remind`` (the member) while ``sent < max``; the ``then`` step (``gm``/``skip``/``nothing``) when
    ``sent == max``; ``nothing`` afterwards, and whenever the policy is off.
    """
    if not policy.enabled:
        return "nothing"
    if sent < policy.max_reminders:
        return "remind"
    if sent == policy.max_reminders:
        return policy.then
    return "nothing"


def next_after_send(
    policy: ReminderPolicy, turn_started_at: datetime | None, sent: int, now: datetime | None = None
) -> datetime | None:
    """When the step after the ``sent``-th one falls due (``sent`` counts the step just taken), or ``None``.

    Nominally ``turn_started_at + after + sent·repeat``; with ``now`` (the moment the step was taken) never
    earlier than ``now + repeat``, so steps that fell due while the bot was down are not caught up one per
    missed slot: one overdue step is taken, and the next waits a full ``repeat``.
    """
    if not policy.enabled or sent > policy.max_reminders:
        return None
    if sent == policy.max_reminders and policy.then == "nothing":
        return None  # the "then" step would do nothing: do not wake up for it
    start = turn_started_at if turn_started_at is not None else now
    if start is None:
        return None
    nominal = start + policy.after + sent * policy.repeat
    if now is not None:
        return max(nominal, now + policy.repeat)
    return nominal


def schedule(policy: ReminderPolicy, turn_started_at: datetime) -> list[tuple[datetime, Action]]:
    """Every step a turn gets when nobody acts and the bot is always on time (for tests and the show text)."""
    steps: list[tuple[datetime, Action]] = []
    due = first_due(policy, turn_started_at)
    sent = 0
    while due is not None:
        action = decide(policy, sent)
        if action == "nothing":
            break
        steps.append((due, action))
        sent += 1
        due = next_after_send(policy, turn_started_at, sent)
    return steps


def humanize(value: timedelta) -> str:
    """``2 days 3 hours``, ``5 hours 10 minutes``, ``12 minutes``, ``less than a minute`` (two units at most)."""
    minutes = max(0, int(value.total_seconds()) // 60)
    if minutes == 0:
        return "less than a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    units = [(days, "day"), (hours, "hour"), (mins, "minute")]
    parts = [f"{n} {name}{'' if n == 1 else 's'}" for n, name in units if n]
    if days:
        parts = parts[:2] if hours else parts[:1]
    return " ".join(parts[:2])
