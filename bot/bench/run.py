"""The benchmark's driver: ``python -m bot bench [--quick] [...]`` (see ``bot.bench``).

It holds two fake Discords (one per bot), starts the floor and Fray each in its own process, sets up Fray's
channels through commands (a running 8-combatant D6 encounter in each of 50 channels), stores more
encounters until there are ``--encounters``, then interleaves the phases (per repetition and concurrency:
the floor before and after each other command, the references and Fray's), runs the storm, reads Fray's
memory and prints the ratio table. Fray's database is a SQLite file, or with ``--database-url`` a fresh
database on a PostgreSQL server (``bot.bench.database``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bot.bench.database import BenchDatabase, applied_by, fray_database, store_more_encounters, turn_holders
from bot.bench.fake import DEFAULT_TOKEN, FakeChannel, FakeDiscord, FakeGuild, FakeMember, InteractionResult
from bot.bench.options import Options, options_from
from bot.bench.report import CHANGES, FLOOR, FLOOR_EDIT, FLOOR_SAVE, REFERENCES, Phase, Report, Storm, table
from bot.settings import TRACKER_EDIT_INTERVAL

READY_WITHIN = 60.0
ANSWER_WITHIN = 60.0  # a request's whole answer (the fake still fails a first response after 3 s)
SIDES = (("Bandit", "bandit", "bandits"), ("Wolf", "wolf", "wolves"))  # name, template, side; 4 each
PER_SIDE = 4
STORM_COMMAND = "gm set"
CLK_TCK = os.sysconf("SC_CLK_TCK")
IDLE_CPU = 0.005  # seconds of CPU in ``quiet``'s window that still count as settled (under one tick)


def cpu_clock(pid: int) -> int | None:
    """The clock of the CPU time process ``pid`` used, all its threads together (``clock_getcpuclockid``),
    read to the nanosecond; ``None`` where the C library has none. /proc's ticks are 10 ms: a phase of the
    floor at concurrency 1 uses about six of them, so its CPU per request would be ±15 %."""
    try:
        getcpuclockid = ctypes.CDLL(None).clock_getcpuclockid
    except (OSError, AttributeError):
        return None
    clock = ctypes.c_int()
    if getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return None
    return clock.value


# --- the bot processes ----------------------------------------------------------------------------------


class BotProcess:
    """A bot (``floor`` or ``fray``) in its own process against ``fd``; CPU from its CPU clock (``cpu_clock``),
    memory from /proc. The floor opens its database (a SQLite file) only for ``/noop save:true``; Fray's is
    ``database`` (a file or a server's)."""

    def __init__(self, kind: str, fd: FakeDiscord, workdir: Path, database: str | None = None) -> None:
        self.kind = kind
        self.fd = fd
        self.database = database or str(workdir / f"{kind}.db")
        self.heartbeat = workdir / f"{kind}.heartbeat"
        self.log = workdir / f"{kind}.log"
        self.proc: asyncio.subprocess.Process | None = None
        self._clock: int | None = None
        # seconds after a phase's last change in which the bot may still do that phase's work (Fray's
        # trackers edited once more at the end of their rest, ``cogs.tracker``): read before it, that CPU
        # would fall in the next phase, a floor's
        self.lag = TRACKER_EDIT_INTERVAL if kind == "fray" else 0.0

    async def start(self) -> None:
        args = [self.kind, self.fd.api_base, self.fd.gateway_url, DEFAULT_TOKEN, self.database]
        args.append(str(self.heartbeat))
        with self.log.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.bench.proc", *args, stdout=log, stderr=log
            )
        self._clock = cpu_clock(self.proc.pid)
        await self.fd.wait_until_ready(timeout=READY_WITHIN)
        await self.fd.wait_for_sync(timeout=READY_WITHIN)

    def _proc_file(self, name: str) -> str:
        assert self.proc is not None
        return Path(f"/proc/{self.proc.pid}/{name}").read_text()

    def cpu(self) -> float:
        """Seconds of CPU (user + system) the process used so far."""
        if self._clock is not None:
            return time.clock_gettime(self._clock)
        fields = self._proc_file("stat").rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def memory(self) -> tuple[int, int]:
        """(RSS, peak RSS) in bytes."""
        found = {}
        for line in self._proc_file("status").splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
        return found["VmRSS"], found["VmHWM"]

    async def quiet(self, *, within: float = 30.0, still: float = 0.3) -> None:
        """Wait (bounded) until the process used almost no CPU for ``still`` seconds (what it answered has
        settled; an idle bot still wakes for its heartbeat and its memory look)."""
        deadline = time.monotonic() + within
        before = self.cpu()
        while time.monotonic() < deadline:
            await asyncio.sleep(still)
            now = self.cpu()
            if now - before < IDLE_CPU:
                return
            before = now

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()


