"""The load benchmark end to end, at a small size (``-m slow``): both bots in their own processes, every phase
measured, the storm classified against the encounter's log, the ratio table printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.bench.options import Options
from bot.bench.report import FLOOR, table
from bot.bench.run import FRAY_COMMANDS, bench


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
    )
    report = await bench(options, say=lambda _: None)
    measured = {(p.command, p.concurrency) for p in report.phases}
    assert measured == {(c, n) for c in (FLOOR, *FRAY_COMMANDS) for n in (1, 5)}
    for phase in report.phases:
        assert phase.failed == 0 and phase.refused == 0, phase
        assert phase.requests == options.requests[phase.concurrency] and phase.cpu > 0
    storm = report.storm
    assert storm is not None and storm.commands == 50 and storm.applied == storm.answered == 50
    assert storm.late == storm.lost == storm.unanswered_changes == 0
    assert report.encounters == 200 and report.rss_peak >= report.rss > 0
    printed = table(report)
    assert "/gm damage" in printed and "targets:" in printed
