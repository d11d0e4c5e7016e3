"""A running playground (the real bot on the loopback Discord, the page on 127.0.0.1) and a headless Chromium.

The browser is Debian's ``chromium`` driven by Playwright (never its own browser download). Without it the
browser tests skip, saying why; under CI (``CI`` set) they fail instead, because CI installs it.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.playground.run import Playground, playground
from rules.dice import RandomDice

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def _no_browser(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must have it (.ci/run installs chromium and chromium-driver)")
    pytest.skip(reason)


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest_asyncio.fixture
async def table(tmp_path: Path) -> AsyncIterator[Playground]:
    dice = RandomDice(20240611)  # real dice, the same fight every run
    async with playground(tmp_path / "var" / "playground.db", port=0, dice_factory=lambda: dice) as pg:
        yield pg


@pytest.fixture
def chromium() -> Path:
    if not CHROMIUM.exists():
        _no_browser(f"no Chromium at {CHROMIUM} (apt-get install chromium chromium-driver)")
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        _no_browser("the playwright package is not installed (pip install -e '.[test]')")
    return CHROMIUM


@pytest_asyncio.fixture
async def browser(chromium: Path):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS, timeout=30_000)
        try:
            yield launched
        finally:
            await launched.close()
