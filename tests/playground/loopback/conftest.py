"""``fake_discord``: a started loopback Discord that fails the test if it recorded problems."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from bot.playground.loopback import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fd = FakeDiscord(strict=False)
    await fd.start()
    try:
        yield fd
    finally:
        await fd.stop()
    fd.assert_no_problems()
