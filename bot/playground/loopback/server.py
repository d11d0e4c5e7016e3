"""FakeDiscord: the aiohttp server (REST + gateway + attachment CDN) and the API tests drive."""

# The README contract takes timeout= arguments (every wait is bounded by them).
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import socket
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from aiohttp import web

from .commands import CHAT_INPUT, STRING, normalise_command
from .gateway import (
    DIRECT_MESSAGES_INTENT,
    GUILD_MEMBERS_INTENT,
    GUILD_MESSAGES_INTENT,
    GatewayConnection,
    gateway_handler,
)
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    CommandNotAvailable,
    CommandNotFound,
    InteractionRecord,
    InteractionResult,
    build_options,
    member_may_use,
    modal_submission,
    resolve_path,
)
from .rest import API_PREFIX, api_handler, error
from .world import (
    EPHEMERAL,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    Pings,
    Snowflakes,
    World,
    iso,
)

log = logging.getLogger("bot.playground.loopback")

DEFAULT_TOKEN = "MTAxMDEwMTAxMDEwMTAxMDEw.GfAkEd.ZmFrZS10b2tlbi1mb3ItdGVzdHMtb25seQ"
# Flags a message may carry when sent by a bot (others are ignored like Discord does).
SETTABLE_FLAGS = EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15)


class InteractionFailed(AssertionError):
    """The fake rejected how the bot answered an interaction (see the message for Discord's error)."""


