"""Memory the process freed, given back to the system while it runs.

CPython hands every object over 512 bytes (an interaction's payload, a reply's JSON, a parsed state's
dicts) to the C library's ``malloc``. glibc keeps what is freed for later instead of returning it, and a
burst (fifty channels at once, a thousand commands in one) leaves holes it never fills exactly again: the
process grew by a few megabytes with every round of the benchmark and kept all of it. ``malloc_trim(0)``
returns the free pages (``README.md``, Performance).

A trim is not free: it takes 1.5–3 ms (13 ms for a first one with 60 MB to return), holds malloc's lock
meanwhile, and the pages it returns fault back in when they are used again. Trimming every second put
20–30 ms on the slowest commands. So the process looks at its size once a second (one read of
``/proc/self/statm``) and trims only when it has grown by ``GROWTH`` since the last trim, in a worker
thread (``ctypes`` lets go of the interpreter's lock for the call).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import os
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

EVERY = 1.0  # seconds between two looks at the process's size
GROWTH = 4 * 1024 * 1024  # bytes the process may grow by before the next trim

Trim = Callable[[], object]


def malloc_trim() -> Trim | None:
    """glibc's ``malloc_trim(0)`` for this process, or ``None`` where the C library has none (musl, macOS)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter itself runs on
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


def resident_bytes() -> int | None:
    """The process's resident size, or ``None`` where ``/proc`` does not tell it."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


async def give_back_freed_memory(
    trim: Trim,
    *,
    every: float = EVERY,
    growth: int = GROWTH,
    resident: Callable[[], int | None] = resident_bytes,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rounds: int | None = None,
) -> None:
    """Every ``every`` seconds, until cancelled (or for ``rounds`` looks): trim when the process has grown by
    ``growth`` bytes since the last trim (or since the start), or at every look when its size is unknown.
    A trim that fails is logged and the task ends: freed memory is then kept as before, nothing else
    changes."""
    trimmed_at = resident()
    done = 0
    while rounds is None or done < rounds:
        await sleep(every)
        done += 1
        size = resident()
        if size is not None and trimmed_at is not None and size - trimmed_at < growth:
            continue
        try:
            await asyncio.to_thread(trim)
        except Exception:
            log.warning("cannot give freed memory back to the system; stopped trying", exc_info=True)
            return
        trimmed_at = resident()


def freeze_startup() -> None:
    """Keep everything the process holds now out of the garbage collector's reach (``gc.freeze``), after a
    collection so that nothing already unreachable is kept. What a bot loads at the start (modules, the
    command tree, the database's metadata) lives as long as the process, and every full collection walked
    all of it again: 30–55 ms each, eight times in a benchmark run, every command waiting meanwhile; with
    it frozen, 7–15 ms. For a process that is the bot's own only (``run_bot``): objects frozen in a shared
    one (tests) whose cycles are later dropped would never be freed."""
    gc.collect()
    gc.freeze()


YOUNG_COLLECTION_EVERY = 10_000  # new objects between two young collections (CPython: 700)


def collect_young_less_often() -> None:
    """Run the collector's young generation every ``YOUNG_COLLECTION_EVERY`` new objects instead of 700.
    Under load 700 meant a young collection every few commands, and they found almost nothing: an answered
    interaction and a committed change are freed by their reference counts (``cogs.deadline``,
    ``EncounterEdit.let_go``). So the collector cost 2 to 3 % of the bot's CPU for no memory (a benchmark
    run: 535 young collections, 256–276 ms, against 22, 103–133 ms; the peak RSS with 10,000 stored
    encounters and a 1,000-command storm the same, 113–116 MB both ways). For a process that is the bot's
    own only, as ``freeze_startup``."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, middle, old)
