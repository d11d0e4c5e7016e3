"""The ``Fray`` bot: one class for production and tests.

``setup_hook`` (after login, before the gateway): apply migrations → load the cogs as extensions → register
their DynamicItems (persistent buttons) → sync commands when they changed → start the heartbeat. The tree's
one error handler is installed by the first extension, ``cogs.error_handler``. Extensions are named here, not
imported: this is where the shell is composed with the cogs.

Production: ``await run_bot(settings)``. Tests: ``async with running(settings, dice_factory=...) as bot``, or
``asyncio.create_task(bot.start(token))`` … ``await bot.close()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal

import aiohttp
import discord
from discord.ext import commands
from discord.utils import MISSING

from bot import checkpoints, memory, message_events, sole_writer
from bot.db import create_engine, migrate, session_factory
from bot.settings import Settings
from bot.store import Store
from bot.sync import SyncResult, sync_commands
from rules.dice import DiceSource, RandomDice

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = (
    "cogs.error_handler",
    "cogs.dice",
    "cogs.gm",
    "cogs.characters",
    "cogs.live_trackers",
    "cogs.encounters",
    "cogs.turns",
    "cogs.actions",
    "cogs.help",
)
# A stop waits this long (seconds) for the answers being sent; docker stop allows 10 before it kills.
FINISH_WITHIN = 5.0
REST_CONNECTIONS = 100  # open connections to Discord's API at most (aiohttp's own default)
ALLOWED_MENTIONS = discord.AllowedMentions(everyone=False, users=True, roles=False, replied_user=False)

SyncMode = Literal["auto", "force", "skip"]
DiceFactory = Callable[[], DiceSource]
Clock = Callable[[], datetime]
GMSource = Callable[[discord.Interaction], Awaitable[bool]]


def utc_now() -> datetime:
    return datetime.now(UTC)


class Fray(commands.AutoShardedBot):
    """Fray's Discord client. ``dice_factory`` and ``clock`` are injectable (tests); nothing else differs."""

    def __init__(
        self,
        settings: Settings,
        *,
        dice_factory: DiceFactory | None = None,
        clock: Clock | None = None,
        sync: SyncMode = "auto",
        heartbeat: bool = True,
        extensions: Iterable[str] = EXTENSIONS,
        freeze_startup: bool = False,
    ) -> None:
        # No SHARD_COUNT: as many shards as Discord recommends, all here. SHARD_COUNT alone: that many, all
        # here. With SHARD_IDS: only those (other processes run the rest).
        shards: dict[str, Any] = {}
        if settings.shard_count is not None:
            shards["shard_count"] = settings.shard_count
            if settings.shard_ids:
                shards["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,  # no text commands; required by commands.Bot
            help_command=None,
            # Commands and buttons come as interactions: Fray follows the servers' channels and threads, and
            # new messages only to count how far a tracker has scrolled up (``bot.message_events``). The
            # other default events (typing, reactions, DMs, …) would each be parsed for nothing.
            intents=discord.Intents(guilds=True, guild_messages=True),
            allowed_mentions=ALLOWED_MENTIONS,
            max_messages=None,  # Fray reads no messages: no cache to fill and search on every message event
            guild_ready_timeout=settings.guild_ready_timeout,
            **shards,
        )
        self.settings = settings
        self.clock: Clock = clock or utc_now
        production_dice = RandomDice()
        self.dice_factory: DiceFactory = dice_factory or (lambda: production_dice)
        self.engine = create_engine(settings.database_url, database_path=settings.database_path)
        self.sessions = session_factory(self.engine)
        self.store = Store(self.sessions, self.clock)
        # More ways to be a GM (e.g. "started the running encounter"): async predicates added by cogs.
        self.gm_sources: list[GMSource] = []
        # Told of each new message in the gateway's own callback: plain, quick functions. A new or edited
        # message builds no ``discord.Message`` (``bot.message_events``).
        self.message_observers: list[message_events.Observer] = []
        message_events.install(self._connection, self.message_observers)
        self.last_sync: SyncResult | None = None
        self._sync_mode: SyncMode = sync
        self._heartbeat_enabled = heartbeat
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._memory_task: asyncio.Task[None] | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self._extension_names = tuple(extensions)
        self._freeze_startup = freeze_startup
        # Set when a stop begins: new interactions are refused, those being answered are waited for.
        self.stopping = False
        self._finishing: set[asyncio.Task[Any]] = set()
        self._writer_lock: sole_writer.WriterLock | None = None

    # --- start ------------------------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        if self.settings.database_path is not None:  # SQLite: this process is the file's only writer
            self._writer_lock = sole_writer.hold(self.settings.database_path)
            if self._writer_lock is not None:
                self.store.sole_writer(self._writer_lock.alone)
        await migrate(self.engine)
        for name in self._extension_names:
            await self.load_extension(name)
            self.add_dynamic_items(*getattr(self.extensions[name], "DYNAMIC_ITEMS", ()))
        if self._sync_mode != "skip":
            await self.sync_commands(force=self._sync_mode == "force")
        if self._heartbeat_enabled:
            self._heartbeat_task = asyncio.create_task(self._heartbeat(), name="fray-heartbeat")
        if self.settings.database_path is not None:  # SQLite: its log copied in a worker thread
            self._checkpoint_task = asyncio.create_task(
                checkpoints.keep_checkpointing(self.settings.database_path), name="fray-checkpoint"
            )
        trim = memory.malloc_trim()
        if trim is not None:
            self._memory_task = asyncio.create_task(
                memory.give_back_freed_memory(trim), name="fray-give-back-memory"
            )
        if self._freeze_startup:
            memory.freeze_startup()
            memory.collect_young_less_often()

    async def sync_commands(self, *, force: bool = False) -> SyncResult | None:
        """Sync when the payload changed (or ``force``). A failed automatic sync is logged, not fatal."""
        try:
            self.last_sync = await sync_commands(
                self.tree,
                self.store,
                application_id=self.application_id,
                dev_guild_id=self.settings.dev_guild_id,
                clock=self.clock,
                force=force,
            )
        except discord.HTTPException:
            if force:
                raise
            log.exception(
                "command sync failed; the commands Discord shows may be out of date until the next start"
            )
            return None
        return self.last_sync

    def dice_source(self) -> DiceSource:
        return self.dice_factory()

    async def login(self, token: str) -> None:
        # discord.py's own connector has no limit: a thousand commands deferred at once opened about 800
        # connections (a TLS handshake each against Discord), 4 MB at the storm's peak. Past the limit a
        # request waits for a connection to come free, which on loopback is well under a millisecond.
        if self.http.connector is MISSING:
            self.http.connector = aiohttp.TCPConnector(limit=REST_CONNECTIONS)
        await super().login(token)

    async def on_ready(self) -> None:
        log.info(
            "connected as %s (%s) to %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds)
        )

    # --- heartbeat --------------------------------------------------------------------------------------

    def gateway_connected(self) -> bool:
        """Ready, and every shard this process runs has its gateway connection open."""
        try:
            shards = list(self.shards.values())
            return (
                self.is_ready()
                and not self.is_closed()
                and bool(shards)
                and not any(shard.is_closed() for shard in shards)
            )
        except Exception:
            return False

    async def _heartbeat(self) -> None:
        path = self.settings.heartbeat_file
        path.parent.mkdir(parents=True, exist_ok=True)
        while not self.is_closed():
            if self.gateway_connected():
                try:
                    path.write_text(self.clock().isoformat() + "\n", encoding="utf-8")
                except OSError:
                    log.warning("cannot write the heartbeat file %s", path, exc_info=True)
            await asyncio.sleep(self.settings.heartbeat_interval)

    # --- stop -------------------------------------------------------------------------------------------

    def finish_before_closing(self, task: asyncio.Task[Any] | None) -> None:
        """``task`` answers an interaction (or shows its outcome): a stop lets it finish, up to
        ``FINISH_WITHIN``, before the connection to Discord closes."""
        if task is not None and not task.done():
            self._finishing.add(task)
            task.add_done_callback(self._finishing.discard)

    def under_way(self) -> set[asyncio.Task[Any]]:
        """The answers, announcements and tracker edits started and not finished yet (``finish_before_closing``),
        but the caller's own."""
        return {task for task in self._finishing if task is not asyncio.current_task()}

    async def _finish(self) -> None:
        # A change committed while the stop began is still told: its answer, announcement and tracker edit.
        self.stopping = True
        loop = asyncio.get_running_loop()
        until = loop.time() + FINISH_WITHIN
        while True:  # bounded by FINISH_WITHIN; an answer may leave one more task (its tracker's last edit)
            pending = self.under_way()
            if not pending:
                return
            if loop.time() >= until:
                log.warning(
                    "stopping after %.1f s with answers still under way: %d", FINISH_WITHIN, len(pending)
                )
                return
            log.info("stopping: finishing the answers under way first: %d", len(pending))
            await asyncio.wait(pending, timeout=until - loop.time())

    async def close(self) -> None:
        if not self.stopping:
            await self._finish()
        for task in (self._heartbeat_task, self._memory_task, self._checkpoint_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._heartbeat_task = self._memory_task = self._checkpoint_task = None
        try:
            await super().close()
        finally:
            await self.engine.dispose()
            if self._writer_lock is not None:
                self._writer_lock.release()


async def run_bot(settings: Settings, **injectables: Any) -> None:
    """Run the bot until it is closed; SIGTERM (docker stop) and SIGINT close it cleanly. The process is the
    bot's own: what it loads at the start is kept out of the garbage collector's reach (``freeze_startup``),
    and its young generation is collected less often (``collect_young_less_often``)."""
    injectables.setdefault("freeze_startup", True)
    bot = Fray(settings, **injectables)
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def stop() -> None:
        log.info("stopping")
        stopping.add(loop.create_task(bot.close()))

    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop)
            installed.append(sig)
    try:
        async with bot:
            await bot.start(settings.token)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        if stopping:
            await asyncio.wait(stopping, timeout=10)


