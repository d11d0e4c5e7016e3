"""``python -m bot bench --change-path``: the change path alone, in process, on the suite's database; the
statements each step runs are the figures that must not grow."""

from __future__ import annotations

import pytest

from bot.__main__ import main
from bot.bench.change_path import measure
from tests.databases import ON_POSTGRES, SERVER_URL

# The lock across processes is PostgreSQL's only, and so is the probe of the read's versions (on SQLite the
# bench's process is its database's only writer: ``bot.outside_writes``); then a change's writes: the
# encounter, the combatant it touched, the log row.
LOCK = PROBE = 1 if ON_POSTGRES else 0
STATEMENTS = {"empty change": LOCK, "encounter read": PROBE, "/gm damage": LOCK + PROBE + 3}


async def test_each_step_runs_its_statements_and_takes_some_cpu() -> None:
    label, figures = await measure(4, SERVER_URL or None)
    assert label.startswith("PostgreSQL" if ON_POSTGRES else "SQLite")
    assert {f.step: f.statements for f in figures} == STATEMENTS
    assert all(f.cpu_us > 0 for f in figures)


@pytest.mark.skipif(ON_POSTGRES, reason="the command line on SQLite is enough")
def test_the_command_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--change-path", "--changes", "2"]) == 0
    out = capsys.readouterr().out
    assert "the change path in process, on SQLite" in out
    assert [line.split()[-1] for line in out.splitlines()[2:]] == ["0.0", "0.0", "3.0"]
