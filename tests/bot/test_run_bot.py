"""``run_bot``, the production entry point: it sets the garbage collector for a long-running process."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from bot import app
from bot.settings import Settings


class _StubBot:
    """Starts and stops at once (the gateway is not what is tested here)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    async def __aenter__(self) -> _StubBot:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def start(self, token: str) -> None:
        return None

    async def close(self) -> None:
        return None


async def test_the_bot_process_collects_young_garbage_less_often(
    bot_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = gc.get_threshold()
    monkeypatch.setattr(app, "Fray", _StubBot)
    try:
        await app.run_bot(bot_settings)
        assert gc.get_threshold() == app.COLLECTOR_THRESHOLDS != before
    finally:
        gc.set_threshold(*before)
