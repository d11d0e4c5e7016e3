"""The floor's ``/noop save:true``: the least a change costs to keep on SQLite, as a reference row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot.bench.proc import FloorSave


def test_each_save_is_one_committed_versioned_write_with_its_log_row(tmp_path: Path) -> None:
    path = str(tmp_path / "floor.db")
    saves = FloorSave(path)
    for request in range(10):
        saves.save(channel_id=1 + request % 2, request_id=request)
    db = sqlite3.connect(path)  # another connection sees what was committed
    fights = dict(db.execute("SELECT channel, version FROM fight").fetchall())
    assert fights == {1: 5, 2: 5}
    state = json.loads(db.execute("SELECT state FROM fight WHERE channel = 1").fetchone()[0])
    assert 6_000 < len(json.dumps(state)) < 9_000  # a fight of Fray's size: eight combatants, about 7 KB
    # requests 0, 2, 4, 6 and 8 hit fighters 0, 2, 4, 6 and 0 again
    assert [f["hp"] for f in state["combatants"]] == [28, 30, 29, 30, 29, 30, 29, 30]
    assert db.execute("SELECT count(*) FROM log").fetchone()[0] == 10


def test_a_save_over_a_version_someone_else_moved_saves_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "floor.db")
    saves = FloorSave(path)
    saves.save(channel_id=1, request_id=0)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("UPDATE fight SET version = version + 1 WHERE channel = 1")
    with pytest.raises(RuntimeError, match="stale"):
        saves.save(channel_id=1, request_id=1)
    assert other.execute("SELECT count(*) FROM log").fetchone()[0] == 1
    assert not saves.db.in_transaction
