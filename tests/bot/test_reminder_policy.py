"""The pure reminder policy: durations, and the after → repeat → … → then sequence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.reminder_policy import (
    DEFAULT_POLICY,
    MAX_DURATION,
    InvalidDuration,
    ReminderPolicy,
    decide,
    first_due,
    format_duration,
    humanize,
    next_after_send,
    parse_duration,
    schedule,
)
from rules.errors import InvalidInput, RulesError

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
H = timedelta(hours=1)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("30m", timedelta(minutes=30)),
        ("12h", timedelta(hours=12)),
        ("2d", timedelta(days=2)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("1d 12h 30m", timedelta(days=1, hours=12, minutes=30)),
        (" 90 Minutes ", timedelta(minutes=90)),
        ("2 days", timedelta(days=2)),
        ("30d", timedelta(days=30)),
        ("720h", timedelta(days=30)),
        ("1m", timedelta(minutes=1)),
    ],
)
def test_valid_durations(raw: str, expected: timedelta) -> None:
    assert parse_duration(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "soon",
        "12",
        "h",
        "1x",
        "1.5h",
        "-1h",
        "+1h",
        "1h1h",
        "1d 2d",
        "12h!",
        "1 fortnight",
        "1e3m",
    ],
)
def test_nonsense_is_refused(raw: str) -> None:
    with pytest.raises(InvalidDuration) as err:
        parse_duration(raw, option="after")
    assert isinstance(err.value, InvalidInput)
    assert "`after`" in err.value.reason


@pytest.mark.parametrize("raw", ["0m", "0h", "0d0h0m"])
def test_zero_is_refused(raw: str) -> None:
    with pytest.raises(InvalidDuration, match="longer than zero"):
        parse_duration(raw)


@pytest.mark.parametrize("raw", ["31d", "30d1m", "721h", "999999d"])
def test_more_than_thirty_days_is_refused(raw: str) -> None:
    with pytest.raises(InvalidDuration, match="at most 30 days"):
        parse_duration(raw)


@given(st.text(max_size=30))
def test_any_text_parses_within_limits_or_raises_our_error(raw: str) -> None:
    try:
        value = parse_duration(raw)
    except RulesError as err:
        assert isinstance(err, InvalidDuration)
        assert err.reason and len(err.reason) < 300
    else:
        assert timedelta(0) < value <= MAX_DURATION


@given(st.integers(0, 40), st.integers(0, 30), st.integers(0, 80))
def test_well_formed_amounts(days: int, hours: int, minutes: int) -> None:
    raw = f"{days}d{hours}h{minutes}m"
    total = timedelta(days=days, hours=hours, minutes=minutes)
    if timedelta(0) < total <= MAX_DURATION:
        assert parse_duration(raw) == total
        assert parse_duration(format_duration(total)) == total
    else:
        with pytest.raises(InvalidDuration):
            parse_duration(raw)


def test_defaults() -> None:
    assert DEFAULT_POLICY == ReminderPolicy(24 * H, 24 * H, 2, "gm", True)


@pytest.mark.parametrize(
    "bad", [{"after": timedelta(0)}, {"repeat": timedelta(days=31)}, {"max_reminders": 11}]
)
def test_a_policy_cannot_hold_invalid_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        DEFAULT_POLICY.with_changes(**bad)


@pytest.mark.parametrize("then", ["gm", "skip"])
@pytest.mark.parametrize("max_reminders", [0, 1, 2, 5])
def test_sequence_is_after_then_repeat_then_the_then_step(then: str, max_reminders: int) -> None:
    policy = ReminderPolicy(12 * H, 6 * H, max_reminders, then)  # type: ignore[arg-type]
    steps = schedule(policy, START)
    assert [action for _, action in steps] == ["remind"] * max_reminders + [then]
    assert [due for due, _ in steps] == [START + 12 * H + k * 6 * H for k in range(max_reminders + 1)]


def test_then_nothing_sends_exactly_max_and_stops() -> None:
    policy = ReminderPolicy(12 * H, 6 * H, 3, "nothing")
    assert [a for _, a in schedule(policy, START)] == ["remind"] * 3
    assert next_after_send(policy, START, 3) is None
    assert first_due(ReminderPolicy(H, H, 0, "nothing"), START) is None


def test_decide_counts_steps() -> None:
    policy = ReminderPolicy(H, H, 2, "gm")
    assert [decide(policy, n) for n in range(5)] == ["remind", "remind", "gm", "nothing", "nothing"]
    assert decide(policy.with_changes(enabled=False), 0) == "nothing"
    assert first_due(policy.with_changes(enabled=False), START) is None


def test_a_late_step_does_not_pull_the_next_ones_forward() -> None:
    policy = ReminderPolicy(H, H, 5, "gm")
    late = START + 10 * H  # the bot was down for many slots
    assert next_after_send(policy, START, 1, late) == late + H
    assert next_after_send(policy, START, 1, START + H) == START + 2 * H  # on time: the nominal slot


def test_humanize() -> None:
    assert humanize(timedelta(seconds=30)) == "less than a minute"
    assert humanize(timedelta(minutes=1)) == "1 minute"
    assert humanize(timedelta(hours=5, minutes=10)) == "5 hours 10 minutes"
    assert humanize(timedelta(days=1, hours=3, minutes=4)) == "1 day 3 hours"
    assert humanize(timedelta(days=2, minutes=4)) == "2 days"
    assert humanize(timedelta(days=-1)) == "less than a minute"


def test_format_duration() -> None:
    assert format_duration(timedelta(days=1, hours=12)) == "1d12h"
    assert format_duration(timedelta(minutes=30)) == "30m"
