"""Whether a bot process is its SQLite file's only one (``bot.sole_writer``): the lock beside the database,
held for the first process's life; a second one announces itself; a killed holder leaves the lock free."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.sole_writer import hold, lock_path, try_hold


def test_one_holder_at_a_time_and_the_next_takes_over(tmp_path: Path) -> None:
    database = tmp_path / "fray.db"
    first = try_hold(database)
    assert first is not None
    assert lock_path(database).read_text().strip() == str(os.getpid())
    assert try_hold(database) is None
    first.release()
    second = try_hold(database)
    assert second is not None
    second.release()


def test_a_second_process_announces_itself_and_the_holder_is_no_longer_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = tmp_path / "fray.db"
    first = hold(database)
    assert first is not None and first.alone()
    caplog.set_level(logging.WARNING, logger="bot.sole_writer")
    assert hold(database) is None  # this process, as a second bot on the file
    assert f"another Fray process (pid {os.getpid()}) uses {database}" in caplog.text
    assert not first.alone()
    first.release()


def test_a_killed_holder_leaves_the_lock_free(tmp_path: Path) -> None:
    database = tmp_path / "fray.db"
    holding = (
        "import sys, time; from pathlib import Path; from bot.sole_writer import try_hold; "
        f"assert try_hold(Path({str(database)!r})) is not None; print('held', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", holding], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        assert try_hold(database) is None
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    taken = try_hold(database)
    assert taken is not None
    taken.release()