# --- the tables -----------------------------------------------------------------------------------------


@dataclass
class Table:
    fd: FakeDiscord
    guild: FakeGuild
    channels: list[FakeChannel]
    owner: FakeMember
    player: FakeMember
    actors: dict[int, str] = field(default_factory=dict)  # channel id -> the combatant holding the turn


def make_table(fd: FakeDiscord, channels: int) -> Table:
    guild = fd.add_guild("Bench")
    rooms = [guild.add_channel(f"fight-{i}") for i in range(channels)]
    return Table(fd, guild, rooms, guild.owner, guild.add_member("player"))


async def answered(fd: FakeDiscord, channel: FakeChannel, member: FakeMember, command: str, **options: Any):
    r = await fd.invoke(channel, member, command, timeout=ANSWER_WITHIN, **options)
    if r.ephemeral:
        raise RuntimeError(f"setup: /{command} {options} was refused: {r.content}")
    return r


def names() -> list[str]:
    return [f"{name} {i}" for name, _, _ in SIDES for i in range(1, PER_SIDE + 1)]


async def open_fight(t: Table, channel: FakeChannel, n: int) -> None:
    """A running D6 encounter of four bandits against four wolves in ``channel``."""
    await answered(t.fd, channel, t.owner, "gm system", system="d6")
    await answered(t.fd, channel, t.owner, "encounter start", name=f"Fight {n}")
    for name, template, side in SIDES:
        await answered(
            t.fd, channel, t.owner, "encounter add", name=name, template=template, count=PER_SIDE, side=side
        )
    await answered(t.fd, channel, t.owner, "encounter begin")


# --- requests -------------------------------------------------------------------------------------------

Request = tuple[FakeChannel, FakeMember, str, dict[str, Any], Callable[[InteractionResult], bool]]
# … and whether an answer is the one meant (a refusal is private, and so is a declaration)
DECLARED = "📝 Declared"  # how Fray's answer to a D6 declaration begins


def posted(r: InteractionResult) -> bool:
    return not r.ephemeral


def declared(r: InteractionResult) -> bool:
    return r.content.startswith(DECLARED)


def request_maker(t: Table, command: str) -> Callable[[int], Request]:
    everyone = names()

    def make(i: int) -> Request:
        channel = t.channels[i % len(t.channels)]
        turn = i // len(t.channels)
        if command == FLOOR:
            return channel, t.player, "noop", {}, posted
        if command == FLOOR_EDIT:
            return channel, t.player, "noop", {"edit": True}, posted
        if command == FLOOR_SAVE:
            return channel, t.player, "noop", {"save": True}, posted
        if command == "/roll":
            return channel, t.player, "roll", {"expression": "2d6+3"}, posted
        if command == "/encounter status":
            # Private by default; posted, so that a refusal (also private) still shows as one.
            return channel, t.player, "encounter status", {"public": True}, posted
        if command == "/gm damage":
            return (
                channel,
                t.owner,
                "gm damage",
                {"target": everyone[turn % len(everyone)], "amount": 1},
                posted,
            )
        if command == "/attack":
            actor = t.actors[channel.id]
            foes = [n for n in everyone if n.split()[0] != actor.split()[0]]
            # A D6 attack before lock-in is declared: saved and logged, answered privately.
            return channel, t.owner, "attack", {"target": foes[turn % len(foes)], "as": actor}, declared
        raise ValueError(command)

    return make


