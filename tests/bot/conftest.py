"""Fixtures shared by the store's tests."""

from __future__ import annotations

import pytest

from bot.db import create_engine, migrate, session_factory
from bot.settings import Settings


@pytest.fixture
async def sessions(bot_settings: Settings):
    """A session factory on a freshly migrated database (SQLite, or the test PostgreSQL)."""
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield session_factory(engine)
    await engine.dispose()
