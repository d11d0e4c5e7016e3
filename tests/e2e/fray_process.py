"""One production Fray in its own OS process, for tests that run several: ``python -m tests.e2e.fray_process
API GATEWAY CLOCK_FILE SEED REMINDER_INTERVAL``.

The settings come from the environment as in production (``Settings.from_env``: DATABASE_URL, SHARD_COUNT,
SHARD_IDS, …); the ``Fray`` class, its cogs and migrations are the production ones. Test-only, by argument:
discord.py is pointed at the fake Discord's ``API`` and ``GATEWAY``; the clock reads the ISO instant in
``CLOCK_FILE`` (the test moves time by rewriting it); dice are ``RandomDice(SEED)``; the reminder loop ticks
every ``REMINDER_INTERVAL`` seconds. SIGTERM stops it cleanly.

It tells the test what it saw as JSON lines on stdout: ``{"ready": …}`` once (its shards and servers), then
one ``{"tick": …}`` per reminder-loop tick with the clock the tick read and the steps it claimed and sent.

The test's side is ``FrayProcess`` (start, read those lines, wait for one, stop) and ``processes`` (several at
once, always stopped, their stderr printed for pytest to show when the test fails).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import discord.gateway
import discord.http
import yarl

from bot.app import Fray
from bot.logs import setup_logging
from bot.playground.loopback import DEFAULT_TOKEN
from bot.reminders import ReminderLoop, TickReport
from bot.settings import Settings
from rules.dice import RandomDice


class FileClock:
    """The instant written in a file (the test replaces the file atomically to move time)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self) -> datetime:
        return datetime.fromisoformat(self.path.read_text(encoding="utf-8").strip())


def say(**line: Any) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def reminder_loop(bot: Fray) -> ReminderLoop:
    for cog in bot.cogs.values():
        loop = getattr(cog, "reminder_loop", None)
        if loop is not None:
            return loop
    raise RuntimeError("no reminder loop is running")


def report_ticks(loop: ReminderLoop) -> None:
    """Each tick's clock and steps go to stdout; the loop and its sender are left as they are."""
    tick = loop.tick

    async def reported(now: datetime | None = None) -> TickReport:
        now = now or loop.clock()
        report = await tick(now)
        steps = [[s.encounter_id, s.guild_id, s.action, s.number] for s in report.steps]
        say(tick=loop.ticks, now=now.isoformat(), steps=steps, sent=report.sent, failed=report.failed)
        return report

    loop.tick = reported  # type: ignore[method-assign]


async def close_when_orphaned(bot: Fray, parent: int) -> None:
    """A test killed before it could stop this process must not leave it reconnecting forever."""
    while True:
        await asyncio.sleep(0.5)
        if os.getppid() != parent:
            await bot.close()
            return


def main(argv: list[str]) -> int:
    api, gateway, clock_file, seed, interval = argv
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    settings = dataclasses.replace(
        Settings.from_env(os.environ),
        reminder_interval=float(interval),
        heartbeat_interval=0.5,
        guild_ready_timeout=0.05,
        tracker_edit_interval=0.0,
    )
    setup_logging(settings.log_level, secrets=[settings.token])
    dice = RandomDice(int(seed))
    clock = FileClock(Path(clock_file))

    async def run() -> None:
        bot = Fray(settings, dice_factory=lambda: dice, clock=clock)
        told = False

        async def on_ready() -> None:
            nonlocal told
            if not told:  # READY again after a reconnect says nothing new
                told = True
                report_ticks(reminder_loop(bot))
                say(ready=sorted(g.id for g in bot.guilds), shards=sorted(bot.shards))

        bot.add_listener(on_ready, "on_ready")
        loop = asyncio.get_running_loop()
        stopping: set[asyncio.Task[None]] = set()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, lambda: stopping.add(loop.create_task(bot.close())))
        orphaned = loop.create_task(close_when_orphaned(bot, os.getppid()))
        async with bot:
            await bot.start(settings.token)
        orphaned.cancel()
        if stopping:
            await asyncio.wait(stopping, timeout=10)

    asyncio.run(run())
    return 0