@contextlib.contextmanager
def drivers_collector_paused() -> Iterator[None]:
    """This process (the fake Discords and the members sending commands) runs no garbage collection while
    a phase is timed, as ``timeit`` does: its heap holds every message of the run, and a full collection of
    it took 30–90 ms, during which neither bot got an answer through, and one phase's p99 was that pause."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def run_phase(
    bot: BotProcess, make: Callable[[int], Request], command: str, concurrency: int, n: int, rep: int
) -> Phase:
    phase = Phase(command, concurrency, rep)
    todo = iter(range(n))

    async def worker() -> None:
        for i in todo:
            channel, member, name, options, meant = make(i)
            started = time.perf_counter()
            try:
                r = await bot.fd.invoke(channel, member, name, timeout=ANSWER_WITHIN, **options)
            except (TimeoutError, AssertionError):  # no answer, or one Discord would reject
                phase.failed += 1
                continue
            phase.latencies.append(time.perf_counter() - started)
            if not meant(r):
                phase.refused += 1

    cpu = bot.cpu()
    with drivers_collector_paused():
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        phase.wall = time.perf_counter() - started
    if command in CHANGES:  # the work the changes left behind (a tracker's edit), counted in this phase
        await asyncio.sleep(bot.lag)
    await bot.quiet()
    phase.cpu = bot.cpu() - cpu
    return phase


async def new_turns(t: Table, db: BenchDatabase, bot: BotProcess) -> None:
    """The turn passed on in every channel (``/gm next``, untimed), so that an ``/attack`` phase declares
    into empty plans, as a turn does: nothing here locks a plan in, and without a new turn each phase would
    declare into a longer plan than the one before, and measure a dearer declaration."""
    for channel in t.channels:
        await answered(t.fd, channel, t.owner, "gm next")
    t.actors.update(await turn_holders(db.engine))
    await bot.quiet()  # the announcements and tracker edits they made, before anything is timed


# --- the storm ------------------------------------------------------------------------------------------


async def storm(t: Table, bot: BotProcess, db: BenchDatabase, commands: int) -> Storm:
    """``commands`` concurrent ``/gm set`` in one channel, each by another GM; then who was told what,
    against what the encounter's log holds."""
    fd = t.fd
    room = t.guild.add_channel("storm")
    gm_role = t.guild.add_role("GM")
    await answered(fd, room, t.owner, "gm role", role=gm_role)
    await open_fight(t, room, 0)
    gms = [t.guild.add_member(f"gm-{i}", roles=[gm_role]) for i in range(commands)]
    first = len(fd.interactions)
    started = time.perf_counter()
    await asyncio.gather(
        *(
            fd.invoke(
                room,
                gm,
                STORM_COMMAND,
                timeout=ANSWER_WITHIN,
                target="Bandit 1",
                field="distance",
                value=str(i % 9000 + 1),
            )
            for i, gm in enumerate(gms)
        ),
        return_exceptions=True,
    )
    records = fd.interactions[first:]
    for _ in range(1500):  # late callbacks still arrive: wait for them (at most 5 minutes)
        if all(r.callback_type is not None or r.problems for r in records):
            break
        await asyncio.sleep(0.2)
    await bot.quiet()
    result = Storm(commands=commands, seconds=time.perf_counter() - started)
    told: set[int] = set()
    for rec in records:
        late = rec.callback_type is None or any("callback after" in p for p in rec.problems)
        if late:
            result.late += 1
        elif rec.problems:
            result.rejected += 1
        elif rec.answered:
            result.answered += 1
            if not (rec.original is not None and rec.original.ephemeral):
                told.add(rec.member.id)
    applied = await applied_by(db.engine, room.id, STORM_COMMAND)
    result.applied = len(applied)
    result.lost = len(told - set(applied))
    result.unanswered_changes = len(set(applied) - told) + (len(applied) - len(set(applied)))
    return result


