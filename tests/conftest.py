"""Shared test helpers: a fake bot token (right shape, never valid), settings over a temporary database, and
strict event rendering (an event without a renderer, or a renderer that raises, fails the test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings
from cogs.text.events import registry as event_text

FAKE_TOKEN = "MTAxNTQ2NjE3NzY5NTQ2NjY5MA.GxYzAb.fake-token-for-tests_abcdefghijkl"


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    """Settings as production builds them, over ``tmp_path/var/fray.db``."""
    return Settings.for_database(FAKE_TOKEN, tmp_path / "var" / "fray.db", heartbeat_interval=0.2)


@pytest.fixture(autouse=True)
def strict_event_rendering():
    """In tests a gap in the event renderers raises (production logs it and shows a plain sentence)."""
    before = event_text.set_strict(True)
    yield
    event_text.set_strict(before)