# --- the test's side ---------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
STOP_WITHIN = 10.0
OUR_VARIABLES = ("DISCORD_TOKEN", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS", "HEARTBEAT_FILE", "LOG_LEVEL")


def set_clock(clock_file: Path, now: datetime) -> None:
    """Move the processes' clock (atomically: a process never reads half a file)."""
    part = clock_file.with_suffix(".part")
    part.write_text(now.isoformat() + "\n", encoding="utf-8")
    os.replace(part, clock_file)


class FrayProcess:
    """``python -m tests.e2e.fray_process`` against ``fd``; ``lines`` are what it said on stdout."""

    def __init__(
        self,
        name: str,
        fd: Any,
        *,
        database_url: str,
        workdir: Path,
        clock_file: Path,
        seed: int,
        shards: tuple[int, tuple[int, ...]] | None = None,
        reminder_interval: float = 0.1,
    ) -> None:
        self.name = name
        self.stderr_file = workdir / f"{name}.stderr"
        env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
        env.update(
            DISCORD_TOKEN=DEFAULT_TOKEN,
            DATABASE_URL=database_url,
            HEARTBEAT_FILE=str(workdir / f"{name}.heartbeat"),
            LOG_LEVEL="INFO",
        )
        if shards is not None:
            env.update(SHARD_COUNT=str(shards[0]), SHARD_IDS=",".join(map(str, shards[1])))
        self.env = env
        self.args = [fd.api_base, fd.gateway_url, str(clock_file), str(seed), str(reminder_interval)]
        self.lines: list[dict[str, Any]] = []
        self.proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._said = asyncio.Event()

    async def start(self) -> None:
        with self.stderr_file.open("ab") as stderr:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.e2e.fray_process",
                *self.args,
                cwd=ROOT,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
            )
        self._reader = asyncio.create_task(self._read(), name=f"{self.name}-stdout")

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for raw in self.proc.stdout:
            try:
                self.lines.append(json.loads(raw))
            except ValueError:
                self.lines.append({"text": raw.decode(errors="replace")})
            self._said.set()
        self._said.set()  # end of output: waiters see the process is gone

    def stderr(self) -> str:
        try:
            return self.stderr_file.read_text(errors="replace")
        except OSError:
            return ""

    async def wait_for(self, found: Any, within: float, what: str) -> dict[str, Any]:
        """The first line for which ``found(line)`` is true, waiting (at most ``within`` s) for it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        seen = 0
        while True:
            for line in self.lines[seen:]:
                if found(line):
                    return line
            seen = len(self.lines)
            if self._reader is not None and self._reader.done():
                raise RuntimeError(f"{self.name} exited (code {self.returncode}) before {what}")
            left = deadline - loop.time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {what} within {within} s")
            self._said.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._said.wait(), left)

    async def ready(self, within: float) -> dict[str, Any]:
        return await self.wait_for(lambda line: "ready" in line, within, "READY")

    async def ticked_at(self, now: datetime, within: float) -> dict[str, Any]:
        """The first finished reminder tick that read the clock at ``now`` or later."""
        return await self.wait_for(
            lambda line: "tick" in line and datetime.fromisoformat(line["now"]) >= now,
            within,
            f"reminder tick at {now.isoformat()}",
        )

    async def ticks_more(self, count: int, within: float) -> None:
        """Wait until ``count`` more reminder ticks have finished."""
        after = len(self.ticks()) + count
        await self.wait_for(lambda _: len(self.ticks()) >= after, within, f"{count} more ticks")

    def ticks(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if "tick" in line]

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not stopped within ``STOP_WITHIN`` s."""
        proc = self.proc
        if proc is not None and proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), STOP_WITHIN)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        if self._reader is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._reader, STOP_WITHIN)


@contextlib.asynccontextmanager
async def processes(*bots: FrayProcess) -> AsyncIterator[tuple[FrayProcess, ...]]:
    """Start ``bots`` together; stop every one on the way out (even on failure) and print their stderr, which
    pytest shows for a failed test."""
    try:
        for bot in bots:
            await bot.start()
        yield bots
    finally:
        await asyncio.gather(*(bot.stop() for bot in bots), return_exceptions=True)
        for bot in bots:
            sys.stderr.write(f"--- {bot.name} (exit code {bot.returncode}) stderr ---\n{bot.stderr()}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