class FakeDiscord:
    """A loopback Discord. Use ``async with FakeDiscord() as fd:``; see README.md for the API."""

    def __init__(
        self,
        *,
        default_timeout: float = 10.0,
        settle: float = 0.05,
        callback_deadline: float | None = 3.0,
        heartbeat_interval_ms: int = 41250,
        strict: bool = True,
        snowflakes: Snowflakes | None = None,
    ) -> None:
        self.default_timeout = default_timeout
        self.settle = settle
        self.callback_deadline = callback_deadline
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.strict = strict
        self.world = World(snowflakes)
        # Called with ("create" | "update" | "delete", message) for every message, ephemeral ones too.
        self.message_watchers: list[Callable[[str, FakeMessage], None]] = []
        self.world.on_change = self._on_world_change
        self.problems: list[str] = []
        self.requests: list[tuple[str, str]] = []
        self.last_rest_activity = 0.0  # loop time of the latest REST request (start or end)
        self.not_found: list[tuple[str, int]] = []  # legitimate 404s (e.g. a deleted message), not problems
        self.sync_calls: list[tuple[Any, Any]] = []
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: defaultdict[int, list[dict[str, Any]]] = defaultdict(list)
        self.identify_payloads: list[dict[str, Any]] = []
        self.gateway_queries: list[dict[str, str]] = []
        self.interactions: list[InteractionRecord] = []
        self.reactions: dict[int, list[str]] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self.stats: Counter[str] = Counter()
        self.rest_peers: set[tuple[str, int]] = set()  # the client ends REST requests came from: connections
        self._interactions_by_token: dict[str, InteractionRecord] = {}
        self._command_ids: dict[tuple[Any, int, str], int] = {}
        self._sessions: dict[str, dict[str, Any]] = {}
        self._connections: list[GatewayConnection] = []
        self._connection: GatewayConnection | None = None  # the latest session to identify or resume
        self._shards: dict[int, GatewayConnection] = {}  # shard id → its live session
        self.recommended_shards = 1  # what GET /gateway/bot tells an auto-sharded bot
        self._ready = asyncio.Event()
        self._synced = asyncio.Event()
        self._sync_event = asyncio.Event()
        self._pending: set[asyncio.Task[None]] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ----------------------------------------------------------------------------------
    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/", self._gateway)
        app.router.add_route("GET", "/gateway", self._gateway)
        app.router.add_route("GET", "/attachments/{aid}/{filename}", self._attachment)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()
        return self

    async def stop(self) -> None:
        if self._pending:
            await asyncio.wait(self._pending, timeout=2)
        for conn in self._connections:
            if not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.ws.close(code=1001, message=b"fake discord stopping"), 2)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, exc_type, exc, tb) -> None:
        await self.stop()
        if self.strict and exc_type is None:
            self.assert_no_problems()

    # -- addresses ----------------------------------------------------------------------------------
    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.http_base + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @contextlib.contextmanager
    def redirect_discord(self) -> Iterator[None]:
        """Point discord.py's REST (``Route.BASE``) and gateway (``DEFAULT_GATEWAY``) at the fake."""
        import discord.gateway
        import discord.http
        import yarl

        old_base = discord.http.Route.BASE
        old_gw = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gw

    @contextlib.asynccontextmanager
    async def run_bot(
        self, client: Any, *, token: str = DEFAULT_TOKEN, timeout: float | None = None
    ) -> AsyncIterator[Any]:
        """Start ``client`` (discord.Client/commands.Bot) against the fake, wait until it is ready
        (``client.wait_until_ready``: mind ``guild_ready_timeout``), and close it cleanly on exit."""
        timeout = self.default_timeout if timeout is None else timeout
        with self.redirect_discord():
            task = asyncio.create_task(client.start(token), name="loopback-bot")
            try:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + timeout
                while not client.is_ready():  # bounded poll: wait_until_ready() fails before login
                    if task.done():
                        task.result()  # re-raise the bot's start() error
                        raise RuntimeError("bot stopped before becoming ready")
                    if loop.time() > deadline:
                        raise TimeoutError(f"bot not ready after {timeout}s (problems: {self.problems})")
                    await asyncio.sleep(0.01)
                yield client
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.close(), timeout)
                if not task.done():
                    try:
                        await asyncio.wait_for(task, timeout)
                    except TimeoutError:
                        self.problem("bot did not stop within timeout")
                elif not task.cancelled() and task.exception() is not None:
                    self.problem(f"bot.start() raised {task.exception()!r}")

    # -- problems -----------------------------------------------------------------------------------
    def problem(self, message: str, rec: InteractionRecord | None = None) -> None:
        log.warning("fake discord problem: %s", message)
        self.problems.append(message)
        if rec is not None:
            rec.problems.append(message)
            rec.touch()

    def take_problems(self) -> list[str]:
        """Return and clear the recorded problems (for tests that provoke them on purpose)."""
        out, self.problems[:] = list(self.problems), []
        return out

    def assert_no_problems(self) -> None:
        if self.problems:
            raise AssertionError("fake Discord recorded problems:\n  - " + "\n  - ".join(self.problems))

    # -- world --------------------------------------------------------------------------------------
    def add_guild(
        self, name: str, *, owner: str = "owner", shard: tuple[int, int] | None = None
    ) -> FakeGuild:
        """A server; ``shard=(shard_id, shard_count)`` gives it an id on that shard."""
        return self.world.add_guild(name, owner=owner, shard=shard)

    @property
    def guilds(self) -> dict[int, FakeGuild]:
        return self.world.guilds

    @property
    def bot_user(self):
        return self.world.bot_user

    @property
    def application_id(self) -> int:
        return self.world.application_id

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    # -- sessions and shards -------------------------------------------------------------------------
    def _live_connections(self) -> list[GatewayConnection]:
        return [c for c in self._shards.values() if c.identified and not c.closed]

    def _connected(self, conn: GatewayConnection) -> None:
        """A session identified or resumed: it now receives its shard's events."""
        self._connection = conn
        self._shards[conn.shard[0]] = conn
        self._update_ready()

    def _disconnected(self, conn: GatewayConnection) -> None:
        if self._shards.get(conn.shard[0]) is conn:
            del self._shards[conn.shard[0]]
        if self._connection is conn:
            self._connection = None
        self._update_ready()

    def _update_ready(self) -> None:
        """Ready once every shard of the shard count has a live session (one, unsharded)."""
        live = self._live_connections()
        count = live[0].shard[1] if live else 0
        if live and {c.shard[0] for c in live} == set(range(count)):
            self._ready.set()
        else:
            self._ready.clear()

    @property
    def shard_sessions(self) -> dict[int, GatewayConnection]:
        """The live session of each shard (``{0: …}`` for an unsharded bot)."""
        return {c.shard[0]: c for c in self._live_connections()}

    def connection_for(self, guild_id: int | None) -> GatewayConnection | None:
        """The session that gets a server's events: its shard's, ``(guild_id >> 22) % shard_count``.
        Events outside any server go to shard 0, as Discord sends DMs."""
        for conn in self._live_connections():
            if conn.owns(guild_id) if guild_id is not None else conn.shard[0] == 0:
                return conn
        return None

    def _on_world_change(self, event: str, data: dict[str, Any], guild: FakeGuild | None) -> None:
        conn = self.connection_for(guild.id if guild is not None else None)
        if conn is None:
            return
        if event == "GUILD_CREATE" and guild is not None:
            data = guild.create_payload(with_members=bool(conn.intents & GUILD_MEMBERS_INTENT))
        if event in ("GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE") and not conn.intents & GUILD_MEMBERS_INTENT:
            return
        self._send(conn, event, data)

    def _push(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        if guild_id is None and data.get("guild_id"):
            guild_id = int(data["guild_id"])
        conn = self.connection_for(guild_id)
        if conn is not None:
            self._send(conn, event, data)

    def _send(self, conn: GatewayConnection, event: str, data: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(conn.dispatch(event, data))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _push_message(self, event: str, msg: FakeMessage, payload: Callable[[], dict[str, Any]]) -> None:
        """A message event goes only to a session that asked for it, as Discord sends them: the
        GUILD_MESSAGES intent for a server's messages, DIRECT_MESSAGES for a DM's."""
        conn = self.connection_for(msg.guild_id)
        wanted = GUILD_MESSAGES_INTENT if msg.guild_id is not None else DIRECT_MESSAGES_INTENT
        if conn is not None and conn.intents & wanted:
            self._send(conn, event, payload())

    async def flush(self) -> None:
        """Wait until every queued gateway event went out."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=self.default_timeout)

    async def wait_until_ready(self, timeout: float | None = None) -> None:
        """Wait until the bot IDENTIFIED and was sent READY + GUILD_CREATE for every guild (sharded: until
        every shard of the shard count has a session, whichever processes run them)."""
        timeout = self.default_timeout if timeout is None else timeout
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            raise TimeoutError(
                f"bot did not IDENTIFY within {timeout}s (gateway connections: {len(self._connections)}, "
                f"requests: {self.requests[-5:]}, problems: {self.problems})"
            ) from None

    async def reconnect(self, *, resume: bool = True, timeout: float | None = None) -> None:
        """Ask the bot to reconnect (op 7 RECONNECT, the bot RESUMEs) or, with ``resume=False``, invalidate
        its session (op 9; discord.py then waits 5 s before a fresh IDENTIFY). Waits until it is back."""
        timeout = self.default_timeout if timeout is None else timeout
        conn = self._connection
        if conn is None:
            raise RuntimeError("the bot is not connected")
        before = len(self._connections)
        self._disconnected(conn)
        await conn.send({"op": 7, "d": None} if resume else {"op": 9, "d": False})
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not (len(self._connections) > before and self._ready.is_set()):
            if loop.time() > deadline:
                raise TimeoutError(f"bot did not come back within {timeout}s after reconnect request")
            await asyncio.sleep(0.01)

    async def wait_for_sync(self, timeout: float | None = None) -> None:
        timeout = self.default_timeout if timeout is None else timeout
        try:
            await asyncio.wait_for(self._synced.wait(), timeout)
        except TimeoutError:
            raise TimeoutError(f"bot did not sync commands within {timeout}s") from None

    # -- commands -----------------------------------------------------------------------------------
    def store_commands(self, guild_id: int | None, payload: list[dict[str, Any]]) -> list[dict[str, Any]]:
        stored = []
        for cmd in payload:
            ctype = cmd.get("type", CHAT_INPUT)
            key = (guild_id, ctype, cmd["name"])
            if key not in self._command_ids:
                self._command_ids[key] = self.world.next_id()
            stored.append(
                normalise_command(
                    cmd,
                    command_id=self._command_ids[key],
                    application_id=self.world.application_id,
                    version=self.world.next_id(),
                    guild_id=guild_id,
                )
            )
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        self._synced.set()
        self._sync_event.set()
        self._sync_event = asyncio.Event()
        return stored

    def commands_for(self, guild: FakeGuild | None) -> list[dict[str, Any]]:
        """Commands a member of ``guild`` would see (guild commands shadow nothing; both are listed)."""
        out = list(self.guild_commands.get(guild.id, [])) if guild else []
        return out + list(self.global_commands)

    def find_command(
        self, guild: FakeGuild | None, name: str, ctype: int = CHAT_INPUT
    ) -> dict[str, Any] | None:
        for cmd in self.commands_for(guild):
            if cmd["name"] == name and cmd.get("type", 1) == ctype:
                return cmd
        return None

    async def _wait_command(
        self, guild: FakeGuild | None, name: str, timeout: float, ctype: int = CHAT_INPUT
    ) -> dict[str, Any]:
        """Find a synced chat-input command; waits (bounded) for a sync if none happened yet."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        grace: float | None = None
        while True:
            cmd = self.find_command(guild, name, ctype)
            if cmd is not None:
                return cmd
            now = loop.time()
            if self.sync_calls and grace is None:
                grace = now + 0.5  # a sync already happened: allow a little for the next one only
            limit = min(deadline, grace) if grace is not None else deadline
            if now >= limit:
                names = sorted(c["name"] for c in self.commands_for(guild) if c.get("type", 1) == ctype)
                raise CommandNotFound(f"{name!r} (type {ctype}) was not synced (synced: {names})")
            ev = self._sync_event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), limit - now)

    # -- interactions -------------------------------------------------------------------------------
    def _interaction_payload(
        self, rec: InteractionRecord, extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        guild = rec.guild
        member: FakeMember = rec.member
        channel: FakeChannel = rec.channel
        perms = guild.channel_permissions(member, channel)
        app_perms = guild.channel_permissions(guild.bot_member, channel)
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(self.world.application_id),
            "type": rec.type,
            "data": rec.data,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
            "guild_locale": "en-US",
            "channel_id": str(channel.id),
            "channel": channel.to_dict(permissions=perms),
            "member": member.to_dict(with_permissions=True),
            "token": rec.token,
            "version": 1,
            "app_permissions": str(app_perms),
            "locale": rec.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if rec.message is not None:
            payload["message"] = self.message_payload(rec.message)
        payload.update(extra or {})
        return payload

    def _new_record(
        self, type: int, channel: FakeChannel, member: FakeMember, data, *, label, message=None, locale
    ):
        if member.guild is not channel.guild:
            raise ValueError(f"{member.name} is not a member of {channel.guild.name}")
        rec = InteractionRecord(
            self,
            type=type,
            guild=channel.guild,
            channel=channel,
            member=member,
            data=data,
            message=message,
            label=label,
        )
        rec.locale = locale
        return rec

    async def _dispatch(self, rec: InteractionRecord) -> None:
        await self.flush()
        guild_id = rec.guild.id if rec.guild is not None else None
        conn = self.connection_for(guild_id)
        if conn is None:
            try:
                await self.wait_until_ready()  # e.g. the bot is reconnecting
            except TimeoutError:
                raise RuntimeError("the bot is not connected to the fake gateway (start it first)") from None
            conn = self.connection_for(guild_id)
            assert conn is not None
        rec.payload = self._interaction_payload(rec)
        self.interactions.append(rec)
        self._interactions_by_token[rec.token] = rec
        rec.created = self._now()
        await conn.dispatch("INTERACTION_CREATE", rec.payload)

    async def _answer(self, rec: InteractionRecord, timeout: float | None) -> InteractionResult:
        timeout = self.default_timeout if timeout is None else timeout

        def done() -> bool:
            return rec.answered or bool(rec.problems)

        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self.callback_deadline is not None:
            # Discord gives up after 3 s without a callback ("The application did not respond"): fail fast.
            first = min(timeout, self.callback_deadline + 0.5)
            try:
                await rec.wait_for(
                    lambda: rec.callback_type is not None or bool(rec.problems), first, "a callback"
                )
            except TimeoutError:
                raise TimeoutError(
                    f"{rec.label}: no interaction callback within {first:.1f}s: {rec.missing()}"
                ) from None
        try:
            await rec.wait_for(done, max(0.0, deadline - loop.time()), "an answer")
        except TimeoutError:
            raise TimeoutError(f"{rec.label}: no answer within {timeout}s: {rec.missing()}") from None
        if rec.problems:
            raise InteractionFailed(
                f"{rec.label}: Discord would reject the bot's answer:\n  " + "\n  ".join(rec.problems)
            )
        await rec.settle(self.settle, min(2.0, max(0.0, deadline - loop.time())))
        return InteractionResult(rec)

    async def invoke(
        self,
        channel: FakeChannel,
        member: FakeMember,
        command: str,
        /,
        *,
        timeout: float | None = None,
        locale: str = "en-US",
        **options: Any,
    ) -> InteractionResult:
        """Run ``/command`` (``"gm system"`` for groups) as ``member`` in ``channel`` and wait for the answer."""
        parts = command.strip().lstrip("/").split()
        label = "/" + " ".join(parts)
        guild = channel.guild
        cmd = await self._wait_command(guild, parts[0], self.default_timeout if timeout is None else timeout)
        chain, decls = resolve_path(cmd, parts[1:], label)
        if not member_may_use(cmd, member):
            raise CommandNotAvailable(
                f"{label}: {member.name} lacks default_member_permissions={cmd.get('default_member_permissions')}; "
                "Discord would not offer this command"
            )
        ctx = {"guild": guild, "member": member}
        opts, resolved = build_options(self, ctx, decls, options, label=label)
        data = self._command_data(cmd, chain, opts, resolved)
        rec = self._new_record(APPLICATION_COMMAND, channel, member, data, label=label, locale=locale)
        await self._dispatch(rec)
        return await self._answer(rec, timeout)

    @staticmethod
    def _command_data(cmd, chain, opts, resolved) -> dict[str, Any]:
        for sub in reversed(chain):
            opts = [{"name": sub["name"], "type": sub["type"], "options": opts}]
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": cmd.get("type", 1)}
        if opts:
            data["options"] = opts
        if resolved:
            data["resolved"] = resolved
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        return data

    async def autocomplete(
        self,
        channel: FakeChannel,
        member: FakeMember,
        command: str,
        /,
        *,
        focused: str,
        value: Any = None,
        timeout: float | None = None,
        locale: str = "en-US",
        **options: Any,
    ) -> list[dict[str, Any]]:
        """Ask for autocomplete on option ``focused`` (typed text ``value``); returns the bot's choices."""
        parts = command.strip().lstrip("/").split()
        label = "/" + " ".join(parts) + f" [{focused}] autocomplete"
        guild = channel.guild
        cmd = await self._wait_command(guild, parts[0], self.default_timeout if timeout is None else timeout)
        chain, decls = resolve_path(cmd, parts[1:], label)
        decl = next((d for d in decls if d["name"] == focused), None)
        if decl is None or not decl.get("autocomplete"):
            raise CommandNotFound(f"{label}: option {focused!r} does not exist or has no autocomplete")
        if value is None:
            value = options.get(focused, "")
        options[focused] = value
        ctx = {"guild": guild, "member": member}
        opts, resolved = build_options(self, ctx, decls, options, label=label, focused=focused)
        data = self._command_data(cmd, chain, opts, resolved)
        rec = self._new_record(AUTOCOMPLETE, channel, member, data, label=label, locale=locale)
        rec.focused_type = decl["type"]
        await self._dispatch(rec)
        result = await self._answer(rec, timeout)
        return list(result.choices or [])

    async def context_menu(
        self,
        channel: FakeChannel,
        member: FakeMember,
        name: str,
        target: FakeMember | FakeMessage,
        *,
        timeout: float | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        """Use a user (target: FakeMember) or message (target: FakeMessage) context-menu command."""
        guild = channel.guild
        ctype = 3 if isinstance(target, FakeMessage) else 2
        timeout_ = self.default_timeout if timeout is None else timeout
        cmd = await self._wait_command(guild, name, timeout_, ctype)
        if not member_may_use(cmd, member):
            raise CommandNotAvailable(f"{name!r}: {member.name} lacks default_member_permissions")
        if isinstance(target, FakeMessage):
            resolved = {"messages": {str(target.id): self.message_payload(target)}}
        else:
            resolved = {
                "users": {str(target.id): target.user.to_dict()},
                "members": {str(target.id): target.to_dict(with_user=False, with_permissions=True)},
            }
        data = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": ctype,
            "target_id": str(target.id),
            "resolved": resolved,
        }
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        rec = self._new_record(
            APPLICATION_COMMAND, channel, member, data, label=f"context menu {name!r}", locale=locale
        )
        await self._dispatch(rec)
        return await self._answer(rec, timeout)

    async def click(
        self,
        message: FakeMessage | InteractionResult | int,
        member: FakeMember,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        values: list[str] | None = None,
        timeout: float | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        """Click a button (or choose ``values`` in a select) on a message the bot posted.

        ``custom_id`` or the button ``label`` identifies the component."""
        msg = self._resolve_message(message)
        if msg.deleted:
            raise CommandNotFound(f"message {msg.id} was deleted")
        comp = None
        if custom_id is not None:
            comp = msg.find_component(custom_id)
        elif label is not None:
            found = [c for c in msg.iter_components() if c.get("label") == label]
            comp = found[0] if len(found) == 1 else None
        if comp is None or "custom_id" not in comp:
            raise CommandNotFound(
                f"message {msg.id} has no component {custom_id or label!r} (custom_ids: {msg.custom_ids})"
            )
        if comp.get("disabled"):
            raise CommandNotAvailable(f"component {comp['custom_id']!r} is disabled")
        if msg.ephemeral and msg.interaction_id:
            owner = next((r for r in self.interactions if r.id == msg.interaction_id), None)
            if owner is not None and owner.member is not member:
                raise CommandNotAvailable(f"{member.name} cannot see ephemeral message {msg.id}")
        channel = self.world.channel(msg.channel_id)
        assert channel is not None
        data: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": comp["type"]}
        if comp["type"] in (3, 5, 6, 7, 8):
            picked = list(values or [])
            lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
            if not lo <= len(picked) <= hi:
                raise CommandNotFound(
                    f"select {comp['custom_id']!r} takes {lo}-{hi} values, got {len(picked)}"
                )
            if comp["type"] == 3:
                data["values"] = [str(v) for v in picked]
                allowed = {o.get("value") for o in comp.get("options") or []}
                bad = [v for v in data["values"] if v not in allowed]
                if bad:
                    raise CommandNotFound(f"select {comp['custom_id']!r} has no option(s) {bad}")
            else:  # user/role/mentionable/channel selects: FakeMember/FakeRole/FakeChannel values
                resolved: dict[str, Any] = {}
                ids = []
                for v in picked:
                    if isinstance(v, FakeMember):
                        resolved.setdefault("users", {})[str(v.id)] = v.user.to_dict()
                        resolved.setdefault("members", {})[str(v.id)] = v.to_dict(
                            with_user=False, with_permissions=True
                        )
                    elif isinstance(v, FakeRole):
                        resolved.setdefault("roles", {})[str(v.id)] = v.to_dict()
                    elif isinstance(v, FakeChannel):
                        perms = v.guild.channel_permissions(member, v)
                        resolved.setdefault("channels", {})[str(v.id)] = v.to_dict(permissions=perms)
                    else:
                        raise CommandNotFound(f"select {comp['custom_id']!r}: cannot pick {v!r}")
                    ids.append(str(v.id))
                data["values"] = ids
                data["resolved"] = resolved
        elif values:
            raise ValueError("values= is only for select menus")
        rec = self._new_record(
            MESSAGE_COMPONENT,
            channel,
            member,
            data,
            label=f"component {comp['custom_id']!r}",
            message=msg,
            locale=locale,
        )
        rec.component = dict(comp)  # the message may lose it later (a passed turn's End turn)
        await self._dispatch(rec)
        return await self._answer(rec, timeout)

    select = click

    async def submit_modal(
        self,
        result: InteractionResult,
        member: FakeMember,
        values: dict[str, Any],
        *,
        timeout: float | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        """Submit the modal the bot opened in ``result`` with ``{custom_id: value}``."""
        modal = result.modal
        if modal is None:
            raise CommandNotFound(f"{result.interaction.label} did not open a modal")
        data = {"custom_id": modal["custom_id"], "components": modal_submission(modal, values)}
        parent = result.interaction
        rec = self._new_record(
            MODAL_SUBMIT,
            parent.channel,
            member,
            data,
            label=f"modal {modal['custom_id']!r}",
            message=parent.message,
            locale=locale,
        )
        await self._dispatch(rec)
        return await self._answer(rec, timeout)

    def _resolve_message(self, message: FakeMessage | InteractionResult | int) -> FakeMessage:
        if isinstance(message, InteractionResult):
            if message.response is None:
                raise CommandNotFound(f"{message.interaction.label} produced no message")
            return message.response
        if isinstance(message, int):
            found = self.world.messages.get(message)
            if found is None:
                raise CommandNotFound(f"no message {message}")
            return found
        return message

    # -- messages -----------------------------------------------------------------------------------
    def make_attachment(
        self, filename: str, data: bytes, content_type: str | None = None, *, ephemeral: bool = False
    ) -> FakeAttachment:
        aid = self.world.next_id()
        ctype = content_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
        att = FakeAttachment(
            aid,
            filename,
            bytes(data),
            f"{self.http_base}/attachments/{aid}/{filename}",
            ctype,
            ephemeral=ephemeral,
        )
        self.attachments[aid] = att
        return att

    def _attachments_from(self, payload: dict[str, Any], files: list, existing: list[FakeAttachment]):
        by_index: dict[int, tuple[str, bytes, str | None]] = {}
        for n, (field, filename, data, ctype) in enumerate(files):
            idx = n
            if field.startswith("files[") and field.endswith("]") and field[6:-1].isdigit():
                idx = int(field[6:-1])
            by_index[idx] = (filename, data, ctype)
        out: list[FakeAttachment] = []
        entries = payload.get("attachments")
        if entries is None:
            out = list(existing)
            entries = [{"id": i} for i in sorted(by_index)]
        keep = {a.id: a for a in existing}
        for e in entries:
            eid = e.get("id")
            if isinstance(eid, str) and eid.isdigit() and int(eid) in keep:
                out.append(keep[int(eid)])
                continue
            if isinstance(eid, int) and eid in keep:
                out.append(keep[eid])
                continue
            idx = int(eid) if eid is not None else len(out)
            if idx not in by_index:
                self.problem(f"attachment entry {e!r} refers to no uploaded file")
                continue
            filename, data, ctype = by_index.pop(idx)
            att = self.make_attachment(e.get("filename") or filename, data, ctype)
            att.description = e.get("description")
            out.append(att)
        for idx in sorted(by_index):  # files without an attachments entry
            filename, data, ctype = by_index[idx]
            out.append(self.make_attachment(filename, data, ctype))
        return out

    def _message_from(
        self, channel: FakeChannel, payload: dict[str, Any], files: list, **kw: Any
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.world.next_id(),
            channel_id=channel.id,
            guild_id=channel.guild.id,
            author=kw.pop("author", None) or self.world.bot_user.to_dict(),
            content=payload.get("content") or "",
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            flags=int(payload.get("flags") or 0) & (SETTABLE_FLAGS | LOADING),
            allowed_mentions=payload.get("allowed_mentions"),
            tts=bool(payload.get("tts")),
            poll=payload.get("poll"),
            message_reference=payload.get("message_reference"),
            **kw,
        )
        msg.attachments = self._attachments_from(payload, files, [])
        self.world.messages[msg.id] = msg
        return msg

    async def create_interaction_message(
        self, rec: InteractionRecord, payload: dict[str, Any], files: list, *, followup: bool = False
    ) -> FakeMessage:
        app = self.world.application_id
        msg = self._message_from(
            rec.channel,
            payload,
            files,
            interaction_id=rec.id,
            webhook_id=app,
            application_id=app,
        )
        meta: dict[str, Any] = {
            "id": str(rec.id),
            "type": rec.type,
            "user": rec.member.user.to_dict(),
            "authorizing_integration_owners": {"0": str(rec.guild.id)},
        }
        if followup and rec.original is not None:
            meta["original_response_message_id"] = str(rec.original.id)
        if rec.type == MESSAGE_COMPONENT and rec.message is not None:
            meta["interacted_message_id"] = str(rec.message.id)
        msg.interaction_metadata = meta
        if not msg.ephemeral:
            self._push_message("MESSAGE_CREATE", msg, lambda: self.message_payload(msg))
        self._watch("create", msg)
        return msg

    async def create_channel_message(
        self, channel: FakeChannel, payload: dict[str, Any], files: list, *, author: FakeMember | None = None
    ) -> FakeMessage:
        msg = self._message_from(channel, payload, files, author=author.user.to_dict() if author else None)
        self._push_message(
            "MESSAGE_CREATE",
            msg,
            lambda: self.message_payload(msg, member=author or channel.guild.bot_member),
        )
        self._watch("create", msg)
        return msg

    async def edit_message(
        self, msg: FakeMessage, payload: dict[str, Any], files: list, *, followup: bool = False
    ) -> None:
        was_loading = msg.loading
        msg.history.append(self.message_payload(msg))
        if "content" in payload:
            msg.content = payload["content"] or ""
        for key in ("embeds", "components"):
            if key in payload:
                setattr(msg, key, list(payload[key] or []))
        if "allowed_mentions" in payload:
            msg.allowed_mentions = payload["allowed_mentions"]
        if "poll" in payload:
            msg.poll = payload["poll"]
        if "flags" in payload and payload["flags"] is not None:
            keep = msg.flags & EPHEMERAL if not followup else 0
            msg.flags = keep | (int(payload["flags"]) & SETTABLE_FLAGS & (~EPHEMERAL if not followup else ~0))
        msg.flags &= ~LOADING
        if "attachments" in payload or files:
            msg.attachments = self._attachments_from(payload, files, msg.attachments)
        if not was_loading:
            msg.edited_timestamp = iso()
        if not msg.ephemeral:
            self._push_message("MESSAGE_UPDATE", msg, lambda: self.message_payload(msg))
        self._watch("update", msg)

    async def delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            self._push_message(
                "MESSAGE_DELETE",
                msg,
                lambda: {"id": str(msg.id), "channel_id": str(msg.channel_id), "guild_id": str(msg.guild_id)},
            )
        self._watch("delete", msg)

    def _watch(self, change: str, msg: FakeMessage) -> None:
        for watcher in self.message_watchers:
            try:
                watcher(change, msg)
            except Exception:  # a watcher (the playground page) must never break Discord's side
                log.exception("message watcher failed on %s of %s", change, msg.id)

    def message_payload(self, msg: FakeMessage, *, member: FakeMember | None = None) -> dict[str, Any]:
        data = msg.to_dict(self.world)
        if member is not None:
            data["member"] = member.to_dict(with_user=False)
        return data

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """Messages visible in ``channel`` (not ephemeral, not deleted), oldest first."""
        return sorted(
            (
                m
                for m in self.world.messages.values()
                if m.channel_id == channel.id and not m.ephemeral and not m.deleted
            ),
            key=lambda m: m.id,
        )

    def pings(self, message: FakeMessage | InteractionResult) -> Pings:
        """Who ``message`` notifies: a frozenset of user ids with ``.everyone``, ``.here``, ``.roles``."""
        return self.world.pings(self._resolve_message(message))

    async def post_message(self, channel: FakeChannel, member: FakeMember, content: str) -> FakeMessage:
        """A member types a message in ``channel`` (dispatched to the bot as MESSAGE_CREATE)."""
        return await self.create_channel_message(channel, {"content": content}, [], author=member)

    # -- HTTP handlers ------------------------------------------------------------------------------
    async def _api(self, request: web.Request) -> web.StreamResponse:
        self.last_rest_activity = self._now()
        peer = request.transport.get_extra_info("peername") if request.transport is not None else None
        if peer is not None:
            self.rest_peers.add((peer[0], peer[1]))
        try:
            return await api_handler(self, request)
        except Exception as exc:  # a bug in the fake must fail the test, not hang it
            log.exception("fake discord crashed on %s %s", request.method, request.path)
            self.problem(f"fake crashed on {request.method} {request.path}: {exc!r}")
            return error(500, 0, "500: Internal Server Error")
        finally:
            self.last_rest_activity = self._now()

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() != "websocket":
            return await self._unknown(request)
        return await gateway_handler(self, request)

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        aid = request.match_info["aid"]
        att = self.attachments.get(int(aid)) if aid.isdigit() else None
        if att is None or att.filename != request.match_info["filename"]:
            self.problem(f"CDN: unknown attachment {request.path}")
            return web.Response(status=404, text="Not Found")
        return web.Response(
            body=att.data, headers={"Content-Type": att.content_type or "application/octet-stream"}
        )

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        self.problem(f"unknown URL {request.method} {request.path}")
        return error(404, 0, "404: Not Found")


__all__ = ["DEFAULT_TOKEN", "STRING", "FakeDiscord", "InteractionFailed"]
