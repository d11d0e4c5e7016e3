"""Freed memory is given back to the system while the bot runs."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from bot.memory import give_back_freed_memory, malloc_trim

STATUS = Path("/proc/self/status")


def resident_kib() -> int:
    line = next(line for line in STATUS.read_text().splitlines() if line.startswith("VmRSS:"))
    return int(line.split()[1])


@pytest.mark.skipif(malloc_trim() is None or not STATUS.exists(), reason="glibc on Linux only")
def test_a_trim_returns_the_holes_a_burst_left() -> None:
    """Blocks over 512 bytes come from malloc; with every seventh one still in use, the pages between them
    stay with the process until trimmed (the kept ones pin the heap's top, so a free alone returns nothing)."""
    trim = malloc_trim()
    assert trim is not None
    rng = random.Random(7)
    burst = [bytearray(rng.randint(600, 8_000)) for _ in range(12_000)]  # about 50 MB
    kept = burst[::7]
    del burst
    before = resident_kib()
    trim()
    returned = before - resident_kib()
    assert returned > 20_000, f"{returned} KiB returned"
    assert len(kept) == 1_715  # still in use throughout


async def test_it_trims_once_a_round_until_stopped() -> None:
    slept: list[float] = []
    trimmed: list[int] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    await give_back_freed_memory(lambda: trimmed.append(1), every=0.5, sleep=sleep, rounds=3)
    assert slept == [0.5, 0.5, 0.5] and len(trimmed) == 3


async def test_a_failing_trim_is_logged_and_not_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    async def sleep(seconds: float) -> None:
        pass

    def broken() -> None:
        calls.append(1)
        raise OSError("no")

    with caplog.at_level(logging.WARNING, logger="bot.memory"):
        await give_back_freed_memory(broken, sleep=sleep, rounds=5)
    assert calls == [1]
    assert [r.getMessage() for r in caplog.records] == [
        "cannot give freed memory back to the system; stopped trying"
    ]
