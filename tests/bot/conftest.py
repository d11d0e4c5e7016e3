"""Fixtures shared by the store's tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.db import create_engine, migrate, session_factory
from bot.settings import Settings
from bot.store import Store

NOW = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)


@pytest.fixture
async def sessions(bot_settings: Settings):
    """A session factory on a freshly migrated database (SQLite, or the test PostgreSQL)."""
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield session_factory(engine)
    await engine.dispose()


@pytest.fixture
def store(sessions) -> Store:
    """A store on that database, its clock stopped at ``NOW``."""
    return Store(sessions, lambda: NOW)