async def sync_once(settings: Settings, *, force: bool = True) -> SyncResult | None:
    """Log in over HTTP only (no gateway), migrate, load the cogs, sync, and close (``python -m bot sync``)."""
    bot = Fray(settings, sync="force" if force else "auto", heartbeat=False)
    async with bot:
        await bot.login(settings.token)
        return bot.last_sync


@contextlib.asynccontextmanager
async def running(
    settings: Settings, *, ready_within: float = 15.0, **injectables: Any
) -> AsyncIterator[Fray]:
    """Start a real ``Fray`` in a task, wait (bounded) until it is ready, yield it, and close it (bounded)."""
    bot = Fray(settings, **injectables)
    async with bot:  # sets up the client's loop state before anything waits on it
        task = asyncio.create_task(bot.start(settings.token), name="fray-bot")
        ready = asyncio.create_task(bot.wait_until_ready(), name="fray-ready")
        try:
            done, _ = await asyncio.wait(
                {task, ready}, timeout=ready_within, return_when=asyncio.FIRST_COMPLETED
            )
            if task in done:
                task.result()  # startup failed: raise its error
                raise RuntimeError("the bot stopped before it was ready")
            if ready not in done:
                raise TimeoutError(f"the bot was not ready within {ready_within} s")
            yield bot
        finally:
            ready.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(bot.close(), ready_within)
            if not task.done():
                task.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, ready_within)
