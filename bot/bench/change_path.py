"""The change path alone, in process: ``python -m bot bench --change-path``.

No Discord and no second process: the store, the rules and the database of a D6 fight of eight, as a
command's handler drives them. It prints the CPU a step takes (the fastest of three repetitions: on a shared
machine the load bench's figures move by more than most changes to this path gain) and the statements each
runs, counted by the engine's own listener. The steps:

- ``empty change``: the lock, the session, the commit and the close, with nothing read or written;
- ``encounter read``: the open encounter as ``/encounter status`` reads it (no lock);
- ``/gm damage``: one point of damage (or of healing, by turns, so the fight never ends), as the command
  makes it: read, rules, the version-checked save with its log row and undo record.

For instruction counts, which do not move with the machine's load, run it under
``valgrind --tool=callgrind`` with two ``--changes`` and take the difference.
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.bench.database import fray_database
from bot.db import session_factory
from bot.encounter_reads import load_encounter
from bot.encounters import edit_encounter, start_encounter
from bot.store import Store, Where, channel_key
from rules.dice import DiceSource, RandomDice

HERE = Where(guild_id=1, channel_id=10)
GM = 7
FIGHT = ("bandit", "wolf")  # creature templates, four of each
REPETITIONS = 3
NOW = datetime(2026, 5, 6, 12, 0, tzinfo=UTC)  # a fixed clock: no reminder falls due meanwhile


@dataclass
class _Bench:
    """What the change path needs of a bot: its store, a clock and dice (seeded: the same run every time)."""

    store: Store
    clock: Callable[[], datetime] = field(default=lambda: NOW)
    dice: DiceSource = field(default_factory=lambda: RandomDice(3))

    def dice_source(self) -> DiceSource:
        return self.dice


@dataclass(frozen=True)
class StepFigures:
    step: str
    cpu_us: float  # CPU per step, the fastest repetition
    statements: float  # statements per step


async def _fight(bench: _Bench) -> None:
    await bench.store.set_system(HERE, "d6")
    await start_encounter(bench, HERE, GM, "Ford")
    async with edit_encounter(bench, HERE, GM, "encounter add") as edit:
        for i in range(8):
            template = FIGHT[i % 2]
            name = f"{template.title()} {i // 2 + 1}"
            sheet = edit.system.creature_sheet(template, name)
            await edit.add_combatant(
                sheet, name=name, owner_id=None, character_id=None, is_pc=False, side=template, distance=0
            )
    async with edit_encounter(bench, HERE, GM, "encounter begin") as edit:
        edit.apply(edit.system.begin(edit.state, edit.dice, edit.house, attackers=None, surprise=0))


def _steps(bench: _Bench) -> dict[str, Callable[[int], Awaitable[None]]]:
    async def empty_change(_: int) -> None:
        async with bench.store.change(channel_key(HERE.channel_id)):
            pass

    async def encounter_read(_: int) -> None:
        read = await load_encounter(bench, HERE)
        assert read is not None

    async def gm_damage(i: int) -> None:
        async with edit_encounter(bench, HERE, GM, "gm damage") as edit:
            row = edit.combatants[i % len(edit.combatants)]
            if i % 16 < 8:
                change = edit.system.gm_damage(edit.state, str(row.id), 1, None, edit.dice, edit.house)
            else:
                change = edit.system.gm_heal(edit.state, str(row.id), 1, None, edit.house)
            edit.apply(change)

    return {"empty change": empty_change, "encounter read": encounter_read, "/gm damage": gm_damage}


@contextmanager
def _counted(engine: AsyncEngine) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", count)


async def measure(
    changes: int, database_url: str | None = None, workdir: Path | None = None
) -> tuple[str, list[StepFigures]]:
    """Each step ``changes`` times per repetition, after as many to warm up and as many counted; the
    database's label and the figures."""
    with tempfile.TemporaryDirectory(prefix="fray-change-path-") as scratch:
        return await _measure(changes, database_url, workdir or Path(scratch))


async def _measure(changes: int, database_url: str | None, folder: Path) -> tuple[str, list[StepFigures]]:
    async with fray_database(folder, database_url) as db:  # migrated
        store = Store(session_factory(db.engine), lambda: NOW)
        store.sole_writer()  # as the bot's (its writer lock held): nothing else writes this bench's database
        bench = _Bench(store)
        await _fight(bench)
        figures = []
        for name, step in _steps(bench).items():
            for i in range(changes):
                await step(i)
            with _counted(db.engine) as seen:
                for i in range(changes):
                    await step(i)
            best = float("inf")
            for _ in range(REPETITIONS):
                gc.collect()
                started = time.process_time()
                for i in range(changes):
                    await step(i)
                best = min(best, time.process_time() - started)
            figures.append(StepFigures(name, best / changes * 1e6, len(seen) / changes))
        return db.label, figures


def table(database: str, figures: list[StepFigures]) -> str:
    lines = [
        f"the change path in process, on {database}: a D6 fight of eight; CPU the fastest of {REPETITIONS}",
        f"{'step':<16} {'CPU':>10} {'statements':>11}",
    ]
    lines += [f"{f.step:<16} {f.cpu_us:>7.0f} µs {f.statements:>11.1f}" for f in figures]
    return "\n".join(lines)


def main(changes: int, database_url: str | None) -> int:
    print(table(*asyncio.run(measure(changes, database_url))))
    return 0
