"""How the benchmark's driver times a phase, tells answers apart and keeps its work folder."""

from __future__ import annotations

import asyncio
import gc
import shutil
from pathlib import Path

import pytest

from bot.bench.run import declared, posted, run_phase, work_folder


async def test_a_phase_is_timed_without_the_drivers_garbage_collection() -> None:
    """The driver's heap holds every message of the run: its collections are paused while a phase is timed
    (and run before it), so neither bot is charged for them; afterwards the collector runs again."""
    seen: list[bool] = []

    class Fake:
        async def invoke(self, *args: object, **kwargs: object) -> object:
            seen.append(gc.isenabled())
            return type("Answer", (), {"ephemeral": False})()

    class Bot:
        fd = Fake()
        lag = 0.0

        def cpu(self) -> float:
            return 0.0

        async def quiet(self) -> None:
            seen.append(gc.isenabled())

    assert gc.isenabled()
    phase = await run_phase(Bot(), lambda i: (None, None, "noop", {}, posted), "/noop", 2, 6, 1)  # type: ignore[arg-type]
    assert len(phase.latencies) == 6 and seen == [False] * 6 + [True] and gc.isenabled()


async def test_a_phase_counts_the_work_its_answers_left_behind() -> None:
    """Fray edits each tracker once more at the end of its rest, after the answers to changes: that CPU is
    the phase's (the bot's ``lag``), not the next phase's. A command that changes nothing waits for none."""
    used = [0.0]
    loop = asyncio.get_running_loop()

    class Fake:
        async def invoke(self, *args: object, **kwargs: object) -> object:
            loop.call_later(0.02, lambda: used.__setitem__(0, used[0] + 0.001))  # a tracker edit, later
            return type("Answer", (), {"ephemeral": False})()

    class Bot:
        fd = Fake()
        lag = 0.05

        def cpu(self) -> float:
            return used[0]

        async def quiet(self) -> None:
            pass

    phase = await run_phase(Bot(), lambda i: (None, None, "gm damage", {}, posted), "/gm damage", 2, 6, 1)  # type: ignore[arg-type]
    assert phase.cpu == pytest.approx(0.006)
    await asyncio.sleep(0.05)  # the last phase's work done
    phase = await run_phase(Bot(), lambda i: (None, None, "roll", {}, posted), "/roll", 2, 6, 1)  # type: ignore[arg-type]
    assert phase.cpu == 0.0


def answer(content: str, *, ephemeral: bool) -> object:
    return type("Answer", (), {"content": content, "ephemeral": ephemeral})()


def test_a_declaration_is_told_apart_from_a_refusal_though_both_are_private() -> None:
    assert declared(answer("📝 Declared for **Wolf 1** (nothing rolled yet)", ephemeral=True))  # type: ignore[arg-type]
    assert not declared(answer("❌ It is Bandit 2's turn, not Wolf 1's.", ephemeral=True))  # type: ignore[arg-type]
    assert posted(answer("💥 Bandit 1 takes 1", ephemeral=False))  # type: ignore[arg-type]
    assert not posted(answer("❌ Only a GM may do that.", ephemeral=True))  # type: ignore[arg-type]


def test_a_run_removes_the_work_folder_it_made_unless_it_fails(tmp_path: Path) -> None:
    """A full run leaves about 90 MB of databases and logs: a folder the bench made goes when the run
    succeeds, stays (and is named) when it fails; a folder given with ``--workdir`` always stays."""
    said: list[str] = []
    with work_folder(None, said.append) as made:
        (made / "fray.db").write_bytes(b"x")
    assert not made.exists() and said == []

    with pytest.raises(RuntimeError), work_folder(None, said.append) as kept:
        (kept / "fray.log").write_text("what went wrong")
        raise RuntimeError("a bot did not start")
    assert (kept / "fray.log").exists() and said == [f"work files kept in {kept}"]
    shutil.rmtree(kept)

    given = tmp_path / "bench"
    with work_folder(given, said.append) as folder:
        (folder / "fray.db").write_bytes(b"x")
    assert folder == given and (given / "fray.db").exists()
