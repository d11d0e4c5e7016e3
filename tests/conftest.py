"""Shared test helpers: a fake bot token (right shape, never valid) and settings over a temporary database."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings

FAKE_TOKEN = "MTAxNTQ2NjE3NzY5NTQ2NjY5MA.GxYzAb.fake-token-for-tests_abcdefghijkl"


@pytest.fixture
def bot_settings(tmp_path: Path) -> Settings:
    """Settings as production builds them, over ``tmp_path/var/fray.db``."""
    return Settings.for_database(FAKE_TOKEN, tmp_path / "var" / "fray.db", heartbeat_interval=0.2)
