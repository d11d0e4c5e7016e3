"""Freed memory is given back to the system while the bot runs."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from bot.memory import (
    YOUNG_COLLECTION_EVERY,
    collect_young_less_often,
    freeze_startup,
    give_back_freed_memory,
    malloc_trim,
    resident_bytes,
)

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
    del kept  # in use until the trim is measured
    assert returned > 20_000, f"{returned} KiB returned"


async def test_it_trims_only_once_the_process_has_grown_since_the_last_trim() -> None:
    """A trim holds malloc's lock and its pages fault back in: under a steady load it is not run at all."""
    mib = 1024 * 1024
    sizes = iter([100, 101, 103, 104, 90, 93])  # MiB: at the start, at each look, after the trim
    looks: list[int] = []
    trims: list[int] = []

    def resident() -> int:
        size = next(sizes)
        looks.append(size)
        return size * mib

    async def sleep(seconds: float) -> None:
        assert seconds == 1.0

    await give_back_freed_memory(
        lambda: trims.append(looks[-1]), growth=4 * mib, resident=resident, sleep=sleep, rounds=4
    )
    # 100 at the start; 101 and 103 are within 4 MiB; 104 is not: trimmed, 90 after it; 93 is within 4 again
    assert trims == [104] and looks == [100, 101, 103, 104, 90, 93]


async def no_wait(seconds: float) -> None:
    pass


async def test_without_its_size_it_trims_at_every_look() -> None:
    trims: list[int] = []
    await give_back_freed_memory(lambda: trims.append(1), resident=lambda: None, sleep=no_wait, rounds=3)
    assert len(trims) == 3


def test_the_resident_size_is_read_from_proc() -> None:
    size = resident_bytes()
    if not STATUS.exists():
        assert size is None
        return
    assert size is not None and abs(size // 1024 - resident_kib()) < 10_000


async def test_a_failing_trim_is_logged_and_not_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def broken() -> None:
        calls.append(1)
        raise OSError("no")

    with caplog.at_level(logging.WARNING, logger="bot.memory"):
        await give_back_freed_memory(broken, resident=lambda: None, sleep=no_wait, rounds=5)
    assert calls == [1]
    assert [r.getMessage() for r in caplog.records] == [
        "cannot give freed memory back to the system; stopped trying"
    ]


def test_freezing_the_start_keeps_what_is_alive_and_collects_what_is_not() -> None:
    import gc
    import weakref

    class Node:
        def __init__(self) -> None:
            self.other: Node | None = None

    dropped, kept = Node(), Node()
    dropped.other, kept.other = dropped, kept  # two cycles; one still referenced
    gone = weakref.ref(dropped)
    del dropped
    frozen_before = gc.get_freeze_count()
    try:
        freeze_startup()
        assert gone() is None  # collected first, not frozen
        assert gc.get_freeze_count() > frozen_before and kept.other is kept
    finally:
        gc.unfreeze()  # this process is the tests', not a bot's own


def test_the_young_generation_is_collected_less_often_and_the_older_ones_as_before() -> None:
    import gc

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 9, 11)
        collect_young_less_often()
        assert gc.get_threshold() == (YOUNG_COLLECTION_EVERY, 9, 11)
        assert YOUNG_COLLECTION_EVERY > 700
    finally:
        gc.set_threshold(*before)  # this process is the tests', not a bot's own
