"""The fake sends a server's message events only to a session that asked for them (the GUILD_MESSAGES
intent), as Discord does: a bot without it gets no MESSAGE_CREATE for a member's message, or its own."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from bot.playground.loopback import FakeDiscord

WAIT = 5.0
GUILDS, GUILD_MESSAGES = 1 << 0, 1 << 9


async def next_dispatch(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    return json.loads((await asyncio.wait_for(ws.receive(), WAIT)).data)


@pytest.mark.parametrize("intents", [GUILDS, GUILDS | GUILD_MESSAGES])
async def test_message_events_need_the_guild_messages_intent(intents: int) -> None:
    async with FakeDiscord(strict=False) as fd:
        guild = fd.add_guild("Table")
        channel = guild.add_channel("combat")
        member = guild.add_member("pia")
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(fd.gateway_url + "?v=10&encoding=json") as ws,
        ):
            assert (await next_dispatch(ws))["op"] == 10
            await ws.send_str(
                json.dumps({"op": 2, "d": {"token": "x", "intents": intents, "properties": {}}})
            )
            assert [(await next_dispatch(ws))["t"] for _ in range(2)] == ["READY", "GUILD_CREATE"]
            message = await fd.post_message(channel, member, "hello")
            await fd.delete_message(message)
            late = guild.add_channel("late")  # always sent: whatever came before it came first
            await fd.flush()
            events = []
            for _ in range(4):  # bounded: at most the two message events and the channel
                event = await next_dispatch(ws)
                events.append((event["t"], event["d"]["id"]))
                if event["t"] == "CHANNEL_CREATE":
                    break
        expected = [("CHANNEL_CREATE", str(late.id))]
        if intents & GUILD_MESSAGES:
            expected = [("MESSAGE_CREATE", str(message.id)), ("MESSAGE_DELETE", str(message.id)), *expected]
        assert events == expected
        assert fd.take_problems() == []
