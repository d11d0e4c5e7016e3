"""SQLite's log is copied into the database file by a worker thread: the bot's commits (on the event loop's
thread) leave it to that thread, and do it themselves only past a safety net."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot import checkpoints, db
from bot.checkpoints import SAFETY_NET_PAGES, checkpoint, keep_checkpointing
from bot.models import ChannelConfig
from bot.settings import Settings

pytestmark = pytest.mark.sqlite_only


async def test_commits_leave_the_log_to_the_checkpoint_thread(bot_settings: Settings) -> None:
    """Past SQLite's own threshold (1,000 pages) the bot's commits still checkpoint nothing (one that did
    would have started the log afresh: fewer pages in it than were written); one passive checkpoint then
    copies every page, and the rows read back whole."""
    engine = db.create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    path = bot_settings.database_path
    assert path is not None
    try:
        await db.migrate(engine)
        checkpoint(path)  # what the migration wrote
        big = {"note": "x" * 40_000}  # about ten pages a row
        for channel_id in range(1, 151):
            async with engine.begin() as conn:
                await conn.execute(
                    sa.insert(ChannelConfig.__table__).values(  # type: ignore[attr-defined]
                        channel_id=channel_id, guild_id=1, house_rules=big
                    )
                )
        busy, pages, copied = checkpoint(path)
        assert busy == 0 and 1_200 < pages < SAFETY_NET_PAGES and copied == pages
        async with engine.connect() as conn:
            count = await conn.scalar(sa.select(sa.func.count()).select_from(ChannelConfig.__table__))  # type: ignore[attr-defined]
        assert count == 150
    finally:
        await engine.dispose()


async def test_the_bots_connections_checkpoint_only_past_the_safety_net(bot_settings: Settings) -> None:
    engine = db.create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    try:
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar() == SAFETY_NET_PAGES
    finally:
        await engine.dispose()


async def test_the_checkpoints_run_in_a_worker_thread_every_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    paths: list[Path] = []

    def recorded(path: Path) -> tuple[int, int, int]:
        threads.append(threading.current_thread().name)
        paths.append(path)
        return (0, 0, 0)

    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(checkpoints, "checkpoint", recorded)
    await keep_checkpointing(tmp_path / "fray.db", sleep=sleep, rounds=3)
    assert pauses == [1.0, 1.0, 1.0] and paths == [tmp_path / "fray.db"] * 3
    assert threading.main_thread().name not in threads


async def test_a_failing_checkpoint_is_logged_and_not_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder is no database: the checkpoint fails, is logged once, and the task ends."""
    tries: list[int] = []

    async def sleep(seconds: float) -> None:
        tries.append(1)

    with caplog.at_level(logging.WARNING, logger="bot.checkpoints"):
        await keep_checkpointing(tmp_path, sleep=sleep, rounds=5)
    assert len(tries) == 1
    assert "cannot checkpoint" in caplog.text
