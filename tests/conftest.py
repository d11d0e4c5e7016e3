"""Shared test helpers: a fake bot token (right shape, never valid), settings over a fresh database (SQLite
by default; PostgreSQL with ``FRAY_TEST_DATABASE_URL``, see ``tests.databases``), and strict event
rendering (an event without a renderer, or a renderer that raises, fails the test)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.settings import Settings
from cogs.text.events import registry as event_text
from tests.databases import ON_POSTGRES, postgres_database

FAKE_TOKEN = "MTAxNTQ2NjE3NzY5NTQ2NjY5MA.GxYzAb.fake-token-for-tests_abcdefghijkl"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not ON_POSTGRES:
        return
    skip = pytest.mark.skip(
        reason="about SQLite itself (its PRAGMAs, its query plans); runs in the SQLite pass"
    )
    for item in items:
        if item.get_closest_marker("sqlite_only"):
            item.add_marker(skip)


def settings_over(tmp_path: Path, token: str, **overrides: object) -> Iterator[Settings]:
    """Settings as production builds them over a fresh database: ``tmp_path/var/fray.db``, or a new
    PostgreSQL database (dropped afterwards) when the suite runs on PostgreSQL."""
    if not ON_POSTGRES:
        yield Settings.for_database(token, tmp_path / "var" / "fray.db", **overrides)
        return
    with postgres_database() as url:
        yield Settings.for_url(token, url, tmp_path / "var" / "heartbeat", **overrides)


@pytest.fixture
def bot_settings(tmp_path: Path) -> Iterator[Settings]:
    yield from settings_over(tmp_path, FAKE_TOKEN, heartbeat_interval=0.2, tracker_edit_interval=0.0)


@pytest.fixture(autouse=True)
def strict_event_rendering():
    """In tests a gap in the event renderers raises (production logs it and shows a plain sentence)."""
    before = event_text.set_strict(True)
    yield
    event_text.set_strict(before)
