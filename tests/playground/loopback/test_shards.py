"""The fake's sharding, seen from a raw gateway client: IDENTIFY with a shard gets only that shard's
servers, and a bad shard is refused like Discord refuses it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from bot.playground.loopback import FakeDiscord

WAIT = 5.0


async def identify(
    fd: FakeDiscord, shard: Any
) -> tuple[aiohttp.ClientWebSocketResponse, aiohttp.ClientSession]:
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(fd.gateway_url + "?v=10&encoding=json")
    hello = json.loads((await asyncio.wait_for(ws.receive(), WAIT)).data)
    assert hello["op"] == 10
    payload = {"token": "x", "intents": 1, "properties": {}, "shard": shard}
    await ws.send_str(json.dumps({"op": 2, "d": payload}))
    return ws, session


async def dispatches(ws: aiohttp.ClientWebSocketResponse, count: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(count):  # bounded
        msg = await asyncio.wait_for(ws.receive(), WAIT)
        out.append(json.loads(msg.data))
    return out


async def test_each_session_gets_only_its_shards_servers() -> None:
    async with FakeDiscord(strict=False) as fd:
        guilds = [fd.add_guild(f"g{n}", shard=(n % 2, 2)) for n in range(4)]
        assert [(g.id >> 22) % 2 for g in guilds] == [0, 1, 0, 1]
        sockets = [await identify(fd, [shard, 2]) for shard in (0, 1)]
        try:
            for shard, (ws, _) in enumerate(sockets):
                ready, *creates = await dispatches(ws, 3)
                assert ready["t"] == "READY" and ready["d"]["shard"] == [shard, 2]
                mine = [str(g.id) for g in guilds if (g.id >> 22) % 2 == shard]
                assert [g["id"] for g in ready["d"]["guilds"]] == mine
                assert [c["d"]["id"] for c in creates] == mine
            await fd.wait_until_ready(timeout=WAIT)
            assert set(fd.shard_sessions) == {0, 1}
            channel = guilds[1].add_channel("late")  # an event of shard 1's server goes to shard 1 only
            await fd.flush()
            [event] = await dispatches(sockets[1][0], 1)
            assert event["t"] == "CHANNEL_CREATE" and event["d"]["id"] == str(channel.id)
            assert fd.connection_for(guilds[0].id) is fd.shard_sessions[0]
        finally:
            for ws, session in sockets:
                await ws.close()
                await session.close()
        assert fd.take_problems() == []


async def test_a_bad_shard_is_refused() -> None:
    async with FakeDiscord(strict=False) as fd:
        for bad in ([2, 2], [0], "0,1"):
            ws, session = await identify(fd, bad)
            try:
                msg = await asyncio.wait_for(ws.receive(), WAIT)
                assert msg.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4010
            finally:
                await ws.close()
                await session.close()
        assert len(fd.take_problems()) == 3
