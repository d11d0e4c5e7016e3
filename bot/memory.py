"""Memory the process freed, given back to the system while it runs.

CPython hands every object over 512 bytes (an interaction's payload, a reply's JSON, a parsed state's
dicts) to the C library's ``malloc``. glibc keeps what is freed for later instead of returning it, and a
burst (fifty channels at once, a thousand commands in one) leaves holes it never fills exactly again: the
process grew by a few megabytes with every round of the benchmark and kept all of it. ``malloc_trim(0)``
returns the free pages. Called once a second it keeps the peak near what is really in use (``README.md``,
Performance). A trim takes 1.5–3 ms (13 ms for a first one with 60 MB to return), so it runs in a worker
thread: ``ctypes`` lets go of the interpreter's lock for the call, and the event loop goes on.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

TRIM_EVERY = 1.0  # seconds between two trims

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


async def give_back_freed_memory(
    trim: Trim,
    *,
    every: float = TRIM_EVERY,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rounds: int | None = None,
) -> None:
    """Trim every ``every`` seconds, in a worker thread, until cancelled (or ``rounds`` times). A trim that
    fails is logged and the task ends: freed memory is then kept as before, and nothing else changes."""
    done = 0
    while rounds is None or done < rounds:
        await sleep(every)
        try:
            await asyncio.to_thread(trim)
        except Exception:
            log.warning("cannot give freed memory back to the system; stopped trying", exc_info=True)
            return
        done += 1
