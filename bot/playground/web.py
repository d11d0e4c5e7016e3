"""The playground page's server: static files, a WebSocket of live messages per member, and the member's
actions (slash commands, autocomplete, button clicks) relayed to the bot through the loopback Discord.

Everything lives in the loopback and the bot, never in a page: a page that reloads or loses its connection
asks for a fresh snapshot and sees the same channel. Each socket has a member; it is sent the messages that
member could see (ephemeral ones only to their owner). Requests must name this machine as their host, so a
web site in another tab cannot drive the playground (DNS rebinding), and actions must be JSON posts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from bot.playground.commandline import Refusal, focused_options, parse_command
from bot.playground.loopback import (
    CommandNotAvailable,
    CommandNotFound,
    FakeDiscord,
    FakeMember,
    FakeMessage,
    InteractionFailed,
)
from bot.playground.loopback.interactions import APPLICATION_COMMAND, MESSAGE_COMPONENT, member_may_use
from bot.playground.table import Table
from rules.systems.registry import get_system

log = logging.getLogger(__name__)

STATIC = resources.files("bot.playground") / "static"
STATIC_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
LOCAL_HOSTS = ("127.0.0.1", "localhost")
# Discord's own words when an application fails to answer, or answers in a way Discord rejects.
NO_RESPONSE = "The application did not respond"
FAILED = "This interaction failed"

Demo = Callable[[], Awaitable[list[str]]]


class Site:
    """One playground's page. ``app`` is the aiohttp application; ``run_demo`` seats the demo table."""

    def __init__(self, fd: FakeDiscord, table: Table, run_demo: Demo) -> None:
        self.fd = fd
        self.table = table
        self.run_demo = run_demo
        self.sockets: dict[web.WebSocketResponse, FakeMember] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.app = web.Application(middlewares=[self._local_only], client_max_size=16 * 1024 * 1024)
        self.app.router.add_get("/", self._index)
        self.app.router.add_get("/static/{name}", self._static)
        self.app.router.add_get("/ws", self._socket)
        self.app.router.add_get("/files/{aid}/{filename}", self._file)
        self.app.router.add_post("/api/invoke", self._invoke)
        self.app.router.add_post("/api/autocomplete", self._autocomplete)
        self.app.router.add_post("/api/click", self._click)
        self.app.router.add_post("/api/demo", self._demo)
        fd.message_watchers.append(self._message_changed)

    # --- guards -------------------------------------------------------------------------------------

    @web.middleware
    async def _local_only(self, request: web.Request, handler):
        host = (request.host or "").rsplit(":", 1)[0].strip("[]")
        if host not in LOCAL_HOSTS:
            return web.Response(status=403, text="the playground answers only on 127.0.0.1")
        if request.method == "POST" and request.content_type != "application/json":
            return web.Response(status=415, text="actions are JSON posts")
        origin = request.headers.get("Origin")
        if origin is not None and origin.split("://", 1)[-1].rsplit(":", 1)[0] not in LOCAL_HOSTS:
            return web.Response(status=403, text="the playground answers only its own page")
        return await handler(request)

    # --- views --------------------------------------------------------------------------------------

    def owner_of(self, msg: FakeMessage) -> int | None:
        """Who may see an ephemeral message: the member whose interaction it answers."""
        if not msg.ephemeral or msg.interaction_id is None:
            return None
        rec = next((r for r in reversed(self.fd.interactions) if r.id == msg.interaction_id), None)
        return rec.member.id if rec is not None else None

    def visible(self, msg: FakeMessage, member: FakeMember) -> bool:
        if self.table.channel(msg.channel_id) is None:
            return False
        return not msg.ephemeral or self.owner_of(msg) == member.id

    def message_view(self, msg: FakeMessage) -> dict[str, Any]:
        author = msg.author or {}
        used = None
        meta = msg.interaction_metadata or {}
        if meta and "original_response_message_id" not in meta:  # Discord's "Ash used /attack" line
            rec = next((r for r in reversed(self.fd.interactions) if r.id == msg.interaction_id), None)
            if rec is not None and rec.type == APPLICATION_COMMAND:
                used = {"member": rec.member.name, "verb": "used", "command": rec.label}
            elif rec is not None and rec.type == MESSAGE_COMPONENT:
                button = rec.component or {}
                used = {
                    "member": rec.member.name,
                    "verb": "pressed",
                    "command": button.get("label") or "a button",
                }
        return {
            "id": str(msg.id),
            "channel_id": str(msg.channel_id),
            "author": {
                "id": author.get("id"),
                "name": author.get("username"),
                "bot": bool(author.get("bot")),
            },
            "content": msg.content,
            "embeds": msg.embeds,
            "components": msg.components,
            "attachments": [
                {"filename": a.filename, "url": f"/files/{a.id}/{a.filename}", "size": len(a.data)}
                for a in msg.attachments
            ],
            "ephemeral": msg.ephemeral,
            "loading": msg.loading,
            "edited": msg.edited_timestamp is not None,
            "timestamp": msg.timestamp,
            "used": used,
        }

    def snapshot(self, member: FakeMember) -> dict[str, Any]:
        guild = self.table.guild
        channels = []
        for system, channel in self.table.channels.items():
            rules = get_system(system)
            title = rules.title
            # the page's tip says "then /lockin" where actions wait in a plan
            locks = rules.traits.declares_then_locks
            channels.append(
                {
                    "id": str(channel.id),
                    "name": channel.name,
                    "system": system,
                    "title": title,
                    "topic": channel.topic,
                    "declares_then_locks": locks,
                }
            )
            if self.table.thread.parent_id == channel.id:
                thread = self.table.thread
                channels.append(
                    {
                        "id": str(thread.id),
                        "name": thread.name,
                        "system": system,
                        "title": title,
                        "parent_id": str(channel.id),
                        "declares_then_locks": locks,
                    }
                )
        commands = [
            c for c in self.fd.commands_for(guild) if c.get("type", 1) == 1 and member_may_use(c, member)
        ]
        messages = sorted(
            (m for m in self.fd.world.messages.values() if not m.deleted and self.visible(m, member)),
            key=lambda m: m.id,
        )
        return {
            "type": "snapshot",
            "server": guild.name,
            "me": str(member.id),
            "members": [
                {"id": str(m.id), "name": m.name, "gm": m is self.table.gm} for m in self.table.members
            ],
            "channels": channels,
            "users": {str(u.id): u.name for u in self.fd.world.users.values()},
            "roles": {str(r.id): r.name for r in guild.roles.values()},
            "commands": commands,
            "demo_seated": bool(getattr(self.run_demo, "seated", False)),
            "messages": [self.message_view(m) for m in messages],
        }

    # --- live updates -------------------------------------------------------------------------------

    def _message_changed(self, change: str, msg: FakeMessage) -> None:
        event = (
            {"type": "delete", "id": str(msg.id)}
            if change == "delete"
            else {"type": "message", "message": self.message_view(msg)}
        )
        for ws, member in list(self.sockets.items()):
            if self.visible(msg, member):
                self._spawn(self._send(ws, event))

    async def _send(self, ws: web.WebSocketResponse, event: dict[str, Any]) -> None:
        if ws.closed:
            self.sockets.pop(ws, None)
            return
        try:
            await asyncio.wait_for(ws.send_str(json.dumps(event)), 5)
        except (ConnectionError, TimeoutError, RuntimeError):
            self.sockets.pop(ws, None)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                try:
                    member = self._member(json.loads(frame.data).get("member"))
                except (ValueError, TypeError, AttributeError):
                    member = self.table.gm  # a first visit (or a member of an older table): the GM
                self.sockets[ws] = member  # hello, or a switch of member: a fresh snapshot
                await ws.send_str(json.dumps(self.snapshot(member)))
        finally:
            self.sockets.pop(ws, None)
        return ws

    # --- actions ------------------------------------------------------------------------------------

    def _member(self, raw: Any) -> FakeMember:
        member = self.table.member(int(raw)) if str(raw).isdecimal() else None
        if member is None:
            raise ValueError(f"no member {raw!r} at this table")
        return member

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(text="not JSON") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="expected an object")
        return body

    def _where(self, body: dict[str, Any]):
        try:
            member = self._member(body.get("member"))
        except ValueError as err:
            raise web.HTTPBadRequest(text=str(err)) from None
        raw = body.get("channel")
        channel = self.table.channel(int(raw)) if str(raw).isdecimal() else None
        if channel is None:
            raise web.HTTPBadRequest(text=f"no channel {raw!r} at this table")
        return member, channel

    @staticmethod
    def _words(body: dict[str, Any]) -> list[str]:
        return str(body.get("command") or "").split()

    @staticmethod
    def _options(body: dict[str, Any]) -> dict[str, Any]:
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise web.HTTPBadRequest(text="options must be an object")
        return options

    async def _relay(self, action: Coroutine[Any, Any, Any]) -> Any:
        """Run an interaction to its end even if the page goes away meanwhile (the bot's state must not
        depend on a browser tab)."""
        return await asyncio.shield(self._spawn(action))

    async def _outcome(self, action: Coroutine[Any, Any, Any]) -> web.Response:
        try:
            await self._relay(action)
        except Refusal as err:
            return web.json_response({"refusal": str(err)})
        except CommandNotAvailable:
            return web.json_response({"refusal": "You cannot use that here."})
        except CommandNotFound as err:
            log.info("the loopback refused: %s", err)
            return web.json_response(
                {"refusal": "Discord would not send that: " + str(err).split(": ", 1)[-1]}
            )
        except TimeoutError:
            return web.json_response({"error": NO_RESPONSE})
        except InteractionFailed as err:
            log.warning("%s", err)
            return web.json_response({"error": FAILED})
        return web.json_response({"ok": True})

    async def _invoke(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        member, channel = self._where(body)
        commands = self.fd.commands_for(self.table.guild)

        async def invoke() -> None:
            line = parse_command(commands, self.table, self._words(body), self._options(body))
            await self.fd.invoke(channel, member, line.path, **line.options)

        return await self._outcome(invoke())

    async def _autocomplete(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        member, channel = self._where(body)
        focused = str(body.get("focused") or "")
        try:
            path, options = focused_options(
                self.fd.commands_for(self.table.guild), self._words(body), self._options(body), focused
            )
            choices = await self._relay(
                self.fd.autocomplete(
                    channel, member, path, focused=focused, value=options.pop(focused), **options
                )
            )
        except (Refusal, CommandNotFound) as err:
            return web.json_response({"choices": [], "refusal": str(err)})
        except (TimeoutError, InteractionFailed):
            return web.json_response({"choices": [], "error": NO_RESPONSE})
        return web.json_response({"choices": choices})

    async def _click(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        try:
            member = self._member(body.get("member"))
        except ValueError as err:
            raise web.HTTPBadRequest(text=str(err)) from None
        raw = body.get("message")
        msg = self.fd.world.messages.get(int(raw)) if str(raw).isdecimal() else None
        if msg is None or not self.visible(msg, member):
            return web.json_response({"refusal": "That message is not there any more."})
        return await self._outcome(self.fd.click(msg, member, str(body.get("custom_id") or "")))

    async def _demo(self, request: web.Request) -> web.Response:
        await self._body(request)
        return web.json_response({"ok": True, "seated": await self._relay(self.run_demo())})

    # --- files --------------------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=(STATIC / "index.html").read_bytes(), content_type="text/html", charset="utf-8"
        )

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
        entry = STATIC / name
        if "/" in name or suffix not in STATIC_TYPES or not entry.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=entry.read_bytes(), content_type=STATIC_TYPES[suffix], charset="utf-8")

    async def _file(self, request: web.Request) -> web.StreamResponse:
        aid = request.match_info["aid"]
        att = self.fd.attachments.get(int(aid)) if aid.isdecimal() else None
        if att is None or att.filename != request.match_info["filename"]:
            raise web.HTTPNotFound()
        return web.Response(
            body=att.data,
            headers={
                "Content-Type": att.content_type or "application/octet-stream",
                "Content-Disposition": f'attachment; filename="{att.filename}"',
            },
        )

    async def close(self) -> None:
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2)
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=5)
