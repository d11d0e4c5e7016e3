"""The load benchmark end to end, at a small size (``-m slow``): both bots in their own processes, every phase
measured, the storm classified against the encounter's log, the ratio table printed. On SQLite, or with
``FRAY_TEST_DATABASE_URL`` on a database of the bench's own on that PostgreSQL server, dropped afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.bench.options import FRAY_COMMANDS, Options
from bot.bench.report import REFERENCES, table
from bot.bench.run import bench
from tests.bench.postgres import bench_databases
from tests.databases import ON_POSTGRES, SERVER_URL


@pytest.mark.slow
async def test_a_small_benchmark_measures_every_phase(tmp_path: Path) -> None:
    options = Options(
        repetitions=1,
        concurrencies=(1, 5),
        channels=5,
        requests={1: 10, 5: 20},
        storm=50,
        encounters=200,
        workdir=tmp_path,
        database_url=SERVER_URL or None,
    )
    before = await bench_databases() if ON_POSTGRES else set()
    report = await bench(options, say=lambda _: None)
    measured = {(p.command, p.concurrency) for p in report.phases}
    assert measured == {(c, n) for c in (*REFERENCES, *FRAY_COMMANDS) for n in (1, 5)}
    for phase in report.phases:
        assert phase.failed == 0 and phase.refused == 0, phase
        assert phase.requests == options.requests[phase.concurrency] and phase.cpu > 0
    storm = report.storm
    assert storm is not None and storm.commands == 50 and storm.applied == storm.answered == 50
    assert storm.late == storm.lost == storm.unanswered_changes == 0
    assert report.encounters == 200 and report.rss_peak >= report.rss > 0
    printed = table(report)
    assert "/gm damage" in printed and "targets:" in printed
    assert printed.startswith(f"database: {report.database}\n")
    if ON_POSTGRES:
        name = make_url(SERVER_URL).database
        assert report.database.startswith("PostgreSQL ") and "fray_bench_" in report.database
        assert f"/{name})" not in report.database  # its own database, not the server's
        assert await bench_databases() == before  # dropped at the end
        assert not (tmp_path / "fray.db").exists()
    else:
        assert report.database.startswith("SQLite ") and str(tmp_path / "fray.db") in report.database
