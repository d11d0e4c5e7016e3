"""A new SQLite file opened by several processes at once: each connection switches it to write-ahead
logging, and one that SQLite refuses at once ("database is locked") tries again, bounded."""

from __future__ import annotations

import sqlite3

import pytest

from bot import db


class _Cursor:
    """Refuses the switch ``refusals`` times, then takes it."""

    def __init__(self, refusals: int, error: str = "database is locked") -> None:
        self.refusals = refusals
        self.error = error
        self.tries = 0

    def execute(self, sql: str) -> None:
        assert sql == "PRAGMA journal_mode=WAL"
        self.tries += 1
        if self.tries <= self.refusals:
            raise sqlite3.OperationalError(self.error)


def test_a_refused_switch_to_wal_is_tried_again() -> None:
    pauses: list[float] = []
    cursor = _Cursor(refusals=3)
    db.use_wal(cursor, pauses.append)
    assert cursor.tries == 4 and pauses == [db.WAL_PAUSE] * 3


def test_the_tries_are_bounded_and_other_errors_are_not_retried() -> None:
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        db.use_wal(_Cursor(refusals=10**6), lambda _: None)
    other = _Cursor(refusals=1, error="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        db.use_wal(other, lambda _: None)
    assert other.tries == 1
