"""SQLite's write-ahead log copied into the database file by a worker thread, never on the event loop.

A change commits on the loop's own thread (``bot.lean``). SQLite's automatic checkpoint runs inside the
commit that takes the log past its threshold: that commit copies the log's pages into the database file and
syncs both, so under load one commit in a few hundred held the loop for milliseconds (in process, a change's
commit took 69 µs on average instead of 37), and for two syncs of the disk where those are slow. So the
bot's connections checkpoint by themselves only past ``SAFETY_NET_PAGES`` (should this task stop), and a
worker thread runs a passive checkpoint every ``EVERY`` seconds on a connection of its own: a passive
checkpoint waits for no reader and no writer, and what it cannot copy yet it copies the next time.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

EVERY = 1.0  # seconds between two checkpoints
SAFETY_NET_PAGES = 10_000  # log pages (about 40 MB) past which a commit checkpoints by itself after all


def checkpoint(path: Path) -> tuple[int, int, int]:
    """One passive checkpoint of the database at ``path``: SQLite's answer (whether it was kept from
    finishing, the log's pages, the pages now copied into the database file)."""
    with closing(sqlite3.connect(path, timeout=0, isolation_level=None)) as db:
        busy, pages, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return int(busy), int(pages), int(copied)


async def keep_checkpointing(
    path: Path,
    *,
    every: float = EVERY,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rounds: int | None = None,
) -> None:
    """Every ``every`` seconds, until cancelled (or for ``rounds`` checkpoints): a checkpoint in a worker
    thread. One that fails is logged and the task ends: the connections' own checkpoints then take over."""
    done = 0
    while rounds is None or done < rounds:
        await sleep(every)
        done += 1
        try:
            await asyncio.to_thread(checkpoint, path)
        except Exception:
            log.warning(
                "cannot checkpoint the database's log; commits checkpoint it themselves", exc_info=True
            )
            return