# --- the run --------------------------------------------------------------------------------------------


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@contextlib.contextmanager
def work_folder(given: Path | None, say: Callable[[str], None] = print) -> Iterator[Path]:
    """The folder for the run's databases and bot logs: ``given`` (kept), or a new temporary one, removed
    when the run succeeds (a full run leaves about 90 MB) and kept, and named, when it fails."""
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    made = Path(tempfile.mkdtemp(prefix="fray-bench-"))
    try:
        yield made
    except BaseException:
        say(f"work files kept in {made}")
        raise
    shutil.rmtree(made, ignore_errors=True)


async def bench(options: Options, say: Callable[[str], None] = print) -> Report:
    logging.getLogger("bot.playground.loopback").setLevel(
        logging.ERROR
    )  # late answers are counted, not logged
    with work_folder(options.workdir, say) as workdir:
        return await _bench(options, workdir, say)


async def _bench(options: Options, workdir: Path, say: Callable[[str], None]) -> Report:
    kept = "" if options.workdir is not None else ", removed at the end unless the run fails"
    report = Report()
    loads = [load_average()]
    async with (
        fray_database(workdir, options.database_url) as db,
        FakeDiscord(strict=False, settle=0.0, default_timeout=READY_WITHIN) as floor_fd,
        FakeDiscord(strict=False, settle=0.0, default_timeout=READY_WITHIN) as fray_fd,
    ):
        tables = {FLOOR: make_table(floor_fd, options.channels)}
        fray_table = make_table(fray_fd, options.channels)
        report.database = db.label
        floor = BotProcess("floor", floor_fd, workdir)
        fray = BotProcess("fray", fray_fd, workdir, db.target)
        try:
            await asyncio.gather(floor.start(), fray.start())
            say(
                f"bots ready (work files in {workdir}{kept}; Fray on {db.label}); "
                f"setting up {options.channels} fights"
            )
            for n, channel in enumerate(fray_table.channels, 1):
                await open_fight(fray_table, channel, n)
            fray_table.actors = await turn_holders(db.engine)
            report.encounters = await store_more_encounters(db.engine, options.encounters)
            say(f"{report.encounters:,} encounters stored; warming up")
            makers = {c: request_maker(tables[FLOOR], c) for c in REFERENCES}
            makers |= {c: request_maker(fray_table, c) for c in options.commands}
            for command, make in makers.items():
                bot = floor if command in REFERENCES else fray
                if command == "/attack":
                    await new_turns(fray_table, db, fray)
                await run_phase(bot, make, command, 5, 2 * options.channels, 0)
            report.rss_idle = fray.memory()[0]

            async def measure(command: str, conc: int, rep: int) -> None:
                bot = floor if command in REFERENCES else fray
                phase = await run_phase(bot, makers[command], command, conc, options.requests_at(conc), rep)
                phase.order = len(report.phases)
                report.phases.append(phase)
                say(
                    f"  rep {rep} conc {conc:>3} {command:<18} p50 {phase.p50 * 1e3:7.1f} ms  "
                    f"p99 {phase.p99 * 1e3:7.1f} ms  {phase.throughput:6.0f}/s  "
                    f"CPU {phase.cpu_per_request * 1e3:6.2f} ms/req  failed {phase.failed}"
                )

            for rep in range(1, options.repetitions + 1):
                for conc in options.concurrencies:
                    # the floor between every two commands: each is compared with the floor next to it
                    for command in makers:
                        if command == FLOOR:
                            continue
                        if command == "/attack":
                            await new_turns(fray_table, db, fray)
                        await measure(FLOOR, conc, rep)
                        await measure(command, conc, rep)
                    await measure(FLOOR, conc, rep)
                loads.append(load_average())
            if options.storm:
                say(f"storm: {options.storm} concurrent changes in one channel")
                report.storm = await storm(fray_table, fray, db, options.storm)
            report.rss, report.rss_peak = fray.memory()
        finally:
            await asyncio.gather(floor.stop(), fray.stop())
    report.load = " / ".join(loads)
    if options.json is not None:
        options.json.write_text(json.dumps(asdict(report), indent=1))
    return report


def main(args: argparse.Namespace) -> int:
    report = asyncio.run(bench(options_from(args)))
    print()
    print(table(report))
    return 0
