"""Pytest fixture: ``fake_discord`` yields a started FakeDiscord and fails the test if it recorded problems.

Use it from any conftest.py with ``from tests.fakediscord.pytest_plugin import fake_discord  # noqa: F401``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from .server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    fd = FakeDiscord(strict=False)
    await fd.start()
    try:
        yield fd
    finally:
        await fd.stop()
    fd.assert_no_problems()
