"""Gateway (websocket) side of the fake: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME,
and DISPATCH of events with increasing sequence numbers, zlib-stream compressed like Discord does it.

Sharding as Discord does it: IDENTIFY may carry ``shard: [shard_id, shard_count]``; that session then gets
only the servers of its shard, ``(guild_id >> 22) % shard_count``, in READY, GUILD_CREATE and every event
(no ``shard`` is shard ``[0, 1]``)."""

from __future__ import annotations

import asyncio
import json
import secrets
import zlib
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .server import FakeDiscord

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT, REQUEST_MEMBERS, INVALID_SESSION = (
    0,
    1,
    2,
    3,
    4,
    6,
    7,
    8,
    9,
)
HELLO, HEARTBEAT_ACK = 10, 11
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12


class GatewayConnection:
    """One websocket connection from the bot."""

    def __init__(self, fd: FakeDiscord, ws: web.WebSocketResponse, *, compress: bool, encoding: str) -> None:
        self.fd = fd
        self.ws = ws
        self.compress = compress
        self.encoding = encoding
        # One compressobj for the whole connection: the stream is continuous, each payload
        # is flushed with Z_SYNC_FLUSH so it ends with 00 00 ff ff (what discord.py waits for).
        self._z = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()
        self.session_id: str | None = None
        self.seq = 0
        self.intents = 0
        self.identified = False
        self.shard: tuple[int, int] = (0, 1)  # (shard_id, shard_count) from IDENTIFY
        self.sent: list[dict[str, Any]] = []  # decoded payloads sent on this connection
        self.received: list[dict[str, Any]] = []

    @property
    def closed(self) -> bool:
        return self.ws.closed

    async def send(self, payload: dict[str, Any]) -> None:
        async with self._lock:
            await self._send_locked(payload)

    async def _send_locked(self, payload: dict[str, Any]) -> None:
        if self.ws.closed:
            return
        raw = json.dumps(payload, separators=(",", ":"))
        self.sent.append(payload)
        if self._z is not None:
            data = self._z.compress(raw.encode()) + self._z.flush(zlib.Z_SYNC_FLUSH)
            self.fd.stats["zlib_frames"] += 1
            await self.ws.send_bytes(data)
        else:
            await self.ws.send_str(raw)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        # Sequence assigned under the lock so frames go out in sequence order.
        async with self._lock:
            self.seq += 1
            session = self.fd._sessions.get(self.session_id or "")
            if session is not None:
                session["seq"] = self.seq
            await self._send_locked({"op": DISPATCH, "t": event, "s": self.seq, "d": data})

    async def run(self) -> None:
        fd = self.fd
        await self.send(
            {"op": HELLO, "d": {"heartbeat_interval": fd.heartbeat_interval_ms, "_trace": ["fake-gw"]}}
        )
        async for msg in self.ws:
            if msg.type == WSMsgType.TEXT:
                try:
                    payload = json.loads(msg.data)
                except ValueError:
                    fd.problem(f"gateway: bot sent invalid JSON {msg.data[:100]!r}")
                    continue
            elif msg.type == WSMsgType.BINARY:
                fd.problem("gateway: bot sent a binary frame (expected JSON text)")
                continue
            else:
                break
            self.received.append(payload)
            await self.handle(payload)

    async def handle(self, payload: dict[str, Any]) -> None:
        fd = self.fd
        op = payload.get("op")
        d = payload.get("d")
        if op == HEARTBEAT:
            fd.stats["heartbeats"] += 1
            await self.send({"op": HEARTBEAT_ACK})
        elif op == IDENTIFY:
            await self.identify(d or {})
        elif op == RESUME:
            await self.resume(d or {})
        elif op == REQUEST_MEMBERS:
            await self.request_members(d or {})
        elif op in (PRESENCE, VOICE):
            pass
        else:
            fd.problem(f"gateway: unexpected op {op!r}: {payload!r}"[:300])

    async def identify(self, d: dict[str, Any]) -> None:
        fd = self.fd
        if self.identified:
            fd.problem("gateway: IDENTIFY sent twice on one connection")
            await self.ws.close(code=4005, message=b"Already authenticated.")
            return
        if not isinstance(d.get("token"), str) or not d["token"]:
            fd.problem("gateway: IDENTIFY without token")
            await self.ws.close(code=4004, message=b"Authentication failed.")
            return
        if not isinstance(d.get("intents"), int):
            fd.problem("gateway: IDENTIFY without integer intents")
            await self.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        if not isinstance(d.get("properties"), dict):
            fd.problem("gateway: IDENTIFY without properties")
        shard = self._shard(d.get("shard"))
        if shard is None:
            await self.ws.close(code=4010, message=b"Invalid shard.")
            return
        self.identified = True
        self.intents = d["intents"]
        self.shard = shard
        fd.identify_payloads.append({k: v for k, v in d.items() if k != "token"})
        self.session_id = secrets.token_hex(16)
        fd._sessions[self.session_id] = {"seq": 0, "intents": self.intents, "shard": shard}
        world = fd.world
        guilds = [g for g in world.guilds.values() if self.owns(g.id)]
        await self.dispatch(
            "READY",
            {
                "v": 10,
                "user": {**world.bot_user.to_dict(), "verified": True, "mfa_enabled": False, "email": None},
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": self.session_id,
                "session_type": "normal",
                "resume_gateway_url": fd.gateway_url,
                "application": {"id": str(world.application_id), "flags": world.application_flags},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "user_settings": {},
                "geo_ordered_rtc_regions": ["fake"],
                "_trace": ["fake-gw"],
                **({"shard": d["shard"]} if "shard" in d else {}),
            },
        )
        with_members = bool(self.intents & GUILD_MEMBERS_INTENT)
        for guild in guilds:
            await self.dispatch("GUILD_CREATE", guild.create_payload(with_members=with_members))
        fd._connected(self)

    def _shard(self, raw: Any) -> tuple[int, int] | None:
        """IDENTIFY's ``shard`` checked as Discord does: ``[shard_id, shard_count]``, one count for all."""
        if raw is None:
            return 0, 1
        fd = self.fd
        if not (
            isinstance(raw, list)
            and len(raw) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) for n in raw)
            and 0 <= raw[0] < raw[1]
        ):
            fd.problem(f"gateway: IDENTIFY with an invalid shard {raw!r} (expected [shard_id, shard_count])")
            return None
        counts = {c.shard[1] for c in fd._live_connections() if c is not self}
        if counts and counts != {raw[1]}:
            fd.problem(f"gateway: IDENTIFY with shard {raw!r} while other sessions use shard_count {counts}")
            return None
        return raw[0], raw[1]

    def owns(self, guild_id: int) -> bool:
        shard_id, shard_count = self.shard
        return (guild_id >> 22) % shard_count == shard_id

    async def resume(self, d: dict[str, Any]) -> None:
        fd = self.fd
        session = fd._sessions.get(d.get("session_id") or "")
        if session is None:
            await self.send({"op": INVALID_SESSION, "d": False})
            return
        self.session_id = d["session_id"]
        self.identified = True
        self.intents = session["intents"]
        self.shard = session.get("shard", (0, 1))
        self.seq = session["seq"]
        fd.stats["resumes"] += 1
        await self.dispatch("RESUMED", {"_trace": ["fake-gw"]})
        fd._connected(self)

    async def request_members(self, d: dict[str, Any]) -> None:
        guild = self.fd.world.guilds.get(int(d.get("guild_id") or 0))
        if guild is None:
            return
        members = list(guild.members.values())
        if d.get("user_ids"):
            wanted = {int(u) for u in d["user_ids"]}
            members = [m for m in members if m.id in wanted]
        elif d.get("query"):
            members = [m for m in members if m.name.lower().startswith(str(d["query"]).lower())]
        if d.get("limit"):
            members = members[: d["limit"]]
        chunk = {
            "guild_id": str(guild.id),
            "members": [m.to_dict() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        if d.get("presences"):
            chunk["presences"] = []
        await self.dispatch("GUILD_MEMBERS_CHUNK", chunk)


async def gateway_handler(fd: FakeDiscord, request: web.Request) -> web.StreamResponse:
    q = request.query
    fd.gateway_queries.append(dict(q))
    if q.get("v") not in (None, "10"):
        fd.problem(f"gateway: connected with v={q.get('v')!r}, expected 10")
    encoding = q.get("encoding", "json")
    if encoding != "json":
        fd.problem(f"gateway: encoding={encoding!r} not supported (json only)")
    compress = q.get("compress")
    if compress not in (None, "zlib-stream"):
        fd.problem(f"gateway: compress={compress!r} not supported (zlib-stream only)")
    ws = web.WebSocketResponse(compress=False, max_msg_size=0, autoping=True)
    await ws.prepare(request)
    conn = GatewayConnection(fd, ws, compress=compress == "zlib-stream", encoding=encoding)
    fd._connections.append(conn)
    try:
        await conn.run()
    finally:
        fd._disconnected(conn)
        if not ws.closed:
            await ws.close()
    return ws
