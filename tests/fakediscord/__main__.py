"""``python -m tests.fakediscord``: run the fake as a local playground and print its URLs.

Point a bot at it with ``discord.http.Route.BASE = <api>`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(<gateway>)`` (any token works).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from .server import DEFAULT_TOKEN, FakeDiscord


async def main(seconds: float) -> None:
    async with FakeDiscord(strict=False, callback_deadline=None) as fd:
        guild = fd.add_guild("Table")
        guild.add_channel("combat")
        guild.add_role("GM")
        guild.add_member("alice")
        print(f"api:     {fd.api_base}")
        print(f"gateway: {fd.gateway_url}")
        print(f"token:   {DEFAULT_TOKEN}")
        print(f"guild:   {guild.id} ({guild.name})", flush=True)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(seconds)
        for p in fd.problems:
            print("problem:", p)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3600.0, help="how long to run (bounded)")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main(args.seconds))
